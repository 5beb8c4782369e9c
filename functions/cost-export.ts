// Lambda entry: export the cost days of the event (by default the days that changed in this
// month and the previous one) to Parquet on S3, inline. Large backfills go to the state machine.
import { refuseWhollyBeyondRetention } from './lib/costs/beyond-retention.ts';
import { parseCostEvent } from './lib/costs/event.ts';
import { runCostExport } from './lib/costs/run.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('cost-export', {
  connect: connectCloudforet,
  parse: (event, config, now) => {
    const request = parseCostEvent(event, now, {
      maxDays: config.maxInlineDays,
      windowMonths: config.windowMonths,
    });
    refuseWhollyBeyondRetention(request, now);
    return { ...request, staleJobAfterMs: config.staleJobAfterMs };
  },
  // The scheduled run (the default window) also archives Cloudforet's cost reports.
  run: (entry, request) =>
    runCostExport({ ...exportRunDeps(entry), costReports: request.followJobs === true }, request),
  figures: (s) => ({
    rows: s.rows,
    bytes: s.bytes,
    exported: s.written + s.removed + s.empty,
    unchanged: s.unchanged,
    failed: s.failed,
    apiRetries: s.requestRetries,
  }),
  failure: (s) =>
    s.failed > 0
      ? `${s.failures.length} of ${s.units} cost units failed: ${JSON.stringify(s.failures.slice(0, 5))}` +
        (s.focus?.failures.length ? `; ${s.focus.failures.length} focus units failed` : '') +
        (s.costReports && 'error' in s.costReports ? `; cost reports failed: ${s.costReports.error}` : '')
      : undefined,
});
