// Step Functions, first state: plan a cost backfill and write its units for the Distributed Map.
import type { Context } from 'aws-lambda';
import { type BackfillPlan, planBackfill } from './lib/costs/backfill.ts';
import { parseCostEvent } from './lib/costs/event.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';
import { joinKey } from './lib/storage/sink.ts';

export async function handler(
  event: unknown,
  context?: Context,
): Promise<BackfillPlan & { bucket: string; unitsObjectKey: string }> {
  const { config, log, runId, connect } = functionRuntime('backfill-plan', context);
  const request = parseCostEvent(event, new Date(), { maxDays: 400, windowMonths: config.windowMonths });
  const { session, sink } = await connect();
  const plan = await planBackfill(
    {
      client: session.client,
      sink,
      runId: runId ?? crypto.randomUUID(),
      log,
      credential: session.credential,
      compression: config.compression,
    },
    request,
  );
  const months = plan.unifiedCosts?.months ?? [];
  publishRunMetrics('backfill-plan', {
    rows: months.reduce((n, m) => n + m.rows, 0),
    exported: months.length,
    unchanged: plan.unchanged,
    failed: plan.unifiedCosts?.failures.length ?? 0,
    apiRetries: session.client.retries,
  });
  return { ...plan, bucket: config.bucket, unitsObjectKey: joinKey(config.prefix, plan.unitsKey) };
}
