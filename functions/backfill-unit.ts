// Step Functions, Distributed Map item: the cost job's `units` step for one (data source, day),
// with the inline run's executor; it leaves a report for the Finish state (costs/job/fan-out.ts).
import { parseUnitItem, runUnitItem } from './lib/costs/job/fan-out.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('backfill-unit', {
  connect: connectCloudforet,
  parse: parseUnitItem,
  run: (entry, item) => {
    const env = exportRunDeps(entry);
    return runUnitItem({ ...env, log: env.log.child({ runId: item.runId }) }, item);
  },
  figures: (r, { session }) => ({
    rows: r.rows,
    bytes: r.bytes,
    exported: 1,
    apiRetries: session.client.retries,
  }),
  failedFigures: ({ session }) => ({ failed: 1, apiRetries: session.client.retries }),
});
