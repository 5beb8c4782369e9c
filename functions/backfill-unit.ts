// Step Functions, Distributed Map item: export one (data source, billed date) unit.
import type { Context } from 'aws-lambda';
import { type BackfillItem, runBackfillUnit } from './lib/costs/backfill.ts';
import type { CostUnitResult } from './lib/costs/unit.ts';
import { EventError } from './lib/errors.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';
import { isIsoDate } from './lib/dates.ts';

export async function handler(event: unknown, context?: Context): Promise<CostUnitResult> {
  const { config, log, connect } = functionRuntime('backfill-unit', context);
  const item = parseItem(event);
  const { session, sink } = await connect();
  const unitLog = log.child({ runId: item.runId });
  const retries = () => ({ apiRetries: session.client.retries });
  const result = await runBackfillUnit(
    { client: session.client, sink, runId: item.runId, log: unitLog, compression: config.compression },
    item,
  ).catch((error: unknown) => {
    publishRunMetrics('backfill-unit', { failed: 1, ...retries() });
    throw error;
  });
  publishRunMetrics('backfill-unit', { rows: result.rows, bytes: result.bytes, exported: 1, ...retries() });
  return result;
}

function parseItem(event: unknown): BackfillItem {
  const e = (event ?? {}) as Partial<BackfillItem>;
  if (typeof e.runId !== 'string' || typeof e.dataSourceId !== 'string' || !isIsoDate(e.date)) {
    throw new EventError(
      'EVENT_BAD_UNIT',
      'a backfill unit is {"runId", "dataSourceId", "date": "YYYY-MM-DD"}, written by the plan step',
    );
  }
  const jobId = typeof e.jobId === 'string' ? { jobId: e.jobId } : {};
  const a = e.analyzed;
  const analyzed = a && Number.isFinite(a.rows) && Number.isFinite(a.costSum) ? { analyzed: a } : {};
  return {
    runId: e.runId,
    dataSourceId: e.dataSourceId,
    date: e.date,
    reason: e.reason ?? 'forced',
    ...jobId,
    ...analyzed,
  };
}
