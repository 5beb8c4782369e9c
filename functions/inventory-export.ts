// Lambda entry: snapshot Cloudforet inventory (cloud services, regions, data sources and their
// accounts) to Parquet on S3 for the event's snapshot date.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { openSession } from './lib/cloudforet-session.ts';
import { readConfig } from './lib/config.ts';
import { openSink } from './lib/destination.ts';
import { ExportError } from './lib/errors.ts';
import { parseInventoryEvent } from './lib/inventory-event.ts';
import { type InventoryRunSummary, runInventoryExport } from './lib/inventory-export.ts';
import { createLogger } from './lib/log.ts';
import { type SecretSource, secretsManagerSource } from './lib/secret.ts';

let secrets: { id: string; source: SecretSource } | undefined;

export async function handler(event: unknown, context?: Context): Promise<InventoryRunSummary> {
  const config = readConfig(process.env);
  const log = createLogger({
    level: config.logLevel,
    fields: { function: 'inventory-export', requestId: context?.awsRequestId },
  });
  const request = parseInventoryEvent(event, new Date());
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
  const summary = await runInventoryExport(
    {
      client: session.client,
      sink,
      credential: session.credential,
      concurrency: config.concurrency,
      runId: context?.awsRequestId,
      log,
    },
    request,
  );
  if (summary.failed > 0) {
    throw new ExportError(
      'RUN_FAILED',
      `${summary.failed} of ${Object.keys(summary.tables).length} inventory tables failed: ${JSON.stringify(summary.failures)}`,
    );
  }
  return summary;
}
