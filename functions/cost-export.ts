// Lambda entry: export the cost days of the event (by default the days that changed in this
// month and the previous one) to Parquet on S3, inline. Large backfills go to the state machine.
import type { Context } from 'aws-lambda';
import { parseCostEvent } from './lib/costs/event.ts';
import { type CostRunSummary, runCostExport } from './lib/costs/run.ts';
import { ExportError } from './lib/errors.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';

export async function handler(event: unknown, context?: Context): Promise<CostRunSummary> {
  const { config, log, runId, connect } = functionRuntime('cost-export', context);
  const limits = { maxDays: config.maxInlineDays, windowMonths: config.windowMonths };
  const request = parseCostEvent(event, new Date(), limits);
  const { session, sink } = await connect();
  const summary = await runCostExport(
    {
      client: session.client,
      sink,
      credential: session.credential,
      concurrency: config.concurrency,
      runId,
      log,
    },
    request,
  );
  if (summary.failed > 0) {
    const first = JSON.stringify(summary.failures.slice(0, 5));
    throw new ExportError('RUN_FAILED', `${summary.failed} of ${summary.units} cost units failed: ${first}`);
  }
  return summary;
}
