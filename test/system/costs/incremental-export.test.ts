// Change detection against the simulator: only new or changed days are exported.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_3 = monthBack(3);

const FROM = `${MONTH_3}-01`;
const TO = `${MONTH_3}-10`;

describe('incremental cost export', () => {
  let sim: Simulator;
  let dir: string;
  let deps: Parameters<typeof runCostExport>[0];
  const run = (extra: { force?: boolean } = {}) => runCostExport(deps, { from: FROM, to: TO, ...extra });

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, dataSources: 3, from: FROM, to: TO, rowsPerDay: 30 });
    dir = await mkdtemp(join(tmpdir(), 'incremental-'));
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });
    deps = { client, sink: dirSink(dir), concurrency: 4 };
    await run();
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('does no work when nothing changed', async () => {
    const summary = await run();

    expect(summary).toMatchObject({ units: 0, unchanged: 30, failed: 0, rows: 0 });
  });

  it('exports exactly the days whose rows or sums changed', async () => {
    const [a, b] = sim.dataSourceIds() as [string, string];
    sim.resync(a, `${MONTH_3}-03`, { rowDelta: 4 });
    sim.resync(b, `${MONTH_3}-07`, { rowDelta: -2 });
    sim.resync(b, `${MONTH_3}-09`, { costFactor: 1.5 });

    const summary = await run();

    expect(summary).toMatchObject({ units: 3, written: 3, unchanged: 27, failed: 0 });
    expect(summary.rows).toBe(
      sim.costTruth(a, `${MONTH_3}-03`).rows +
        sim.costTruth(b, `${MONTH_3}-07`).rows +
        sim.costTruth(b, `${MONTH_3}-09`).rows,
    );
    expect((await run()).units).toBe(0);
  });

  it('skips a data source whose sync is in progress, and reports it', async () => {
    const [, , c] = sim.dataSourceIds() as [string, string, string];
    sim.resync(c, `${MONTH_3}-02`, { rowDelta: 1 });
    sim.setJobInProgress(c, true);

    const summary = await run();
    sim.setJobInProgress(c, false);

    expect(summary.skippedSyncInProgress).toEqual([c]);
    expect(summary.perDataSource.find((d) => d.dataSourceId === c)).toMatchObject({
      skippedSyncInProgress: true,
      exported: 0,
    });
    expect(summary.units).toBe(0);
    expect((await run()).units).toBe(1);
  });

  it('re-exports every day with force', async () => {
    const summary = await run({ force: true });

    expect(summary).toMatchObject({ units: 30, unchanged: 0, failed: 0, force: true });
  });
});
