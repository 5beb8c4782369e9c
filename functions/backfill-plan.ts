// Step Functions, state Plan: the cost job's first steps (costs/job/states.ts), its units written
// for the Distributed Map and its state saved for the states after it. Its event is the cost
// function's, read by the same face with the same settings (STALE_JOB_HOURS, the window), up to 400 days.
import { planState } from './lib/costs/job/scheduled.ts';
import { costs } from './lib/faces/costs.ts';
import { lambdaSettings } from './lib/faces/face.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';
import { joinKey } from './lib/storage/sink.ts';

/** The longest range one execution exports. */
const BACKFILL_MAX_DAYS = 400;

export const handler = lambdaEntry('backfill-plan', {
  connect: connectCloudforet,
  parse: (event, config, now) =>
    costs.parse(event, { ...lambdaSettings(config), maxDays: BACKFILL_MAX_DAYS }, now),
  run: async (entry, request) => {
    const { config } = entry;
    const env = { ...exportRunDeps(entry), runId: entry.runId ?? crypto.randomUUID() };
    // A tenant's units name it: each unit's invocation serves that tenant.
    const { job, ...ref } = await planState(
      env,
      request,
      { name: config.bucket, key: (relative) => joinKey(config.prefix, relative) },
      entry.tenant === undefined ? {} : { tenant: entry.tenant },
    );
    return { ...ref, from: job.request.from, to: job.request.to, unchanged: sumOf(job.plan?.unchanged) };
  },
  figures: (ref, { session }) => ({
    exported: 0,
    unchanged: ref.unchanged,
    apiRetries: session.client.retries,
  }),
});

function sumOf(counts: Readonly<Record<string, number>> | undefined): number {
  return Object.values(counts ?? {}).reduce((a, b) => a + b, 0);
}
