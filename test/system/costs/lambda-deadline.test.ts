// Every Lambda entry derives its deadline from the context as the cost function does: the
// inventory and backfill-unit functions stop at it too, their units UNIT_INTERRUPTED and nothing
// half-written. The context's clock is arranged so that the hard stop lands while Cloudforet is
// holding the listings (a slow fault), whatever the machine's load.
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as runUnit } from '../../../functions/backfill-unit.ts';
import { handler as inventory } from '../../../functions/inventory-export.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { listKeys } from '../../../harness/s3-server.ts';
import { monthsBack } from '../../support/months.ts';

// Dates inside Cloudforet's retention whatever the clock says.
const FROM = monthsBack(1);
const DAY = addDays(FROM, 1);

let local: LocalAws;

beforeAll(async () => {
  local = await startLocalAws({
    seed: 77,
    dataSources: 1,
    from: FROM,
    to: addDays(FROM, 2),
    rowsPerDay: 10,
  });
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await local.stop();
});
afterEach(() => {
  local.simulator.clearFaults();
});

/**
 * A context whose first reading (when the deadline's timer is set) puts the hard stop `stopInMs`
 * away, and whose later readings leave ample time, so every unit starts and is then stopped.
 */
function contextStoppingIn(stopInMs: number): Context {
  let readings = 0;
  const remaining = () => (readings++ === 0 ? 5_000 + stopInMs : 900_000);
  return { awsRequestId: 'req-deadline', getRemainingTimeInMillis: remaining } as unknown as Context;
}

/** Cloudforet answers nothing on `path` (every path when undefined) until the client gives up. */
function holdRequests(path?: string) {
  local.simulator.injectFault({ path, kind: 'slow', delayMs: 600_000, times: Number.POSITIVE_INFINITY });
}

const parquetKeys = async (prefix: string) =>
  (await listKeys(local.s3.client, BUCKET, `${prefix}/`)).filter((k) => k.endsWith('.parquet'));

describe('the inventory function at its deadline', () => {
  // First: the held requests of the next test end (and are logged) after it returns.
  it('starts no table when it is invoked with less time left than a unit needs', async () => {
    const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', EXPORT_PREFIX: 'inventory-late' });
    local.simulator.resetRequestLog();
    const tooLate = {
      awsRequestId: 'req-late',
      getRemainingTimeInMillis: () => 100_000,
    } as unknown as Context;

    const error = await inventory({}, tooLate)
      .catch((e: Error) => e)
      .finally(restore);

    expect((error as Error).message).toContain('UNIT_INTERRUPTED');
    expect((error as Error).message).toContain("not started: the function's time ran short");
    expect(local.simulator.requests).toEqual([]);
    expect(await parquetKeys('inventory-late')).toEqual([]);
  });

  it('fails every table still listing as UNIT_INTERRUPTED and writes no snapshot', async () => {
    const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', EXPORT_PREFIX: 'inventory-stopped' });
    holdRequests();

    const error = await inventory({}, contextStoppingIn(300))
      .catch((e: Error) => e)
      .finally(restore);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^\d+ of (\d+) inventory tables failed: /);
    const failures = JSON.parse((error as Error).message.replace(/^[^:]+: /, '')) as { code: string }[];
    expect(failures.length).toBeGreaterThan(5);
    expect(new Set(failures.map((f) => f.code))).toEqual(new Set(['UNIT_INTERRUPTED']));
    expect(await parquetKeys('inventory-stopped')).toEqual([]);
  });
});

describe('the backfill unit function at its deadline', () => {
  it('fails its unit as UNIT_INTERRUPTED (retryable: the map retries it) and writes no object', async () => {
    const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', EXPORT_PREFIX: 'unit-stopped' });
    const dataSourceId = local.simulator.dataSourceIds()[0]!;
    holdRequests('/cost-analysis/cost/list');

    const error = await runUnit({ runId: 'run-deadline', dataSourceId, date: DAY }, contextStoppingIn(300))
      .catch((e: Error & { code?: string }) => e)
      .finally(restore);

    expect(error).toMatchObject({ name: 'UnitRetryableError', code: 'UNIT_INTERRUPTED' });
    expect((error as Error).message).toContain(`${dataSourceId} ${DAY}: stopped before it finished`);
    expect(await parquetKeys('unit-stopped')).toEqual([]);
  });
});
