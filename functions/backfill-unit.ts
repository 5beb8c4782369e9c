// Step Functions, Distributed Map item: export one (data source, billed date) unit.
import { parseBackfillItem, runBackfillUnit } from './lib/costs/backfill/backfill.ts';
import { connectCloudforet } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('backfill-unit', {
  connect: connectCloudforet,
  parse: parseBackfillItem,
  run: ({ session, sink, config, log, signal }, item) =>
    runBackfillUnit(
      {
        client: session.client,
        sink,
        runId: item.runId,
        log: log.child({ runId: item.runId }),
        compression: config.compression,
        signal,
      },
      item,
    ),
  figures: (r, { session }) => ({
    rows: r.rows,
    bytes: r.bytes,
    exported: 1,
    apiRetries: session.client.retries,
  }),
  failedFigures: ({ session }) => ({ failed: 1, apiRetries: session.client.retries }),
});
