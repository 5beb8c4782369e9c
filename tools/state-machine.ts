// The scheduled cost job run locally as its definition runs it: the states of COST_JOB_STATES in
// order (the same list the stack builds its definition from), each invoking its function's
// handler; the Map's items read from S3 as its ItemReader reads them, each retried on
// UnitRetryableError as the definition retries it; a failed middle state caught into the Summary
// as `finishError`; nothing planned skips the Map (the AnyUnits choice).

import type { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { handler as finish } from '../functions/backfill-finish.ts';
import { handler as plan } from '../functions/backfill-plan.ts';
import { handler as summary } from '../functions/backfill-summary.ts';
import { handler as unit } from '../functions/backfill-unit.ts';
import type { LaneCaps, LaneItem, LaneProgress } from '../functions/lib/costs/job/lanes.ts';
import { COST_JOB_STATES, TENANTS_RUN_STATES } from '../functions/lib/costs/job/states.ts';
import type { LanesOutput, TenantOutcome } from '../functions/lib/costs/job/tenants-run.ts';
import { forEachLimit } from '../functions/lib/pool.ts';
import { handler as tenantsLanes } from '../functions/tenants-lanes.ts';
import { handler as tenantsSummary } from '../functions/tenants-summary.ts';
import { getObjectBytes } from '../harness/s3-server.ts';

type Handler = (event: unknown, context?: Context) => Promise<unknown>;

const HANDLERS: Record<string, Handler> = {
  'backfill-plan': plan,
  'backfill-unit': unit,
  'backfill-finish': finish,
  'backfill-summary': summary,
  'tenants-lanes': tenantsLanes,
  'tenants-summary': tenantsSummary,
};

/** Retries of a unit on UnitRetryableError (the definition's MaxAttempts, retries after the first). */
const UNIT_RETRIES = 3;

export interface Execution {
  /** What each state received and returned (or threw), in order. */
  readonly states: ReadonlyArray<{ state: string; input: unknown; output?: unknown; error?: Error }>;
  readonly items: readonly unknown[];
  /** The Summary's output, or its error: the execution succeeded or failed with it. */
  readonly result: unknown;
  readonly failed: boolean;
}

export async function runStateMachine(
  s3: S3Client,
  input: object,
  options: { runId: string; context?: (id: string) => Context },
): Promise<Execution> {
  const ctx = options.context ?? ((id: string) => ({ awsRequestId: id }) as Context);
  const states: { state: string; input: unknown; output?: unknown; error?: Error }[] = [];
  let items: unknown[] = [];
  let payload: Record<string, unknown> = input as Record<string, unknown>;
  const last = COST_JOB_STATES.at(-1)!;
  for (const [i, state] of COST_JOB_STATES.entries()) {
    const handler = HANDLERS[state.entry];
    if (!handler) throw new Error(`no handler for ${state.entry}`);
    if (state.map) {
      if (payload.units === 0) continue;
      const bytes = await getObjectBytes(s3, String(payload.bucket), String(payload.unitsObjectKey));
      items = JSON.parse(Buffer.from(bytes).toString()) as unknown[];
      await Promise.all(
        items.map(async (item, n) => {
          for (let attempt = 0; ; attempt++) {
            try {
              const output = await handler(item, ctx(`${options.runId}-unit-${n}-${attempt}`));
              states.push({ state: state.state, input: item, output });
              return;
            } catch (error) {
              states.push({ state: state.state, input: item, error: error as Error });
              if ((error as Error).name !== 'UnitRetryableError' || attempt >= UNIT_RETRIES) return;
            }
          }
        }),
      );
      continue;
    }
    const id = i === 0 ? options.runId : `${options.runId}-${state.state}`;
    try {
      const output = await handler(payload, ctx(id));
      states.push({ state: state.state, input: payload, output });
      // The first and the last states' output is the state; the others' is discarded.
      if (i === 0 || state === last) payload = output as Record<string, unknown>;
    } catch (error) {
      states.push({ state: state.state, input: payload, error: error as Error });
      if (state === last || i === 0) return { states, items, result: error, failed: true };
      payload = {
        ...payload,
        finishError: { Error: (error as Error).name, Cause: (error as Error).message },
      };
      const summaryOut = await HANDLERS[last.entry]!(payload, ctx(`${options.runId}-${last.state}`)).then(
        (o) => ({ o, failed: false }),
        (e: Error) => ({ o: e, failed: true }),
      );
      return { states, items, result: summaryOut.o, failed: true };
    }
  }
  return { states, items, result: payload, failed: false };
}

export interface TenantsExecution {
  /** Each tenant's Plan output, or the error it was caught with. */
  readonly planned: readonly Record<string, unknown>[];
  readonly lanes: LanesOutput | undefined;
  /** Each lane's units as the Lanes state wrote them (read before the last state removes them). */
  readonly laneUnits: readonly (readonly Record<string, unknown>[])[];
  /** Every invocation of a lane, with what it returned. */
  readonly laneSteps: readonly LaneProgress[];
  readonly outcomes: readonly TenantOutcome[];
  readonly result: unknown;
  readonly failed: boolean;
}

/**
 * The daily run across tenants (infra/tenants-run.ts) run locally as its definition runs it: the
 * states before the Map for each tenant (a failure caught as `planError`), Lanes, the lanes at
 * most `caps.overall` at once (each invoked again from where it returned, its waits not waited),
 * the states after the Map for each tenant as the single job's definition chains them (a failed
 * middle state caught into the Summary, a failed Summary caught as `summaryError`), and the
 * run's last state.
 */
export async function runTenantsRun(
  s3: S3Client,
  input: { readonly tenants: readonly string[] },
  options: { runId: string; caps: LaneCaps; context?: (id: string) => Context },
): Promise<TenantsExecution> {
  const ctx = options.context ?? ((id: string) => ({ awsRequestId: id }) as Context);
  const caught = (error: unknown) => ({
    Error: (error as Error).name,
    Cause: JSON.stringify({ errorMessage: (error as Error).message }),
  });
  const mapAt = COST_JOB_STATES.findIndex((s) => s.map);
  const before = COST_JOB_STATES.slice(0, mapAt);
  const after = COST_JOB_STATES.slice(mapAt + 1);
  const planned: Record<string, unknown>[] = [];
  await forEachLimit(input.tenants, TENANTS_RUN_STATES.planConcurrency, async (tenant, n) => {
    let payload: Record<string, unknown> = { tenant };
    try {
      for (const state of before)
        payload = (await HANDLERS[state.entry]!(payload, ctx(`${options.runId}-${tenant}-${n}`))) as Record<
          string,
          unknown
        >;
      planned[n] = payload;
    } catch (error) {
      planned[n] = { tenant, planError: caught(error) };
    }
  });
  const lanes = (await tenantsLanes(
    { runId: options.runId, planned, caps: options.caps },
    ctx(`${options.runId}-lanes`),
  )) as LanesOutput;
  const laneUnits: Record<string, unknown>[][] = [];
  const laneSteps: LaneProgress[] = [];
  if (lanes.lanes > 0) {
    const read = async (key: string) =>
      JSON.parse(Buffer.from(await getObjectBytes(s3, lanes.bucket, key)).toString()) as unknown;
    const items = (await read(lanes.lanesObjectKey)) as LaneItem[];
    for (const item of items) laneUnits.push((await read(item.laneKey)) as Record<string, unknown>[]);
    await forEachLimit(items, options.caps.overall, async (item, n) => {
      let step: object = item;
      for (let call = 0; ; call++) {
        const progress = (await unit(step, ctx(`${options.runId}-lane-${n}-${call}`))) as LaneProgress;
        laneSteps.push(progress);
        if (progress.done) return;
        step = progress;
      }
    });
  }
  const outcomes: TenantOutcome[] = [];
  const last = after.at(-1)!;
  await forEachLimit(planned, TENANTS_RUN_STATES.planConcurrency, async (p, n) => {
    if (p.planError) {
      outcomes[n] = p as unknown as TenantOutcome;
      return;
    }
    let payload: Record<string, unknown> = p;
    for (const state of after.slice(0, -1)) {
      try {
        await HANDLERS[state.entry]!(payload, ctx(`${options.runId}-${p.tenant}-${state.state}`));
      } catch (error) {
        payload = { ...payload, finishError: caught(error) };
        break;
      }
    }
    try {
      const s = (await HANDLERS[last.entry]!(
        payload,
        ctx(`${options.runId}-${p.tenant}-${last.state}`),
      )) as Record<string, number>;
      outcomes[n] = {
        ...(payload as unknown as TenantOutcome),
        summary: { units: s.units!, written: s.written!, unchanged: s.unchanged!, failed: s.failed! },
      };
    } catch (error) {
      outcomes[n] = { ...(payload as unknown as TenantOutcome), summaryError: caught(error) };
    }
  });
  try {
    const result = await tenantsSummary({ runId: options.runId, outcomes }, ctx(`${options.runId}-summary`));
    return { planned, lanes, laneUnits, laneSteps, outcomes, result, failed: false };
  } catch (error) {
    return { planned, lanes, laneUnits, laneSteps, outcomes, result: error, failed: true };
  }
}
