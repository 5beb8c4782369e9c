// Step Functions, last state: the cost job's summary (the inline run's, field for field), from the
// state Finish saved. Fails the execution, so it alarms, on any failure or any work left for the
// next run. Needs S3 only: no Cloudforet session, no Secrets Manager.
import { parseJobRef } from './lib/costs/job/job-ref.ts';
import { summaryState } from './lib/costs/job/scheduled.ts';
import { scheduledFailure } from './lib/costs/job/summary.ts';
import { connectSink } from './lib/lambda/connect-sink.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

/** Failures, mixed and not-synced days listed in the output (all counted). */
const LISTED = 50;

export const handler = lambdaEntry('backfill-summary', {
  connect: connectSink,
  parse: parseJobRef,
  // The execution's output, so bounded whatever the number of failures (Step Functions' 256 KiB):
  // `failed` counts them all, the lists name the first LISTED.
  run: async ({ sink }, ref) => {
    const s = await summaryState(sink, ref.runId);
    return {
      ...s,
      failures: s.failures.slice(0, LISTED),
      mixed: s.mixed.slice(0, LISTED),
      notSynced: s.notSynced.slice(0, LISTED),
      ...(ref.finishError && { finishError: ref.finishError }),
    };
  },
  figures: (s) => ({ exported: s.written + s.removed + s.empty, unchanged: s.unchanged, failed: s.failed }),
  summary: (s) => [
    'backfill finished',
    { ...s, perDataSource: undefined, failures: s.failures.slice(0, 20) },
  ],
  failure: scheduledFailure,
});
