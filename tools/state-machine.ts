// The scheduled cost job run locally as its definition runs it: the states of COST_JOB_STATES in
// order (the same list the stack builds its definition from), each invoking its function's
// handler; the Map's items read from S3 as its ItemReader reads them, each retried on
// UnitRetryableError as the definition retries it; a failed middle state caught into the Summary
// as `finishError`; nothing planned skips the Map (the AnyUnits choice).
import type { Context } from 'aws-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import { handler as finish } from '../functions/backfill-finish.ts';
import { handler as plan } from '../functions/backfill-plan.ts';
import { handler as summary } from '../functions/backfill-summary.ts';
import { handler as unit } from '../functions/backfill-unit.ts';
import { COST_JOB_STATES } from '../functions/lib/costs/job/states.ts';
import { getObjectBytes } from '../harness/s3-server.ts';

type Handler = (event: unknown, context?: Context) => Promise<unknown>;

const HANDLERS: Record<string, Handler> = {
  'backfill-plan': plan,
  'backfill-unit': unit,
  'backfill-finish': finish,
  'backfill-summary': summary,
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
