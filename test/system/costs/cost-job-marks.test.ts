// Issue 45, finding 2: a stopped run must not record sync jobs as handled for data sources it
// never reached. A re-sync restates days of both data sources months back; a daily run stopped
// after its first unit (the Lambda's deadline) writes no job mark for a data source with units not
// started, so the next daily runs look at the same jobs again and publish the restated rows. On
// the code before the fix the stopped run marked both data sources and the restated days of the
// second kept their pre-sync rows for good, every run exiting 0.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { parseCostEvent } from '../../../functions/lib/costs/event.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays, daysBetween, utcDay } from '../../../functions/lib/dates.ts';
import { jobMarkKey } from '../../../functions/lib/destination/layout.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthsBack } from '../../support/months.ts';

const NOW = new Date();
const FROM = monthsBack(3, NOW);
const YESTERDAY = addDays(utcDay(NOW), -1);
const RESTATED_MONTH = FROM.slice(0, 7);

let sim: Simulator;
let work: string;
let client: CloudforetClient;

beforeAll(async () => {
  sim = await startSimulator({ seed: 452, dataSources: 2, from: FROM, to: YESTERDAY, rowsPerDay: 3 });
  work = await mkdtemp(join(tmpdir(), 'job-marks-'));
  client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await rm(work, { recursive: true, force: true });
});

const daily = () => parseCostEvent({}, new Date(), { maxDays: 400, windowMonths: 2 });

describe('job marks after a stopped run', () => {
  it('keeps the marks of data sources with units not started, and the next runs publish the restated rows', async () => {
    const sink = dirSink(join(work, 'out'));
    const [a, b] = sim.dataSourceIds() as [string, string];
    expect((await runCostExport({ client, sink }, { from: FROM, to: YESTERDAY })).failed).toBe(0);
    expect((await runCostExport({ client, sink }, daily())).failed).toBe(0);
    const markBefore = await readFile(join(work, 'out', jobMarkKey(b)), 'utf8');
    // A manual re-sync of both data sources from three months back, changing every day of that month.
    const days = daysBetween(`${RESTATED_MONTH}-01`, `${RESTATED_MONTH}-20`);
    const changes = Object.fromEntries(days.map((d) => [d, { costFactor: 1.3 }]));
    sim.sync(a, { start: RESTATED_MONTH, changes });
    sim.sync(b, { start: RESTATED_MONTH, changes });

    let starts = 0;
    const stopped = await runCostExport(
      { client, sink, concurrency: 1, shouldStartUnit: () => ++starts <= 1 },
      daily(),
    );

    expect(stopped.notStarted).toBeGreaterThan(0);
    expect(stopped.left).toMatch(/units not started/);
    // The data source whose units did not all run keeps its old mark: its jobs are not handled.
    expect(await readFile(join(work, 'out', jobMarkKey(b)), 'utf8')).toBe(markBefore);
    const again = await runCostExport({ client, sink }, daily());
    const third = await runCostExport({ client, sink }, daily());
    expect(again.failed + third.failed).toBe(0);
    // Every restated day of both data sources now holds what Cloudforet holds.
    for (const ds of [a, b])
      for (const day of days) {
        const manifest = JSON.parse(
          await readFile(join(work, 'out', `_manifests/costs/billed_date=${day}/${ds}.json`), 'utf8'),
        ) as { rows: number; costSum: number };
        const truth = sim.costTruth(ds, day);
        expect({ ds, day, rows: manifest.rows, cost: manifest.costSum }).toEqual({
          ds,
          day,
          rows: truth.rows,
          cost: expect.closeTo(truth.costSum, 6),
        });
      }
  }, 240_000);
});
