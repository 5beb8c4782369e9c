// AWS's Cloud Intelligence Dashboards (CID) FOCUS dashboard reads the focus table: CID's own
// discovery and SQL (test/fixtures/cid/, commit in its README), run unmodified against the
// synthesized stack's Glue tables and, through the DuckDB stand-in, over a simulator export.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { type CidRun, listTableMetadata, runCid } from '../../../tools/cid/run.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { synth } from '../../support/synth-stack.ts';

const NOW = new Date();
const TO = addDays(utcDay(NOW), -1);
const FROM = addDays(TO, -4);
const DATABASE = 'cloudforet_export';
const PICKED_TAGS = ['tag_team', 'tag_env'];

/**
 * What the stand-in rewrites in CID's SQL, because DuckDB lacks the syntax (harness/duckdb-athena.ts
 * says why each answers as Trino does). Everything else CID wrote runs as it is.
 */
const TRANSLATIONS: ReadonlyArray<[string, RegExp]> = [
  ["date_format(x, '%Y-%m') -> strftime(x, '%Y-%m')", /\bdate_format\(/i],
  ["DATE_ADD('day', -60, CURRENT_DATE) -> CAST(date + INTERVAL (-60) day AS date)", /\bDATE_ADD\('day'/i],
  ['json_format(json) -> CAST(json AS VARCHAR)', /\bjson_format\(/i],
  ['current_date, current_timestamp -> the test clock (UTC)', /\bcurrent_(date|timestamp)\b/i],
];

describe("CID's FOCUS dashboard over the focus table", () => {
  let simulator: Simulator;
  let dir: string;
  let db: AthenaLike;
  let cid: CidRun;
  const one = async (sql: string) => (await db.run(sql))[0]!;
  const num = (v: unknown) => Number(v ?? 0);

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 36, workspaces: 2, to: TO, rowsPerDay: 40, cloudServices: 40 });
    dir = await mkdtemp(join(tmpdir(), 'cid-'));
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const args = [
      '--endpoint',
      simulator.url,
      '--secret-file',
      join(dir, 'app.secret'),
      '--out',
      join(dir, 'out'),
    ];
    expect(await main(['costs', ...args, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(0);
    db = await athenaOver(join(dir, 'out'), { now: NOW });
    // Not a translation: Athena names a table by database, DuckDB by schema.
    await db.run(`CREATE SCHEMA ${DATABASE}`);
    await db.run(`CREATE VIEW ${DATABASE}.focus AS SELECT * FROM main.focus`);
    cid = await runCid({
      db,
      now: NOW,
      database: DATABASE,
      databases: listTableMetadata(synth()),
      tagAnswers: { resource_tags: PICKED_TAGS },
      workDir: dir,
      afterCreate: (view) =>
        db.run(
          view === 'focus_consolidation_view'
            ? `SELECT count(*) AS n, sum(billedcost) AS billed, count(tags) AS tagged FROM ${view}`
            : `SELECT json_extract_scalar(tags_json, '$.tag_team') AS team, count(*) AS n,
                      sum(billedcost) AS billed, count(DISTINCT tags_json) AS tag_sets
               FROM ${view} GROUP BY 1`,
        ),
    });
  });
  afterAll(async () => {
    db?.close();
    await simulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('discovers the focus table (all 21 minimum columns), and no other exported table', () => {
    expect(cid.discovered.map((t) => `${t.database}.${t.table_name}`)).toEqual([`${DATABASE}.focus`]);
    expect(cid.discovered[0]!.columns.tags).toBe('map<string,string>');
    expect(cid.discovered[0]!.columns.skupricedetails).toBe('map<string,string>');
  });

  it('generates a consolidation view that reads tags without a cast and each column by its FOCUS name', () => {
    expect(cid.consolidationSql).toContain('FROM\n  "cloudforet_export"."focus"');
    expect(cid.consolidationSql).toMatch(/\n, +tags\n/);
    // CID casts a column whose type differs from its target's; NULL placeholders stand for columns absent.
    expect(cid.consolidationSql.match(/CAST\((?!NULL )\w+ AS \w+\)/g)).toEqual([
      'CAST(billingperiodstart AS DATE)',
    ]);
    expect(cid.consolidationSql).toContain(
      `date_format(CAST(billingperiodstart AS DATE), '%Y-%m') billing_period`,
    );
  });

  it('runs every statement CID sends: the consolidation view, the tag query, both views with and without tags', () => {
    expect(cid.created).toBe(true);
    expect(cid.statements.filter((s) => s.error)).toEqual([]);
    expect(
      cid.statements.map((s) => [s.phase, /^(CREATE OR REPLACE VIEW "?\w+|SELECT)/.exec(s.sql)?.[0]]),
    ).toEqual([
      ['focus_consolidation_view', 'CREATE OR REPLACE VIEW "focus_consolidation_view'],
      ['focus_resource_view:no-tags', 'CREATE OR REPLACE VIEW focus_resource_view'],
      ['focus_summary_view:no-tags', 'CREATE OR REPLACE VIEW focus_summary_view'],
      ['focus_resource_view:tags', 'SELECT'],
      ['focus_resource_view:tags', 'CREATE OR REPLACE VIEW focus_resource_view'],
      ['focus_summary_view:tags', 'CREATE OR REPLACE VIEW focus_summary_view'],
    ]);
  });

  it('rewrites only the syntax DuckDB lacks, each rewrite used', () => {
    const rewritten = cid.statements.filter((s) => s.sql !== s.duckdb).map((s) => s.sql);

    for (const [name, pattern] of TRANSLATIONS) {
      expect(
        rewritten.some((sql) => pattern.test(sql)),
        name,
      ).toBe(true);
    }
  });

  it('carries every FOCUS row, its BilledCost and its tags through the consolidation view', async () => {
    const focus = await one(
      'SELECT count(*) AS n, sum(BilledCost) AS billed, count(Tags) AS tagged FROM focus',
    );
    const [view] = cid.snapshots.focus_consolidation_view!;

    expect(num(focus.n)).toBeGreaterThan(100);
    expect(num(view!.n)).toBe(num(focus.n));
    expect(num(view!.billed)).toBeCloseTo(num(focus.billed), 6);
    expect(num(focus.tagged)).toBeGreaterThan(0);
    expect(num(view!.tagged)).toBe(num(focus.tagged));
  });

  it("offers the table's tag keys in CID's tag query", async () => {
    const keys = await db.run('SELECT DISTINCT k FROM focus CROSS JOIN UNNEST(map_keys(Tags)) AS t(k)');
    const rendered = cid.rendered['focus_resource_view:tags']!;

    expect(keys.length).toBeGreaterThan(0);
    expect(rendered).toContain(`('tag_team', Tags['team'])`);
    expect(rendered).toContain(`('tag_env', Tags['env'])`);
    expect(cid.rendered['focus_summary_view:no-tags']).toContain(`'{}' tags_json`);
  });

  it('sums the BilledCost of every row in focus_summary_view, without tags and per picked tag', async () => {
    const total = num((await one('SELECT sum(BilledCost) AS s FROM focus')).s);
    const byTeam = await db.run(
      `SELECT element_at(Tags, 'team') AS team, sum(BilledCost) AS billed FROM focus GROUP BY 1`,
    );
    const sum = (rows: Record<string, unknown>[]) => rows.reduce((s, r) => s + num(r.billed), 0);
    const noTags = cid.snapshots['focus_summary_view:no-tags']!;
    const tags = cid.snapshots['focus_summary_view:tags']!;

    expect(sum(noTags)).toBeCloseTo(total, 6);
    expect(noTags).toHaveLength(1);
    expect(sum(tags)).toBeCloseTo(total, 6);
    expect(byTeam.filter((r) => r.team !== null).length).toBeGreaterThan(1);
    const teams = new Map(tags.map((r) => [r.team ?? null, num(r.billed)]));
    expect(teams.size).toBe(byTeam.length);
    for (const r of byTeam) expect(teams.get(r.team ?? null), String(r.team)).toBeCloseTo(num(r.billed), 6);
  });

  it('sums the BilledCost of every resource row in focus_resource_view, without tags and with them', async () => {
    const resources = num((await one(`SELECT sum(BilledCost) AS s FROM focus WHERE ResourceId <> ''`)).s);
    const sum = (phase: string) => cid.snapshots[phase]!.reduce((s, r) => s + num(r.billed), 0);

    expect(resources).toBeGreaterThan(0);
    expect(sum('focus_resource_view:no-tags')).toBeCloseTo(resources, 6);
    expect(sum('focus_resource_view:tags')).toBeCloseTo(resources, 6);
  });
});
