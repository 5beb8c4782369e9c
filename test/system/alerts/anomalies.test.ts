// `cloudforet-export anomalies` over simulator exports: a trailing median baseline that one spike
// does not move, judged per data source, project, workspace and service account.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

// 60 days that end well before today, inside Cloudforet's retention whatever the date.
const FROM = monthsBack(4);
const TO = addDays(FROM, 59);

let sim: Simulator;
let dir: string;
let secretFile: string;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 81,
    dataSources: 2,
    workspaces: 3,
    from: FROM,
    to: TO,
    rowsPerDay: 400,
  });
  ({ dir, secretFile } = await appFolder('anomalies', sim.issueToken()));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function exportAndJudge(out: string) {
  const argv = ['--endpoint', sim.url, '--secret-file', secretFile, '--out', out];
  expect(await main(['costs', ...argv, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(0);
  const io = fakeIo();
  const code = await main(['anomalies', '--out', out, '--json'], {}, io);
  return { code, result: JSON.parse(io.out()) };
}

/** Of days 31-45, the one whose cost is nearest the median of its 28 days before: 4x it is 4x normal. */
function ordinaryDay(ds: string): string {
  const cost = (i: number) => sim.costTruth(ds, addDays(FROM, i)).costSum;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const days = Array.from({ length: 15 }, (_, k) => 31 + k);
  const off = (i: number) =>
    Math.abs(cost(i) - median(Array.from({ length: 28 }, (_, k) => cost(i - 28 + k))));
  return addDays(
    FROM,
    days.reduce((best, i) => (off(i) < off(best) ? i : best)),
  );
}

describe('anomalies', () => {
  it('finds none at data-source scope in 60 clean days, and exits 0', async () => {
    const { code, result } = await exportAndJudge(join(dir, 'clean'));

    expect(code).toBe(0);
    expect(result.days).toBe(60);
    expect(result.anomalies.filter((a: { scope: string }) => a.scope === 'data_source')).toEqual([]);
  });

  it('reports a day at 4x on one data source with its true cost, and not the day after', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    const SPIKE = ordinaryDay(ds);
    sim.resync(ds, SPIKE, { costFactor: 4 });

    const { code, result } = await exportAndJudge(join(dir, 'spike'));

    const atSourceScope = result.anomalies.filter((a: { scope: string }) => a.scope === 'data_source');
    expect(code).toBe(0);
    expect(atSourceScope).toEqual([
      expect.objectContaining({ data_source_id: ds, billed_date: SPIKE, key: ds }),
    ]);
    expect(atSourceScope[0].actual).toBeCloseTo(sim.costTruth(ds, SPIKE).costSum, 6);
    expect(atSourceScope[0].actual / atSourceScope[0].expected).toBeGreaterThan(3);
    expect(result.anomalies.some((a: { billed_date: string }) => a.billed_date === addDays(SPIKE, 1))).toBe(
      false,
    );
  });

  it('says what to do, exit 2, where nothing was exported', async () => {
    const io = fakeIo();

    const code = await main(['anomalies', '--out', join(dir, 'empty')], {}, io);

    expect(code).toBe(2);
    expect(io.err()).toContain('no cost day exported under');
    expect(io.err()).toContain("run 'cloudforet-export costs' into it first");
  });

  it('needs no connection: --out alone', async () => {
    const io = fakeIo();

    const code = await main(['anomalies', '--out', join(dir, 'spike')], {}, io);

    expect(code).toBe(0);
    expect(io.out()).toMatch(/^anomalies in .*: [1-9]\d* \(60 days, \d+ series\)/);
  });
});
