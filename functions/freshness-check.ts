// Lambda entry, hourly: how old each data source's newest exported billed day and Cloudforet's
// last sync are. Publishes them as metrics (the freshness alarms watch the worst) and names every
// stale data source in one warning line each. Runs apart from the exports, so a stopped export
// shows up here; a run that cannot even start publishes nothing, which the alarms also treat as stale.
import { checkFreshness } from './lib/costs/freshness/freshness.ts';
import { listDataSources } from './lib/costs/sources/data-sources.ts';
import { eventFields } from './lib/input/event-shape.ts';
import { connectCloudforet } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';
import { publishFreshness } from './lib/lambda/run-metrics.ts';

export const handler = lambdaEntry('freshness-check', {
  connect: connectCloudforet,
  parse: (event) => eventFields(event, [], '{}'),
  run: async ({ session, sink, config, log, tenant }) => {
    const dataSources = await listDataSources(session.client);
    const report = await checkFreshness({ sink, dataSources, now: new Date() }, config.freshnessHours);
    publishFreshness(report.dataSources, tenant);
    for (const stale of report.stale)
      log.warn('data source stale', { ...stale, staleAfterHours: config.freshnessHours });
    return report;
  },
  figures: (_report, { session }) => ({ apiRetries: session.client.retries }),
  summary: (r) => ['freshness checked', { dataSources: r.dataSources.length, stale: r.stale.length }],
});
