// CID reads closed months compacted (issue 49, item 3): the focus table's partitions registered in
// a Glue catalog (a loopback responder speaking Glue's JSON 1.1 protocol to the real GlueClient)
// by syncFocusCatalog, a confirmed month at its compacted objects and every other day at its daily
// folder. Read as Athena reads such a table (harness/duckdb-catalog.ts), it holds exactly the rows
// of the daily objects, each once, from fewer objects; CID's own code over it sums the same; a month
// restated after compaction is read as restated by the end of the next run.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GlueClient } from '@aws-sdk/client-glue';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import {
  type CatalogPartition,
  syncFocusCatalog,
  WHOLE_MONTH_DAY,
} from '../../../functions/lib/compaction/focus-catalog.ts';
import { gluePartitions } from '../../../functions/lib/compaction/glue-partitions.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { COMPACTION_STATE_DIR } from '../../../functions/lib/destination/layout.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { focusTable } from '../../../functions/lib/tables/focus.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { createCatalogView, partitionObjects } from '../../../harness/duckdb-catalog.ts';
import { type GlueResponder, type GlueTableInput, startGlue } from '../../../harness/glue-responder.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { isConfirmed } from '../../../harness/simulator/unified-costs.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { glueTableInput } from '../../../infra/athena-tables.ts';
import { listTableMetadata, runCid } from '../../../tools/cid/run.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthsBack } from '../../support/months.ts';
import { synth } from '../../support/synth-stack.ts';

const NOW = new Date();
const FROM = monthsBack(2, NOW);
const TO = addDays(utcDay(NOW), -1);
const MONTHS = [monthBack(2, NOW), monthBack(1, NOW), monthBack(0, NOW)];
const DATABASE = 'cloudforet_export';
const ROOT = 's3://export-bucket/cloudforet/';
const DATA_SOURCES = 2;

/** The CDK table input (camelCase) as Glue's API spells it (PascalCase); parameter maps kept as they are. */
function glueApi(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(glueApi);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.charAt(0).toUpperCase() + k.slice(1),
      k === 'parameters' ? v : glueApi(v),
    ]),
  );
}

/** focus as the stack declares it: registered partitions, read by position. */
function focusTableInput(): GlueTableInput {
  return glueApi(
    glueTableInput(focusTable as never, `${ROOT}focus/`, '2025-01-01', { registered: true }),
  ) as GlueTableInput;
}

let sim: Simulator;
let dir: string;
let secretFile: string;
let glue: GlueResponder;
let client: GlueClient;
const out = () => join(dir, 'out');

