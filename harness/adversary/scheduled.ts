// The `scheduled` command's adapter: the daily cost job as the state machine runs it, state for
// state from COST_JOB_STATES (functions/lib/costs/job/states.ts): Plan, each unit of the plan's
// units JSON (read as the Distributed Map's ItemReader reads it; a UnitRetryableError retried as
// the definition retries it, any failure tolerated), Finish, then Summary, which fails the
// execution on any failure or work left. It calls exactly what the state functions
// (functions/backfill-*.ts) call, on the world's directory, since the handlers themselves open
// S3 from the Lambda's environment.
import { randomUUID } from 'node:crypto';
import { parseCostEvent } from '../../functions/lib/costs/event.ts';
import { parseUnitItem, runUnitItem, type UnitItem } from '../../functions/lib/costs/job/fan-out.ts';
import { type LaneStep, planLanes, runLane } from '../../functions/lib/costs/job/lanes.ts';
import { finishState, planState, summaryState } from '../../functions/lib/costs/job/scheduled.ts';
import { scheduledFailure } from '../../functions/lib/costs/job/summary.ts';
import {
  createLogger,
  errorCode,
  errorMessage,
  fileSecretSource,
  openSession,
  openSink,
} from '../../functions/lib/faces/edge.ts';
import { CLI_SETTINGS } from '../../functions/lib/faces/face.ts';
import type { RunOutcome } from './runs.ts';
import type { World } from './world.ts';

/** Retries of a unit after its first attempt (the definition's MaxAttempts). */
const UNIT_RETRIES = 3;

/**
 * How the units run: one Map item each (the cost state machine), or in lanes (the daily run across
 * tenants, functions/lib/costs/job/lanes.ts): `lanes` of them, each invocation cut short, as a
 * Lambda running out of time, after `cut` units (0: never).
 */
export type UnitPath = { readonly lanes: number; readonly cut: number } | undefined;

export async function runScheduled(
  world: World,
  event: Record<string, unknown>,
  path: UnitPath = undefined,
): Promise<RunOutcome> {
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', write: (l) => lines.push(l) });
  const now = world.now;
  try {
    const session = await openSession({
      endpoint: world.gateway.url,
      secrets: fileSecretSource(world.secretFile),
      log,
    });
    const sink = openSink(world.destination);
    const request = parseCostEvent(event, now, { maxDays: 400, windowMonths: CLI_SETTINGS.windowMonths });
    const env = {
      client: session.client,
      sink,
      runId: randomUUID(),
      log,
      credential: session.credential,
      now: () => now,
    };
    const ref = await planState(env, request, { name: '', key: (k) => k });
    const items = (JSON.parse((await sink.read(ref.unitsObjectKey)) ?? '[]') as unknown[]).map(parseUnitItem);
    if (path) await runLanes(env, items, path, lines);
    else for (const item of items) await runMapItem(env, item, lines);
    let finishError: { Error: string; Cause: string } | undefined;
    await finishState(env, ref.runId).catch((error: unknown) => {
      finishError = { Error: errorCode(error), Cause: errorMessage(error) };
    });
    const summary = await summaryState(sink, ref.runId);
    const failure = scheduledFailure({ ...summary, ...(finishError && { finishError }) });
    lines.push(JSON.stringify({ ...summary, perDataSource: undefined }));
    if (failure) lines.push(failure);
    return { code: failure === undefined ? 0 : 1, summary, from: summary.from, to: summary.to };
  } catch (error) {
    lines.push(`${errorCode(error)}: ${errorMessage(error)}`);
    return { code: 2 };
  } finally {
    world.texts.push(lines.join('\n'));
  }
}

/** One item of the Map, with the definition's retries. */
async function runMapItem(
  env: Parameters<typeof runUnitItem>[0],
  item: UnitItem,
  lines: string[],
): Promise<void> {
  for (let attempt = 0; attempt <= UNIT_RETRIES; attempt++) {
    try {
      await runUnitItem(env, item);
      return;
    } catch (error) {
      lines.push(`unit ${item.dataSourceId} ${item.date}: ${errorCode(error)} ${errorMessage(error)}`);
      if ((error as Error).name !== 'UnitRetryableError') return;
    }
  }
}

/** The units in lanes, each lane invoked again from where it returned, as the daily run across tenants runs them. */
async function runLanes(
  env: Parameters<typeof runUnitItem>[0],
  items: readonly UnitItem[],
  path: NonNullable<UnitPath>,
  lines: string[],
): Promise<void> {
  const lanes = planLanes([{ tenant: 'world', endpoint: 'world', units: items }], {
    overall: path.lanes,
    perEndpoint: path.lanes,
    perTenant: path.lanes,
  });
  await Promise.all(
    lanes.map(async (units) => {
      let step: LaneStep = { runId: '', bucket: '', laneKey: '', units: units.length };
      for (;;) {
        let ran = 0;
        const progress = await runLane(step, {
          units,
          runUnit: (item) =>
            runUnitItem(env, item).catch((error: unknown) => {
              lines.push(
                `unit ${item.dataSourceId} ${item.date}: ${errorCode(error)} ${errorMessage(error)}`,
              );
              throw error;
            }),
          remainingMs: () => (path.cut > 0 && ++ran > path.cut ? 0 : Number.POSITIVE_INFINITY),
        });
        if (progress.done) return;
        step = progress;
      }
    }),
  );
}
