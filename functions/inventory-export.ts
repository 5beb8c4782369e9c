// Lambda entry: snapshot Cloudforet inventory (cloud services, regions, data sources and their
// accounts, identity names, budgets) to Parquet on S3 for the event's snapshot date.
import { parseInventoryEvent } from './lib/inventory/event.ts';
import { runInventoryExport } from './lib/inventory/run.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('inventory-export', {
  connect: connectCloudforet,
  parse: (event, _config, now) => parseInventoryEvent(event, now),
  run: (entry, request) => runInventoryExport(exportRunDeps(entry), request),
  figures: (s) => ({
    rows: s.rows,
    bytes: s.bytes,
    exported: Object.values(s.tables).filter(
      (t) => t.outcome === 'written' || t.outcome === 'removed' || t.outcome === 'empty',
    ).length,
    failed: s.failed,
    apiRetries: s.requestRetries,
  }),
  failure: (s) =>
    s.failed > 0
      ? `${s.failed} of ${Object.keys(s.tables).length} inventory tables failed: ${JSON.stringify(s.failures)}`
      : undefined,
});
