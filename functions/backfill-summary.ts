// Step Functions, last state: summarise a backfill from the manifests its units wrote.
// Fails (so the execution fails and alarms) when any unit did not export.
import type { Context } from 'aws-lambda';
import { type BackfillPlan, type BackfillSummary, summarizeBackfill } from './lib/costs/backfill.ts';
import { openSink } from './lib/storage/open-sink.ts';
import { RunFailedError } from './lib/errors.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';

export async function handler(event: { plan: BackfillPlan }, context?: Context): Promise<BackfillSummary> {
  const { config, log } = functionRuntime('backfill-summary', context);
  const summary = await summarizeBackfill(openSink(`s3://${config.bucket}/${config.prefix}`), event.plan);
  publishRunMetrics('backfill-summary', { exported: summary.exported, failed: summary.failed });
  log.info('backfill finished', { ...summary, failures: summary.failures.slice(0, 20) });
  if (summary.failed > 0) {
    throw new RunFailedError(
      `${summary.failed} of ${summary.units} backfill units did not export: ${JSON.stringify(summary.failures.slice(0, 10))}`,
    );
  }
  return summary;
}
