// The Step Functions cost job's functions, driven as the state machine drives them
// (test/support/state-machine.ts): Plan -> one invocation per unit read from the plan's S3 object
// -> Finish -> Summary. Every test has its own simulator, bucket and secret, and runs the first
// backfill it builds on itself.
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler as runUnit } from '../../../functions/backfill-unit.ts';
import type { UnitItem } from '../../../functions/lib/costs/job/fan-out.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { runStateMachine } from '../../../tools/state-machine.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_4 = monthBack(4);

const FROM = `${MONTH_4}-01`;
const TO = `${MONTH_4}-20`;
const ctx = (id: string) => ({ awsRequestId: id }) as Context;

describe('backfill on Step Functions', () => {
  let local: LocalAws;
  let restoreEnv: () => void;

  beforeEach(async () => {
    local = await startLocalAws({ seed: 41, dataSources: 2, from: FROM, to: TO, rowsPerDay: 25 });
    restoreEnv = local.applyEnv({ LOG_LEVEL: 'error' });
  });
  afterEach(async () => {
    restoreEnv();
    await local.stop();
  });

  async function execute(runId: string, event: object) {
    const run = await runStateMachine(local.s3.client, event, { runId });
    const planned = run.states[0]!.output as {
      bucket: string;
      units: number;
      unchanged: number;
      unitsObjectKey: string;
    };
    const outcomes = run.states.filter((s) => s.state === 'ExportUnits');
    return { planned, items: run.items as UnitItem[], outcomes, summary: run.result, failed: run.failed };
  }

  it('plans every unit of a first backfill, exports each, and summarises them as exported', async () => {
    const { planned, items, summary, failed } = await execute('run-1', { from: FROM, to: TO });

    expect(planned).toMatchObject({ bucket: BUCKET, units: 40, unchanged: 0 });
    expect(items[0]).toMatchObject({ runId: 'run-1', reason: 'no-manifest' });
    // Each item carries the day's analyze totals to its unit, for the ledger (reconcile_cost_days).
    for (const item of items) {
      const truth = local.simulator.costTruth(item.dataSourceId, item.date);
      expect(item.analyzed).toEqual({ rows: truth.rows, costSum: expect.closeTo(truth.costSum, 6) });
    }
    const manifest = JSON.parse(
      Buffer.from(
        await getObjectBytes(
          local.s3.client,
          BUCKET,
          `${PREFIX}/_manifests/costs/billed_date=${items[0]!.date}/${items[0]!.dataSourceId}.json`,
        ),
      ).toString(),
    );
    expect(manifest).toMatchObject({ analyzeRows: items[0]!.analyzed!.rows });
    expect(failed).toBe(false);
    expect(summary).toMatchObject({ units: 40, written: 40, failed: 0, notStarted: 0 });
    // The Finish state derived the FOCUS rows of every exported day.
    expect(summary).toMatchObject({ focus: { written: 40, removed: 0, failures: [] } });
    const focusKey = `${PREFIX}/focus/x_billing_period=${MONTH_4}/x_charge_day=05/${items[0]!.dataSourceId}.parquet`;
    await expect(getObjectBytes(local.s3.client, BUCKET, focusKey)).resolves.toBeInstanceOf(Uint8Array);
    const unified = (summary as { unifiedCosts: { months: { rows: number }[] } }).unifiedCosts;
    expect(unified).toMatchObject({ scope: 'domain', months: [{ month: MONTH_4 }], failures: [] });
    expect(unified.months[0]!.rows).toBe(
      local.simulator.unifiedCostRecords().filter((r) => r.billed_month === MONTH_4).length,
    );
    const unifiedKey = `${PREFIX}/unified_costs/billed_month=${MONTH_4}/domain.parquet`;
    await expect(getObjectBytes(local.s3.client, BUCKET, unifiedKey)).resolves.toBeInstanceOf(Uint8Array);
    // The Summary removed the job's folder (state, units, unit reports) once it had reported.
    expect(await listKeys(local.s3.client, BUCKET, `${PREFIX}/_runs/costs/run-1/`)).toEqual([]);
  });

  it('plans nothing on a rerun', async () => {
    await execute('run-1', { from: FROM, to: TO });

    const { planned, summary } = await execute('run-2', { from: FROM, to: TO });

    expect(planned).toMatchObject({ units: 0, unchanged: 40 });
    expect(summary).toMatchObject({
      units: 0,
      failed: 0,
      unchanged: 40,
      focus: { written: 0, failures: [] },
    });
  });

  it('fails a unit for good on 401, and the summary fails naming it', async () => {
    await execute('run-1', { from: FROM, to: TO });
    const ds = local.simulator.dataSourceIds()[0]!;
    local.simulator.resync(ds, `${MONTH_4}-05`, { rowDelta: 2 });
    local.simulator.injectFault({ path: '/cost-analysis/cost/list', kind: '401' });

    const { outcomes, summary } = await execute('run-3', { from: FROM, to: TO });

    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.error).toMatchObject({ name: 'UnitFailedError' });
    expect(summary).toMatchObject({ name: 'RunFailedError', code: 'RUN_FAILED' });
    expect(String((summary as Error).message)).toContain(`"dataSourceId":"${ds}","date":"${MONTH_4}-05"`);
  });

  it('marks a transient failure retryable for the state machine', async () => {
    local.simulator.injectFault({ path: '/cost-analysis/cost/list', kind: '503', times: 30 }); // 5 request attempts x 3 unit attempts x 2 cost_id ranges
    const ds = local.simulator.dataSourceIds()[0]!;

    const failure = await runUnit(
      { runId: 'run-4', dataSourceId: ds, date: `${MONTH_4}-05`, reason: 'forced' },
      ctx('u'),
    ).catch((e: Error) => e);

    expect(failure).toMatchObject({ name: 'UnitRetryableError' });
  }, 120_000);
});
