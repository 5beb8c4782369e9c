// Lambda entry: export cost rows for the event's days to Parquet on S3.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { openSession } from './lib/cloudforet-session.ts';
import { readConfig } from './lib/config.ts';
import { parseCostEvent } from './lib/cost-event.ts';
import { type CostRunSummary, runCostExport } from './lib/cost-run.ts';
import { openSink } from './lib/destination.ts';
import { ExportError } from './lib/errors.ts';
import { createLogger } from './lib/log.ts';
import { type SecretSource, secretsManagerSource } from './lib/secret.ts';

let secrets: { id: string; source: SecretSource } | undefined;

export async function handler(event: unknown, context?: Context): Promise<CostRunSummary> {
  const config = readConfig(process.env);
  const log = createLogger({
    level: config.logLevel,
    fields: { function: 'cost-export', requestId: context?.awsRequestId },
  });
  const request = parseCostEvent(event, new Date(), {
    maxDays: config.maxInlineDays,
    windowMonths: config.windowMonths,
  });
  if (secrets?.id !== config.secretId) {
    const client = new SecretsManagerClient({});
    secrets = {
      id: config.secretId,
      source: secretsManagerSource({ client, secretId: config.secretId, ttlMs: config.secretTtlMs }),
    };
  }
  const session = await openSession({
    endpoint: config.endpoint,
    secrets: secrets.source,
    log,
    requestTimeoutMs: config.requestTimeoutMs,
  });
  const sink = openSink(`s3://${config.bucket}/${config.prefix}`);
  const summary = await runCostExport(
    { client: session.client, sink, concurrency: config.concurrency, runId: context?.awsRequestId, log },
    request,
  );
  if (summary.failed > 0) {
    throw new ExportError(
      'RUN_FAILED',
      `${summary.failed} of ${summary.units} cost units failed: ${JSON.stringify(summary.failures.slice(0, 5))}`,
    );
  }
  return summary;
}
