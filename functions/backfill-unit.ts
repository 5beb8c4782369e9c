// Step Functions, Distributed Map item: the cost job's `units` step for one (data source, day),
// with the inline run's executor; it leaves a report for the Finish state (costs/job/fan-out.ts).
// In the daily run across tenants an item is a lane instead (costs/job/lanes.ts): its units one at
// a time, each exactly as a unit item is run here, until the lane ends or the invocation's time
// runs short.
import type { Context } from 'aws-lambda';
import { parseUnitItem, runUnitItem } from './lib/costs/job/fan-out.ts';
import { isLaneStep, runLaneStep } from './lib/costs/job/lane-step.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

const unit = lambdaEntry('backfill-unit', {
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

export const handler = (event: unknown, context?: Context): Promise<unknown> =>
  isLaneStep(event) ? runLaneStep(event, context, unit) : unit(event, context);
