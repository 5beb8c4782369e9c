// The `scheduled` command's adapter: the daily cost backfill as the state machine runs it
// (infra/backfill-state-machine.ts): Plan, then each unit of the plan's units JSON (read as the
// Distributed Map's ItemReader reads it; a UnitRetryableError retried up to 3 attempts, any
// failure tolerated), then Focus over the plan's window, then Summary, which fails the execution
// when a unit did not export. The Step Functions path is being rewritten: plug the new one in
// here, behind runScheduled(world, event); nothing else in the adversary knows how it runs.
//
// It chains the handlers' use cases (functions/backfill-*.ts, focus-export.ts call exactly these)
// on the world's directory, since the handlers themselves open S3 from the Lambda's environment.
import { randomUUID } from 'node:crypto';
import {
  type BackfillItem,
  type BackfillPlan,
  planBackfill,
  runBackfillUnit,
} from '../../functions/lib/costs/backfill/backfill.ts';
import { summarizeBackfill } from '../../functions/lib/costs/backfill/summary.ts';
import { parseCostEvent } from '../../functions/lib/costs/event.ts';
import { CLI_SETTINGS } from '../../functions/lib/faces/face.ts';
import { focusExport } from '../../functions/lib/faces/focus-export.ts';
import {
  createLogger,
  errorCode,
  errorMessage,
  fileSecretSource,
  openSession,
  openSink,
} from '../../functions/lib/faces/edge.ts';
import type { RunOutcome } from './runs.ts';
import type { World } from './world.ts';

const UNIT_ATTEMPTS = 3;

export async function runScheduled(world: World, event: Record<string, unknown>): Promise<RunOutcome> {
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
    const runId = randomUUID();
    let plan: BackfillPlan = await planBackfill(
      { client: session.client, sink, runId, log, credential: session.credential },
      request,
    );
    const items = JSON.parse((await sink.read(plan.unitsKey)) ?? '[]') as BackfillItem[];
    for (const item of items) {
      for (let attempt = 1; attempt <= UNIT_ATTEMPTS; attempt++) {
        try {
          await runBackfillUnit({ client: session.client, sink, runId: item.runId, log }, item);
          break;
        } catch (error) {
          lines.push(`unit ${item.dataSourceId} ${item.date}: ${errorCode(error)} ${errorMessage(error)}`);
          if ((error as Error).name !== 'UnitRetryableError') break;
        }
      }
    }
    try {
      const focusRequest = focusExport.parse({ from: plan.from, to: plan.to }, CLI_SETTINGS, now);
      const focus = await focusExport.run(
        { log, runId: undefined, concurrency: 2, session, sink, ...{ now: () => now } },
        focusRequest,
      );
      plan = {
        ...plan,
        focus: {
          written: focus.written,
          removed: focus.removed,
          notStarted: focus.notStarted,
          failures: focus.failures,
        },
      };
    } catch (error) {
      plan = { ...plan, focusError: { Error: errorCode(error), Cause: errorMessage(error) } };
    }
    const summary = await summarizeBackfill(sink, plan);
    lines.push(JSON.stringify(summary));
    return { code: summary.failed === 0 ? 0 : 1, from: summary.from, to: summary.to };
  } catch (error) {
    lines.push(`${errorCode(error)}: ${errorMessage(error)}`);
    return { code: 2 };
  } finally {
    world.texts.push(lines.join('\n'));
  }
}
