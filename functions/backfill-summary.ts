// Step Functions, last state: summarise a backfill from the manifests its units wrote.
// Fails (so the execution fails and alarms) when any unit did not export. Needs S3 only: it
// builds no Cloudforet session, so its bundle carries neither undici nor Secrets Manager.
import type { Context } from 'aws-lambda';
import type { BackfillPlan } from './lib/costs/backfill.ts';
import { type BackfillSummary, summarizeBackfill } from './lib/costs/backfill-summary.ts';
import { readConfig } from './lib/config.ts';
import { RunFailedError } from './lib/errors.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';
import { createLogger } from './lib/log.ts';
import { openSink } from './lib/storage/open-sink.ts';

export async function handler(event: { plan: BackfillPlan }, context?: Context): Promise<BackfillSummary> {
  const config = readConfig(process.env);
  const log = createLogger({
    level: config.logLevel,
    fields: { function: 'backfill-summary', requestId: context?.awsRequestId },
  });
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
