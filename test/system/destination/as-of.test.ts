// "As of" reads (issue 49): one confirmed day restated three times, and the month compacted, is read
// back at each of the four times exactly as a reader saw it then, row for row, through the saved
// queries costs_as_of and focus_as_of (DuckDB standing in for Athena); also after the day has left
// Cloudforet's retention. Every object a restatement replaced is kept under <table>_revisions/,
// with a line of the revisions ledger saying when it stopped being current and why.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthEnd, monthsBack } from '../../support/months.ts';

const MONTH = monthBack(2); // confirmed: compacted by every run
const FROM = monthsBack(2);
const TO = monthEnd(2);
const DAY = addDays(FROM, 9);
const queries = loadNamedQueries();
const sqlOf = (name: string) => queries.find((q) => q.name === name)!.sql;
const VIEWS = [
  'create_costs_combined_view',
  'create_focus_combined_view',
  'create_costs_versions_view',
  'create_focus_versions_view',
];
const SAMPLE_AT = "TIMESTAMP '2026-10-03 00:00:00'";
/** A saved as-of query at another instant than its sample's. */
const query = (name: string, instant: string) => sqlOf(name).replaceAll(SAMPLE_AT, instant);

let sim: Simulator;
let dir: string;
let secretFile: string;
let out: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 49, dataSources: 2, from: FROM, to: TO, rowsPerDay: 4 });
  ({ dir, secretFile } = await appFolder('as-of', sim.issueToken()));
  out = join(dir, 'out');
}, 60_000);
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function costs(): Promise<void> {
  const io = fakeIo();
  const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out, '--json'];
  const code = await main([...argv, '--from', FROM, '--to', TO], {}, io);
  expect({ code, err: io.err() }).toEqual({ code: 0, err: expect.any(String) });
}

/** A value as compared: numbers to 12 significant digits, instants as ISO text. */
function normal(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(12)) : value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(normal);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, normal(v)])
        .sort(),
    );
  }
  return value;
}

async function withAthena<T>(use: (db: AthenaLike) => Promise<T>): Promise<T> {
  const db = await athenaOver(out);
  try {
    for (const view of VIEWS) await db.run(sqlOf(view));
    return await use(db);
  } finally {
    db.close();
  }
}

const rowsOf = async (db: AthenaLike, sql: string) =>
  (await db.run(sql)).map((r) => JSON.stringify(normal(r))).sort();

/** What a reader saw: the combined views (compacted months from their monthly objects) and the daily tables. */
async function readerSees(): Promise<Reads> {
  return withAthena(async (db) => ({
    costs: await rowsOf(db, 'SELECT * FROM costs_combined'),
    focus: await rowsOf(db, 'SELECT * FROM focus_combined'),
  }));
}

async function asOf(at: Date): Promise<Reads> {
  const instant = `TIMESTAMP '${at.toISOString().slice(0, 23).replace('T', ' ')}'`;
  return withAthena(async (db) => ({
    costs: await rowsOf(db, query('costs_as_of', instant)),
    focus: await rowsOf(db, query('focus_as_of', instant)),
  }));
}

async function filesUnder(folder: string): Promise<string[]> {
  const names = await readdir(join(out, folder), { recursive: true }).catch(() => []);
  return names.map(String).filter((n) => n.endsWith('.parquet') || n.endsWith('.json'));
}

async function bytesUnder(folder: string): Promise<number> {
  let total = 0;
  for (const f of await filesUnder(folder)) total += (await stat(join(out, folder, f))).size;
  return total;
}

interface Reads {
  readonly costs: string[];
  readonly focus: string[];
}

const times: Date[] = [];
const seen: Reads[] = [];

