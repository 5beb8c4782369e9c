// Lambda entry, hourly: how old each data source's newest exported billed day and Cloudforet's
// last sync are. Publishes them as metrics (the freshness alarms watch the worst) and names every
// stale data source in one warning line each. Runs apart from the exports, so a stopped export
// shows up here; a run that cannot even start publishes nothing, which the alarms also treat as stale.
import type { Context } from 'aws-lambda';
import { listDataSources } from './lib/costs/data-sources.ts';
import { checkFreshness, type FreshnessReport } from './lib/costs/freshness.ts';
import { eventFields } from './lib/event-shape.ts';
import { functionRuntime } from './lib/lambda/function-runtime.ts';
import { publishFreshness, publishRunMetrics } from './lib/lambda/run-metrics.ts';

export async function handler(event: unknown, context?: Context): Promise<FreshnessReport> {
  const { config, log, connect } = functionRuntime('freshness-check', context);
  eventFields(event, [], '{}');
  const { session, sink } = await connect();
  const dataSources = await listDataSources(session.client);
  const report = await checkFreshness({ sink, dataSources, now: new Date() }, config.freshnessHours);
  publishFreshness(report.dataSources);
  publishRunMetrics('freshness-check', { apiRetries: session.client.retries });
  for (const stale of report.stale)
    log.warn('data source stale', { ...stale, staleAfterHours: config.freshnessHours });
  log.info('freshness checked', { dataSources: report.dataSources.length, stale: report.stale.length });
  return report;
}
