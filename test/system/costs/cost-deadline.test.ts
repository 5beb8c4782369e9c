// The inline cost function near its timeout: it stops starting units while the ones in flight can
// finish and returns a partial summary saying what is left, instead of "Task timed out".
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/cost-export.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { runDeadline } from '../../../functions/lib/lambda/deadline.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { listKeys } from '../../../harness/s3-server.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_1 = monthBack(1);

const FROM = `${MONTH_1}-01`;
const TO = `${MONTH_1}-04`;

let local: LocalAws;
let work: string;

beforeAll(async () => {
  local = await startLocalAws({ seed: 24, dataSources: 2, from: FROM, to: TO, rowsPerDay: 10 });
  work = await mkdtemp(join(tmpdir(), 'deadline-'));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await local.stop();
  await rm(work, { recursive: true, force: true });
});

const contextWith = (remainingMs: () => number) =>
  ({ awsRequestId: 'req-deadline', getRemainingTimeInMillis: remainingMs }) as unknown as Context;

describe('a cost run that runs out of time', () => {
  it('starts no more units once told to stop, and says how many are left and what to do', async () => {
    const client = new CloudforetClient({
      endpoint: local.simulator.url,
      token: local.token,
      dispatcher: new Agent(),
    });
    let starts = 0;

    const summary = await runCostExport(
      { client, sink: dirSink(join(work, 'run')), concurrency: 1, shouldStartUnit: () => ++starts <= 3 },
      { from: FROM, to: TO },
    );

    expect(summary.units).toBe(8);
    expect(summary.written + summary.removed + summary.empty + summary.failed).toBe(3);
    expect(summary.notStarted).toBe(5);
    expect(summary.left).toMatch(
      new RegExp(
        `^5 units not started for lack of time \\(${MONTH_1}-0\\d\\.\\.${MONTH_1}-04\\): run the same event again`,
      ),
    );
  });

  it('returns a summary with every unit left, and writes no data, when the handler starts too late', async () => {
    // A prefix of its own: another test's export must not be taken for this one's.
    const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', EXPORT_PREFIX: 'too-late' });

    const summary = await handler(
      { from: FROM, to: TO },
      contextWith(() => 100_000),
    ).finally(restore);

    expect(summary).toMatchObject({ units: 8, notStarted: 8, failed: 0, written: 0 });
    expect(summary.left).toContain('8 units not started');
    // Only the destination's claim, taken before planning (issue 24): no unit, manifest or ledger line.
    expect(await listKeys(local.s3.client, BUCKET, 'too-late/')).toEqual(['too-late/_destination.json']);
  });

  it('exports everything when the time left is ample', async () => {
    const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', EXPORT_PREFIX: 'ample' });

    const summary = await handler(
      { from: FROM, to: TO },
      contextWith(() => 800_000),
    ).finally(restore);

    expect(summary).toMatchObject({ units: 8, notStarted: 0, failed: 0 });
    expect(summary.left).toBeUndefined();
  });
});

describe('runDeadline', () => {
  it('aborts its signal the hard-stop margin before the end, and stops starting units inside the reserve', () => {
    // Fake timers: the clock moves only when the test moves it, however loaded the machine is.
    vi.useFakeTimers();
    try {
      const end = Date.now() + 600;
      const deadline = runDeadline(
        { getRemainingTimeInMillis: () => end - Date.now() },
        { reserveMs: 450, hardStopMs: 300 },
      );

      const early = deadline.shouldStartUnit();
      vi.advanceTimersByTime(200);
      const late = deadline.shouldStartUnit();
      const abortedBefore = deadline.signal.aborted;
      vi.advanceTimersByTime(100);
      deadline.dispose();

      expect([early, late]).toEqual([true, false]);
      expect(abortedBefore).toBe(false);
      expect(deadline.signal.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never stops a run without a Lambda context', () => {
    const deadline = runDeadline(undefined, { reserveMs: 1, hardStopMs: 1 });

    expect(deadline.shouldStartUnit()).toBe(true);
    expect(deadline.signal.aborted).toBe(false);
  });
});