describe('a confirmed day restated three times, read as of each time', () => {
  it('keeps every replaced object as a revision, with a ledger line saying when and why', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    await costs();
    times.push(new Date());
    seen.push(await readerSees());
    for (const factor of [2, 3, 5]) {
      sim.sync(ds, { start: MONTH, changes: { [DAY]: { costFactor: factor } } });
      await costs();
      times.push(new Date());
      seen.push(await readerSees());
    }

    const revisions = await filesUnder(`costs_revisions/billed_date=${DAY}`);
    expect(revisions.filter((f) => f.startsWith(`${ds}~`))).toHaveLength(3);
    expect(
      await filesUnder(`focus_revisions/x_billing_period=${MONTH}/x_charge_day=${DAY.slice(8)}`),
    ).toContainEqual(expect.stringMatching(new RegExp(`^${ds}~[0-9a-f]{16}\\.parquet$`)));
    expect((await filesUnder(`costs_monthly_revisions/billed_month=${MONTH}`)).length).toBeGreaterThanOrEqual(
      3,
    );
    const lines = await withAthena((db) =>
      db.run(
        `SELECT outcome, reason, superseded_at, current_since, revision_key FROM revisions
         WHERE table_name = 'costs' AND partition_value = '${DAY}' AND unit = '${ds}' ORDER BY superseded_at`,
      ),
    );
    expect(lines).toHaveLength(3);
    for (const [i, line] of lines.entries()) {
      expect(line.outcome).toBe('replaced');
      expect(line.reason).toMatch(/\w/);
      expect(Date.parse(String(line.superseded_at))).toBeGreaterThan(times[i]!.getTime());
      expect(Date.parse(String(line.superseded_at))).toBeLessThan(times[i + 1]!.getTime());
    }
    // The restatement line names the revision it replaced.
    const restated = await withAthena((db) =>
      db.run(
        `SELECT revision_key FROM cost_restatements WHERE billed_date = '${DAY}' AND data_source_id = '${ds}'`,
      ),
    );
    expect(restated.map((r) => r.revision_key).sort()).toEqual(lines.map((l) => l.revision_key).sort());
    // Not vacuous: each restatement changed what a reader saw.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.costs).not.toEqual(seen[i - 1]!.costs);
  }, 600_000);

  it('reads costs and focus back at each of the four times, row for row, across compaction', async () => {
    for (const [i, at] of times.entries()) {
      const read = await asOf(at);

      expect({ i, rows: read.costs }).toEqual({ i, rows: seen[i]!.costs });
      expect({ i, rows: read.focus }).toEqual({ i, rows: seen[i]!.focus });
      expect(read.costs.length).toBeGreaterThan(0);
    }
    // Before the first export, nothing.
    expect((await asOf(new Date(times[0]!.getTime() - 3_600_000_000))).costs).toEqual([]);
  }, 300_000);

  it('still reads every time back once the day has left retention and Cloudforet has purged it', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    sim.resync(ds, DAY, { rowDelta: -1_000_000 });
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });

    const run = await runCostExport(
      { client, sink: dirSink(out), archiveAfterDays: 0 },
      { from: DAY, to: DAY },
    );

    expect(run).toMatchObject({ kept: 1 });
    expect(await readerSees()).toEqual(seen.at(-1));
    for (const [i, at] of times.entries()) {
      expect({ i, rows: (await asOf(at)).costs }).toEqual({ i, rows: seen[i]!.costs });
    }
    expect((await asOf(new Date())).costs).toEqual(seen.at(-1)!.costs);
  }, 300_000);

  it('the CLI reads the same rows at each time, from the destination alone', async () => {
    for (const [i, at] of times.entries()) {
      const io = fakeIo();

      const code = await main(
        ['as-of', '--out', out, '--table', 'costs', '--at', at.toISOString(), '--json'],
        {},
        io,
      );

      expect(code).toBe(0);
      const rows = JSON.parse(io.out())
        .rows.map((r: unknown) => JSON.stringify(normal(r)))
        .sort();
      expect({ i, rows }).toEqual({ i, rows: seen[i]!.costs });
    }
  }, 300_000);

  it('the verifier finds every revision as named, and a damaged one', async () => {
    const clean = await verifyDestination(dirSink(out), { checksums: true });
    expect(clean.findings).toEqual([]);

    const [ds] = sim.dataSourceIds() as [string];
    const folder = `costs_revisions/billed_date=${DAY}`;
    const [first] = (await filesUnder(folder)).filter((f) => f.startsWith(ds));
    const key = `${folder}/${first}`;
    const bytes = await readFile(join(out, key));
    await dirSink(out).put(key, `${bytes.toString('latin1')}x`, 'application/octet-stream');

    const damaged = await verifyDestination(dirSink(out), { checksums: true });
    expect(damaged.findings).toEqual([{ key, why: 'revision-mismatch' }]);
    await dirSink(out).put(key, bytes.toString('latin1'), 'application/octet-stream');
  }, 120_000);

  it('measures what revisions cost in bytes', async () => {
    const tables = ['costs', 'focus', 'unified_costs', 'costs_monthly', 'focus_monthly'];
    const figures = Object.fromEntries(
      await Promise.all(
        tables.map(async (t) => [
          t,
          { table: await bytesUnder(t), revisions: await bytesUnder(`${t}_revisions`) },
        ]),
      ),
    );
    const ledger = await bytesUnder('ledger/revisions');
    console.log(
      `revision bytes after 1 export and 3 restatements of one day: ${JSON.stringify({ ...figures, ledger })}`,
    );

    expect(figures.costs.revisions).toBeGreaterThan(0);
    expect(ledger).toBeGreaterThan(0);
  });
});
