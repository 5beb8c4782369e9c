// Lambda entry: export the cost days of the event (by default the days that changed in this
// month and the previous one) to Parquet on S3, inline. Large backfills go to the state machine.
import type { Context } from 'aws-lambda';
import { parseCostEvent } from './lib/costs/event.ts';
import { type CostRunSummary, runCostExport } from './lib/costs/run.ts';
import { RunFailedError } from './lib/errors.ts';
import { runDeadline } from './lib/lambda/deadline.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';

export async function handler(event: unknown, context?: Context): Promise<CostRunSummary> {
  const { config, log, runId, connect } = functionRuntime('cost-export', context);
  const limits = { maxDays: config.maxInlineDays, windowMonths: config.windowMonths };
  const request = { ...parseCostEvent(event, new Date(), limits), staleJobAfterMs: config.staleJobAfterMs };
  const { session, sink } = await connect();
  // A unit started with less than two request timeouts left might not finish.
  const deadline = runDeadline(context, {
    reserveMs: 2 * config.requestTimeoutMs + 10_000,
    hardStopMs: 5_000,
  });
  const summary = await runCostExport(
    {
      client: session.client,
      sink,
      concurrency: config.concurrency,
      compression: config.compression,
      runId,
      log,
      credential: session.credential,
      shouldStartUnit: deadline.shouldStartUnit,
      signal: deadline.signal,
    },
    request,
  ).finally(deadline.dispose);
  publishRunMetrics('cost-export', {
    rows: summary.rows,
    bytes: summary.bytes,
    exported: summary.written + summary.removed,
    unchanged: summary.unchanged,
    failed: summary.failed,
    apiRetries: summary.requestRetries,
  });
  if (summary.failed > 0) {
    const first = JSON.stringify(summary.failures.slice(0, 5));
    throw new RunFailedError(`${summary.failed} of ${summary.units} cost units failed: ${first}`);
  }
  return summary;
}
