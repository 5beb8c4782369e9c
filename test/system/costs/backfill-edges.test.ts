// The Step Functions backfill at the edges the inline run already handles: a range past
// Cloudforet's retention, another scope's destination, and the job-history marks that keep the
// daily (default-window) backfill from re-examining months it has already handled.
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as plan } from '../../../functions/backfill-plan.ts';
import { retentionStart } from '../../../functions/lib/costs/planning/job-history.ts';
import type { CostRunSummary } from '../../../functions/lib/costs/run.ts';
import { addDays, daysBetween, utcDay } from '../../../functions/lib/dates.ts';
import { jobMarkKey } from '../../../functions/lib/destination/layout.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { getObjectBytes } from '../../../harness/s3-server.ts';
import type { SimulatorOptions } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { runStateMachine } from '../../../tools/state-machine.ts';
import { monthsBack } from '../../support/months.ts';

const ctx = (id: string) => ({ awsRequestId: id }) as Context;

describe('backfill edges', () => {
  let local: LocalAws | undefined;
  let restoreEnv = () => {};

  async function start(options: SimulatorOptions): Promise<LocalAws> {
    local = await startLocalAws({ seed: 7, dataSources: 2, rowsPerDay: 5, ...options });
    restoreEnv = local.applyEnv({ LOG_LEVEL: 'error' });
    return local;
  }
  afterEach(async () => {
    restoreEnv();
    await local?.stop();
    local = undefined;
  });

  async function execute(aws: LocalAws, runId: string, event: object) {
    const run = await runStateMachine(aws.s3.client, event, { runId });
    const planned = run.states[0]!.output as { units: number; bucket: string };
    const outcomes = run.states.filter((s) => s.state === 'ExportUnits');
    return { planned, outcomes, summary: run.result as CostRunSummary, failed: run.failed };
  }

  it('plans only the days Cloudforet keeps of a range from 13 months back, reports the rest, and succeeds', async () => {
    const from = monthsBack(13);
    const to = addDays(monthsBack(10), -1);
    const aws = await start({ from, to, retentionMonths: 12 });

    const { planned, outcomes, summary } = await execute(aws, 'old', { from, to });

    const first = retentionStart(new Date());
    const inside = daysBetween(first, to).length;
    const beyond = daysBetween(from, addDays(first, -1)).length;
    expect(outcomes.every((o) => o.error === undefined)).toBe(true);
    expect(planned).toMatchObject({ units: 2 * inside });
    expect(summary).toMatchObject({
      units: 2 * inside,
      written: 2 * inside,
      failed: 0,
      beyondRetention: 2 * beyond,
      retainedFrom: first,
    });
    const errors = aws.simulator.requests.filter((r) => r.status >= 400);
    expect(errors).toEqual([]);
  });

  it("refuses a workspace app's backfill into a domain app's destination before any cost request", async () => {
    const day = addDays(utcDay(new Date()), -3);
    const aws = await start({ from: day, to: day });
    await execute(aws, 'domain', { from: day, to: day });
    const workspaceToken = aws.simulator.issueToken({
      role: 'WORKSPACE_OWNER',
      workspaceId: aws.simulator.workspaceIds()[0],
    });
    aws.secrets.set('cloudforet/workspace-app', consoleAppJson(workspaceToken));
    restoreEnv();
    restoreEnv = aws.applyEnv({ LOG_LEVEL: 'error', CLOUDFORET_SECRET_ID: 'cloudforet/workspace-app' });
    aws.simulator.resetRequestLog();

    const refused = await plan({ from: day, to: day }, ctx('workspace')).catch((e: Error) => e);

    expect(refused).toMatchObject({ code: 'DESTINATION_SCOPE_MISMATCH' });
    expect(String((refused as Error).message)).toContain('its own prefix');
    expect(aws.simulator.requests.filter((r) => r.path.startsWith('/cost-analysis/'))).toEqual([]);
  });

  it('leaves job marks after a default-window backfill, so the next one does not re-examine the same months', async () => {
    const aws = await start({ from: monthsBack(6), to: addDays(utcDay(new Date()), -1) });
    const [ds] = aws.simulator.dataSourceIds() as [string];
    await execute(aws, 'first', { from: monthsBack(6), to: addDays(utcDay(new Date()), -1) });
    const month = monthsBack(5).slice(0, 7);
    aws.simulator.sync(ds, { start: month, changes: { [`${month}-12`]: { costFactor: 1.5 } } });

    const second = await execute(aws, 'daily-1', {});
    aws.simulator.resetRequestLog();
    const third = await execute(aws, 'daily-2', {});

    // Without marks yet, the first daily backfill follows the whole job history, ds's sync among it.
    expect(second.summary.reexamined.find((r) => r.dataSourceId === ds)?.months).toContain(month);
    expect(second.summary).toMatchObject({ failed: 0, jobMarksWritten: 2 });
    expect(second.outcomes.length).toBeGreaterThan(0);
    const mark = JSON.parse(
      Buffer.from(await getObjectBytes(aws.s3.client, BUCKET, `${PREFIX}/${jobMarkKey(ds)}`)).toString(),
    );
    expect(mark).toMatchObject({ dataSourceId: ds });
    expect(third.planned).toMatchObject({ units: 0 });
    expect(third.summary).toMatchObject({ reexamined: [] });
    const analyzed = aws.simulator.requests
      .filter((r) => r.path === '/cost-analysis/cost/analyze')
      .map((r) => String((r.body as { query?: { start?: string } }).query?.start).slice(0, 7));
    expect(analyzed.filter((m) => m < monthsBack(1).slice(0, 7))).toEqual([]);
  }, 180_000);
});
