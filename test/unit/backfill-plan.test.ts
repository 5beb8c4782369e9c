// The backfill planner end to end in one process (unit tier): the scheduled job's Plan state
// (costs/job/scheduled.ts planState: prepare and plan, then the Distributed Map's items written)
// against the simulator in process and a temporary directory where a cost run already published
// the first two days of the window. Planned: each day of each data source not published, and a
// published day Cloudforet has restated; skipped: the published days that still match.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planState } from '../../functions/lib/costs/job/scheduled.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { backfillUnitsKey } from '../../functions/lib/destination/layout.ts';
import { silentLogger } from '../../functions/lib/log.ts';
import { type InProcessCloudforet, inProcessCloudforet, tempSink } from '../support/in-process-cloudforet.ts';

const TO = addDays(utcDay(new Date()), -2);
const DAYS = [addDays(TO, -3), addDays(TO, -2), addDays(TO, -1), TO];
const [FROM, PUBLISHED_TO] = DAYS as [string, string];

let cf: InProcessCloudforet;
let out: Awaited<ReturnType<typeof tempSink>>;
let ids: [string, string];

beforeAll(async () => {
  cf = inProcessCloudforet({
    seed: 53,
    dataSources: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 8,
    cloudServices: 10,
  });
  out = await tempSink('backfill-plan');
  ids = cf.sim.dataSourceIds() as [string, string];
  const run = await runCostExport(
    { client: cf.client, sink: out.sink, focus: false, unifiedCosts: false },
    { from: FROM, to: PUBLISHED_TO },
  );
  expect(run).toMatchObject({ written: 4, failed: 0 });
});
afterAll(async () => {
  await cf.close();
  await out.remove();
});

/** The Plan state of a backfill of the whole window, as the state machine's Plan function runs it. */
async function plan(runId: string, request: { force?: boolean; dataSourceIds?: string[] } = {}) {
  const env = { client: cf.client, sink: out.sink, runId, log: silentLogger };
  return planState(env, { from: FROM, to: TO, ...request }, { name: 'bucket', key: (k) => `prefix/${k}` });
}

const unitsOf = (units: ReadonlyArray<{ dataSourceId: string; date: string; reason: string }>) =>
  units.map((u) => `${u.dataSourceId} ${u.date} ${u.reason}`).sort();

describe('planning a backfill over a destination holding some of its days', () => {
  it('plans the days not published, skips the published ones that match, and writes them for the Map', async () => {
    const ref = await plan('plan-1');

    const expected = ids.flatMap((ds) => DAYS.slice(2).map((date) => `${ds} ${date} no-manifest`)).sort();
    expect(unitsOf(ref.job.plan!.units)).toEqual(expected);
    expect(ref.job.plan!.unchanged).toEqual({ [ids[0]]: 2, [ids[1]]: 2 });
    expect(ref).toMatchObject({
      runId: 'plan-1',
      bucket: 'bucket',
      units: 4,
      unitsObjectKey: `prefix/${backfillUnitsKey('plan-1')}`,
    });
    // The Map's items: the same units, each stamped with the run.
    const items = JSON.parse(await readFile(join(out.dir, backfillUnitsKey('plan-1')), 'utf8'));
    expect(unitsOf(items)).toEqual(expected);
    expect(new Set(items.map((i: { runId: string }) => i.runId))).toEqual(new Set(['plan-1']));
    // Each planned day carries Cloudforet's totals as the plan read them.
    for (const u of ref.job.plan!.units) {
      expect(u.analyzed?.rows).toBe(cf.sim.costTruth(u.dataSourceId, u.date).rows);
    }
  });

  it('plans again a published day Cloudforet restated, and only that one of the published', async () => {
    const [ds] = ids;
    cf.sim.resync(ds, PUBLISHED_TO, { costFactor: 2 });

    const ref = await plan('plan-2');

    const published = ref.job.plan!.units.filter((u) => u.date <= PUBLISHED_TO);
    expect(unitsOf(published)).toEqual([`${ds} ${PUBLISHED_TO} cost-changed`]);
    expect(ref.units).toBe(5);
    expect(ref.job.plan!.unchanged).toEqual({ [ids[0]]: 1, [ids[1]]: 2 });
  });

  it('plans only the data sources asked for, and every day when forced', async () => {
    const one = await plan('plan-3', { dataSourceIds: [ids[1]] });
    const forced = await plan('plan-4', { force: true });

    expect(unitsOf(one.job.plan!.units)).toEqual(
      DAYS.slice(2).map((date) => `${ids[1]} ${date} no-manifest`),
    );
    expect(unitsOf(forced.job.plan!.units)).toEqual(
      ids.flatMap((ds) => DAYS.map((date) => `${ds} ${date} forced`)).sort(),
    );
  });
});
