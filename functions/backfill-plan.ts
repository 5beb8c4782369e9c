// Step Functions, first state: plan a cost backfill and write its units for the Distributed Map.
import { planBackfill } from './lib/costs/backfill/backfill.ts';
import { refuseWhollyBeyondRetention } from './lib/costs/beyond-retention.ts';
import { parseCostEvent } from './lib/costs/event.ts';
import { connectCloudforet } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';
import { joinKey } from './lib/storage/sink.ts';

export const handler = lambdaEntry('backfill-plan', {
  connect: connectCloudforet,
  parse: (event, config, now) => {
    const request = parseCostEvent(event, now, { maxDays: 400, windowMonths: config.windowMonths });
    // As the cost function and the CLI do: a failed execution, not a plan of nothing.
    refuseWhollyBeyondRetention(request, now);
    return request;
  },
  run: async ({ session, sink, config, runId, log }, request) => {
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
    return { ...plan, bucket: config.bucket, unitsObjectKey: joinKey(config.prefix, plan.unitsKey) };
  },
  figures: (plan, { session }) => {
    const months = plan.unifiedCosts?.months ?? [];
    return {
      rows: months.reduce((n, m) => n + m.rows, 0),
      exported: months.length,
      unchanged: plan.unchanged,
      failed:
        (plan.unifiedCosts?.failures.length ?? 0) + (plan.costReports && 'error' in plan.costReports ? 1 : 0),
      apiRetries: session.client.retries,
    };
  },
});
