// Lambda entry: snapshot Cloudforet inventory (cloud services, regions, data sources and their
// accounts) to Parquet on S3 for the event's snapshot date.
import type { Context } from 'aws-lambda';
import { RunFailedError } from './lib/errors.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';
import { parseInventoryEvent } from './lib/inventory/event.ts';
import { type InventoryRunSummary, runInventoryExport } from './lib/inventory/run.ts';

export async function handler(event: unknown, context?: Context): Promise<InventoryRunSummary> {
  const { config, log, runId, connect } = functionRuntime('inventory-export', context);
  const request = parseInventoryEvent(event, new Date());
  const { session, sink } = await connect();
  const summary = await runInventoryExport(
    {
      client: session.client,
      sink,
      credential: session.credential,
      concurrency: config.concurrency,
      compression: config.compression,
      runId,
      log,
    },
    request,
  );
  const tables = Object.values(summary.tables);
  publishRunMetrics('inventory-export', {
    rows: summary.rows,
    bytes: summary.bytes,
    exported: tables.filter((t) => t.outcome === 'written' || t.outcome === 'removed').length,
    failed: summary.failed,
    apiRetries: summary.requestRetries,
  });
  if (summary.failed > 0) {
    throw new RunFailedError(
      `${summary.failed} of ${tables.length} inventory tables failed: ${JSON.stringify(summary.failures)}`,
    );
  }
  return summary;
}
