// A sync that failed (or hangs) after the last successful one began before Cloudforet had a day:
// the day holds none of the successful job's rows, only what the failed one left. It is "not
// synced yet": kept, reported with the job, exit 0; never PAGING_DRIFT on every run.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { clearOfMidnight } from '../../support/months.ts';

let TODAY: string;
let YESTERDAY: string;

let sim: Simulator;
let dir: string;
let secretFile: string;

beforeAll(async () => {
  await clearOfMidnight();
  TODAY = utcDay(new Date());
  YESTERDAY = addDays(TODAY, -1);
  sim = await startSimulator({
    seed: 97,
    dataSources: 1,
    from: addDays(TODAY, -5),
    to: YESTERDAY,
    rowsPerDay: 10,
  });
  ({ dir, secretFile } = await appFolder('not-synced', sim.issueToken()));
}, 120_000); // clearOfMidnight may wait up to 95 s
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a day a failed sync began before it was synced', () => {
  it('is reported as not synced yet, kept, and the run exits 0', async () => {
    const out = join(dir, 'out');
    const [ds] = sim.dataSourceIds() as [string];
    const io = fakeIo();
    const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out, '--json'];
    // The last successful sync (its day is today), then a failed one that left rows of today only.
    sim.resync(ds, YESTERDAY, { rowDelta: 1 });
    await sleep(5);
    const failed = sim.sync(ds, {
      start: TODAY.slice(0, 7),
      status: 'FAILURE',
      leftoverRows: { [TODAY]: 3 },
    });

    const code = await main([...argv, '--from', YESTERDAY, '--to', TODAY], { LOG_LEVEL: 'warn' }, io);

    const summary = JSON.parse(io.out());
    expect(code).toBe(0);
    expect(summary.failures).toEqual([]);
    expect(summary.notSynced).toEqual([{ dataSourceId: ds, date: TODAY, jobId: failed }]);
    expect(io.err()).toContain(`1 day(s) not synced yet: sync job ${failed}`);
    expect(io.err()).not.toContain('PAGING_DRIFT');
  });
});