beforeAll(async () => {
  sim = await startSimulator({
    seed: 49,
    dataSources: DATA_SOURCES,
    workspaces: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 5,
  });
  ({ dir, secretFile } = await appFolder('cid-months', sim.issueToken()));
  glue = await startGlue({ [DATABASE]: [focusTableInput()] });
  client = new GlueClient({
    endpoint: glue.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
}, 60_000);
afterAll(async () => {
  client?.destroy();
  await glue?.stop();
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function costs() {
  const io = fakeIo();
  const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out(), '--json'];
  const code = await main([...argv, '--from', FROM, '--to', TO], {}, io);
  return { code, summary: JSON.parse(io.out()) };
}

const sync = () => syncFocusCatalog(dirSink(out()), gluePartitions(client, DATABASE, 'focus'), ROOT);

function registered(): CatalogPartition[] {
  return glue.partitions(DATABASE, 'focus').map((p) => ({
    values: [p.Values[0]!, p.Values[1]!],
    location: String(p.StorageDescriptor.Location),
  }));
}

interface Reading {
  readonly objects: number;
  readonly rows: string[];
  readonly total: number;
  readonly dailyRows: string[];
  readonly dailyTotal: number;
  readonly dailyObjects: number;
}

const IDENTITY = `x_data_source_id, x_billing_period, CAST(ChargePeriodStart AS VARCHAR), x_cost_id, ResourceId, round(BilledCost, 9), round(EffectiveCost, 9)`;

/** The catalog's table next to the daily objects read whole (what focus is without compaction). */
async function reading(db: AthenaLike): Promise<Reading> {
  const partitions = registered();
  const objects = await createCatalogView(
    db.connection,
    {
      name: 'focus_catalog',
      columns: focusTable.columns.map((c) => c.name),
      partitionKeys: [focusTable.partitionKey, focusTable.dayKey!],
    },
    partitions,
    ROOT,
    out(),
  );
  const rows = async (table: string) =>
    (await db.run(`SELECT concat_ws('|', ${IDENTITY}) AS r FROM ${table}`)).map((r) => String(r.r)).sort();
  const total = async (table: string) =>
    Number((await db.run(`SELECT sum(BilledCost) AS s FROM ${table}`))[0]!.s);
  const daily = await db.run(
    `SELECT count(DISTINCT filename) AS n FROM read_parquet('${out()}/focus/*/*/*.parquet', filename = true)`,
  );
  return {
    objects,
    rows: await rows('focus_catalog'),
    total: await total('focus_catalog'),
    dailyRows: await rows('focus'),
    dailyTotal: await total('focus'),
    dailyObjects: Number(daily[0]!.n),
  };
}

async function withDb<T>(fn: (db: AthenaLike) => Promise<T>): Promise<T> {
  const db = await athenaOver(out(), { now: NOW });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

const through = async () =>
  JSON.parse(await readFile(join(out(), COMPACTION_STATE_DIR, 'focus.json'), 'utf8')).through_month as string;

describe('CID reads closed months compacted: the focus table through registered Glue partitions', () => {
  it('registers one partition per confirmed month at its compacted objects and one per open day', async () => {
    expect(isConfirmed(MONTHS[0]!)).toBe(true); // two months back is always confirmed
    expect((await costs()).code).toBe(0);
    const month = await through();
    const first = await sync();

    const partitions = registered();
    const compacted = partitions.filter((p) => p.values[1] === WHOLE_MONTH_DAY);
    expect(compacted.map((p) => p.values[0])).toEqual(MONTHS.filter((m) => m <= month));
    for (const p of compacted)
      expect(p.location).toBe(`${ROOT}focus_monthly/x_billing_period=${p.values[0]}/`);
    const days = partitions.filter((p) => p.values[1] !== WHOLE_MONTH_DAY);
    expect(days.length).toBeGreaterThan(0);
    for (const p of days) {
      expect(p.values[0] > month).toBe(true);
      expect(p.location).toBe(`${ROOT}focus/x_billing_period=${p.values[0]}/x_charge_day=${p.values[1]}/`);
    }
    expect(first).toMatchObject({
      created: partitions.length,
      removed: 0,
      compactedMonths: compacted.length,
    });
    // The real SDK's calls, as Glue answers them: the table's descriptor once, one page of partitions.
    expect(glue.calls.GetTable).toBe(1);
    expect(glue.calls.GetPartitions).toBe(1);
    // Nothing changed: nothing to call.
    expect(await sync()).toMatchObject({ created: 0, removed: 0, relocated: 0 });
  }, 300_000);

  it('holds every daily row once, with the daily totals, from at most a month object per data source', async () => {
    const r = await withDb(reading);
    const month = await through();

    expect(r.rows.length).toBeGreaterThan(100);
    expect(r.rows).toEqual(r.dailyRows); // the same rows, each as often: none twice, none missed
    expect(r.total).toBeCloseTo(r.dailyTotal, 6);
    const openDays = registered().filter((p) => p.values[1] !== WHOLE_MONTH_DAY).length;
    const closed = MONTHS.filter((m) => m <= month).length;
    expect(r.objects).toBeLessThanOrEqual(closed * DATA_SOURCES + openDays * DATA_SOURCES);
    expect(r.objects).toBeLessThan(r.dailyObjects);
  }, 120_000);

  it("CID's own consolidation and summary views over it sum the daily BilledCost", async () => {
    await withDb(async (db) => {
      const partitions = registered();
      await createCatalogView(
        db.connection,
        {
          name: 'focus_catalog',
          columns: focusTable.columns.map((c) => c.name),
          partitionKeys: ['x_billing_period', 'x_charge_day'],
        },
        partitions,
        ROOT,
        out(),
      );
      await db.run(`CREATE SCHEMA ${DATABASE}`);
      await db.run(`CREATE VIEW ${DATABASE}.focus AS SELECT * FROM main.focus_catalog`);
      const cid = await runCid({
        db,
        now: NOW,
        database: DATABASE,
        databases: listTableMetadata(synth()),
        tagAnswers: { resource_tags: ['tag_team'] },
        workDir: dir,
        afterCreate: (view) =>
          db.run(
            view === 'focus_consolidation_view'
              ? `SELECT count(*) AS n, sum(billedcost) AS billed FROM ${view}`
              : `SELECT sum(billedcost) AS billed FROM ${view}`,
          ),
      });
      // Still one FOCUS table per destination for CID's discovery.
      expect(cid.discovered.map((t) => `${t.database}.${t.table_name}`)).toEqual([`${DATABASE}.focus`]);
      const daily = (await db.run('SELECT count(*) AS n, sum(BilledCost) AS s FROM main.focus'))[0]!;
      const [view] = cid.snapshots.focus_consolidation_view!;
      expect(Number(view!.n)).toBe(Number(daily.n));
      expect(Number(view!.billed)).toBeCloseTo(Number(daily.s), 6);
      const summary = cid.snapshots['focus_summary_view:no-tags']!;
      expect(summary.reduce((s, r) => s + Number(r.billed ?? 0), 0)).toBeCloseTo(Number(daily.s), 6);
    });
  }, 300_000);

  it('a month restated after compaction is read as restated by the end of the next run', async () => {
    const before = await withDb(reading);
    const month = MONTHS[0]!;
    const [ds] = sim.dataSourceIds() as [string];
    sim.sync(ds, { start: month, changes: { [addDays(FROM, 3)]: { costFactor: 3 } } });

    // The cost run itself keeps the catalog (no sync from the test): a day's partition lost
    // behind its back is registered again by the run's end.
    const kept = registered();
    const lost = kept.find((p) => p.values[1] !== WHOLE_MONTH_DAY)!;
    await gluePartitions(client, DATABASE, 'focus').drop([lost]);
    expect(registered()).toHaveLength(kept.length - 1);
    const rerun = await runCostExport(
      {
        client: new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() }),
        sink: dirSink(out()),
        focusCatalog: { port: gluePartitions(client, DATABASE, 'focus'), root: ROOT },
      },
      { from: FROM, to: TO },
    );
    expect(rerun.failed).toBe(0);
    expect(rerun.compaction?.tables.find((t) => t.table === 'focus_monthly')?.written).toBeGreaterThanOrEqual(
      1,
    );
    const names = (list: CatalogPartition[]) => list.map((p) => p.values.join('/')).sort();
    expect(names(registered())).toEqual(names(kept));

    const after = await withDb(reading);
    expect(after.dailyTotal).not.toBeCloseTo(before.dailyTotal, 6); // the restatement is in the days
    expect(after.rows).toEqual(after.dailyRows);
    expect(after.total).toBeCloseTo(after.dailyTotal, 6);
    expect(registered().some((p) => p.values[0] === month && p.values[1] === WHOLE_MONTH_DAY)).toBe(true);
  }, 300_000);

  it('a month whose compaction is withdrawn goes back to its days; a failing catalog fails the sync', async () => {
    const sink = dirSink(out());
    // As a run that lowers the state before it restates a compacted month, and then fails to compact it.
    const { writeCompactionState } = await import('../../../functions/lib/destination/compaction-state.ts');
    await writeCompactionState(sink, 'focus', undefined);
    const moved = await sync();
    expect(moved.removed).toBeGreaterThan(0);
    expect(registered().filter((p) => p.values[1] === WHOLE_MONTH_DAY)).toEqual([]);
    const r = await withDb(reading);
    expect(r.rows).toEqual(r.dailyRows);
    expect(partitionObjects(registered(), ROOT, out()).flat().length).toBe(r.dailyObjects);

    glue.setFailing(true);
    try {
      await expect(sync()).rejects.toThrow();
    } finally {
      glue.setFailing(false);
    }
  }, 120_000);
});
