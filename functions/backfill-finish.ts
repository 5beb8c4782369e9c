// Step Functions, state Finish: the units' reports gathered, then every step of the cost job after
// the units (job marks, unified months, cost reports, FOCUS with its repair, compaction, verify,
// ledger rollup; costs/job/states.ts), on the job's state as Plan left it; compaction then moves the
// focus table's Glue partitions when the function is given FOCUS_GLUE_DATABASE.
import { parseJobRef } from './lib/costs/job/job-ref.ts';
import { finishState } from './lib/costs/job/scheduled.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { connectFocusCatalog } from './lib/lambda/connect-glue.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('backfill-finish', {
  connect: connectCloudforet,
  parse: parseJobRef,
  run: async (entry, ref) => {
    const env = exportRunDeps(entry);
    // Its compaction step keeps the focus table's Glue partitions (every tenant its own database).
    const focusCatalog = connectFocusCatalog(entry.config);
    const job = await finishState(
      {
        ...env,
        ...(focusCatalog && { focusCatalog }),
        runId: ref.runId,
        log: env.log.child({ runId: ref.runId }),
      },
      ref.runId,
    );
    return { ...ref, results: job.results.length, failures: job.failures.length };
  },
  figures: (r, { session }) => ({
    exported: r.results,
    failed: r.failures,
    apiRetries: session.client.retries,
  }),
  // The Summary counts and reports the failures: this state fails only when it cannot run.
});
