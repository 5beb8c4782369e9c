// How Cloudforet really syncs, against the simulator: after a first export, the next default run
// sees re-attribution, a manual sync months back, a failed sync's mixed day, a stale running job
// and a WAREHOUSE data source, and does the right thing with each.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { defaultWindow } from '../../../functions/lib/costs/event.ts';
import { type CostRunRequest, runCostExport } from '../../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthsBack as firstOfMonthsBack } from '../../support/months.ts';

const now = new Date();
const window = defaultWindow(now, 2);
const DEFAULT_RUN: CostRunRequest = { ...window, followJobs: true };
/** A day of the window's first month (last month): every sync below replaced it. */
const DAY = addDays(window.from, 9);
const monthsBack = (n: number) => firstOfMonthsBack(n, now).slice(0, 7);

interface Setup {
  sim: Simulator;
  dir: string;
  ds: string;
  run: (req?: CostRunRequest) => ReturnType<typeof runCostExport>;
}

const opened: Setup[] = [];
afterEach(async () => {
  for (const { sim, dir } of opened.splice(0)) {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A simulator holding rows from `from`, and a first export of all of them. */
async function exported(from = window.from): Promise<Setup> {
  const sim = await startSimulator({
    seed: 14,
    dataSources: 1,
    from,
    to: addDays(utcDay(now), -1),
    rowsPerDay: 60,
  });
  const dir = await mkdtemp(join(tmpdir(), 'syncs-'));
  const client = new CloudforetClient({
    endpoint: sim.url,
    token: sim.issueToken(),
    dispatcher: new Agent(),
  });
  const run = (req: CostRunRequest = DEFAULT_RUN) =>
    runCostExport({ client, sink: dirSink(dir), concurrency: 4 }, req);
  const setup = { sim, dir, ds: sim.dataSourceIds()[0]!, run };
  opened.push(setup);
  const first = await run({ from, to: window.to, followJobs: true });
  expect(first).toMatchObject({ failed: 0 });
  return setup;
}

async function exportedRows(dir: string, ds: string, date: string) {
  return readWithArrow(new Uint8Array(await readFile(join(dir, costObjectKey(ds, date))))).rows;
}

const countBy = (rows: ReadonlyArray<Record<string, unknown>>, key: string) => {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[String(r[key] ?? '')] = (counts[String(r[key] ?? '')] ?? 0) + 1;
  return counts;
};

describe('the next default run after a sync', () => {
  it('(a) re-exports a day whose rows moved between projects with the same count and sum', async () => {
    const { sim, dir, ds, run } = await exported();
    const before = sim.costTruth(ds, DAY);
    const splitBefore = countBy(sim.costRows(ds, DAY), 'project_id');
    sim.sync(ds, { start: DAY.slice(0, 7), changes: { [DAY]: { shift: 1 } } });

    const summary = await run();

    expect(sim.costTruth(ds, DAY)).toEqual(before);
    expect(countBy(sim.costRows(ds, DAY), 'project_id')).not.toEqual(splitBefore);
    expect(summary).toMatchObject({ units: 1, written: 1, failed: 0 });
    expect(countBy(await exportedRows(dir, ds, DAY), 'project_id')).toEqual(
      countBy(sim.costRows(ds, DAY), 'project_id'),
    );
    expect((await run()).units).toBe(0);
  });

  it('asks cost/analyze one calendar month a call, with the same bytes on every run', async () => {
    const { sim, run } = await exported();
    const analyzeBodies = () =>
      sim.requests.filter((r) => r.path === '/cost-analysis/cost/analyze').map((r) => JSON.stringify(r.body));
    sim.resetRequestLog();
    await run();
    const first = analyzeBodies();
    sim.resetRequestLog();

    await run();

    expect(analyzeBodies()).toEqual(first);
    expect(first.map((b) => JSON.parse(b).query.start)).toEqual([window.from, `${window.to.slice(0, 7)}-01`]);
  });

  it('(b) re-exports a month a manual sync restated five months back, outside the window', async () => {
    const month = monthsBack(5);
    const day = `${month}-12`;
    const { sim, dir, ds, run } = await exported(`${monthsBack(6)}-01`);
    sim.sync(ds, { start: month, changes: { [day]: { costFactor: 1.5, rowDelta: 3 } } });

    const summary = await run();

    expect(summary).toMatchObject({ units: 1, written: 1, failed: 0 });
    expect(summary.reexamined).toEqual([
      { dataSourceId: ds, months: [month, monthsBack(4), monthsBack(3), monthsBack(2)] },
    ]);
    const rows = await exportedRows(dir, ds, day);
    expect(rows.length).toBe(sim.costTruth(ds, day).rows);
    expect(rows.reduce((s, r) => s + Number(r.cost), 0)).toBeCloseTo(sim.costTruth(ds, day).costSum, 6);
    expect((await run()).reexamined).toEqual([]);
  });

  it("(c) publishes only the last successful job's rows of a failed sync's mixed day, and reports it", async () => {
    const { sim, dir, ds, run } = await exported();
    const good = sim.sync(ds, { start: DAY.slice(0, 7) });
    const failed = sim.sync(ds, { start: DAY.slice(0, 7), status: 'FAILURE', leftoverRows: { [DAY]: 25 } });

    const summary = await run();

    expect(summary.mixed).toEqual([
      { dataSourceId: ds, date: DAY, jobIds: [good, failed].sort(), publishedJobId: good },
    ]);
    expect(summary).toMatchObject({ units: 1, written: 1, failed: 0 });
    const ids = (await exportedRows(dir, ds, DAY)).map((r) => String(r.cost_id)).sort();
    expect(ids).toEqual(
      sim
        .costRows(ds, DAY)
        .map((r) => String(r.cost_id))
        .sort(),
    );
    const manifest = JSON.parse(await readFile(join(dir, costManifestKey(ds, DAY)), 'utf8'));
    expect(manifest).toMatchObject({ jobId: good, rows: sim.costTruth(ds, DAY).rows });
    const again = await run();
    expect(again).toMatchObject({ units: 0, mixed: [{ date: DAY, publishedJobId: good }] });
  });

  it('(d) exports a data source whose IN_PROGRESS job is stale, and names the job', async () => {
    const { sim, ds, run } = await exported();
    const stale = sim.setJobInProgress(ds, true, { startedAgoMs: 5 * 3_600_000 });
    sim.resync(ds, DAY, { rowDelta: 2 });

    const summary = await run();

    expect(summary).toMatchObject({ units: 1, written: 1, skippedSyncInProgress: [] });
    expect(summary.staleJobs).toEqual([{ dataSourceId: ds, jobId: stale, since: expect.any(String) }]);
    sim.setJobInProgress(ds, true);
    expect((await run()).skippedSyncInProgress).toEqual([ds]);
  });

  it('(f) skips a WAREHOUSE data source with a reason, without retrying', async () => {
    const { sim, ds, run } = await exported();
    sim.setWarehouse(ds);
    sim.resync(ds, DAY, { rowDelta: 2 });
    sim.resetRequestLog();

    const summary = await run();

    expect(summary).toMatchObject({ units: 0, failed: 0, skippedWarehouse: [ds], requestRetries: 0 });
    expect(summary.perDataSource).toEqual([
      expect.objectContaining({ dataSourceId: ds, skipped: 'warehouse' }),
    ]);
    expect(sim.requests.filter((r) => r.path === '/cost-analysis/cost/list')).toEqual([]);
  });
});
