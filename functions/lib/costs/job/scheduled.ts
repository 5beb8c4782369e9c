// The cost job as the scheduled state machine runs it (states.ts COST_JOB_STATES): each state
// loads the job's state, runs its slice of the one step list (steps.ts), and saves it for the next.
// What the execution's state carries is a CostJobRef: keys and a count, never the job itself.
import type { Sink } from '../../storage/sink.ts';
import type { CostRunRequest } from '../planning/plan-export.ts';
import { gatherUnitReports, writeUnitItems } from './fan-out.ts';
import { type CostJob, type CostJobEnv, jobOptions, newJob } from './job.ts';
import { loadJob, removeJob, saveJob } from './job-store.ts';
import { COST_JOB_STATES, type CostJobRef } from './states.ts';
import { runSteps } from './steps.ts';
import { type CostRunSummary, costRunSummary } from './summary.ts';

/** The steps a state runs, from the one declaration of the states. */
function stepsOf(state: string) {
  const found = COST_JOB_STATES.find((s) => s.state === state);
  if (!found) throw new Error(`no state ${state} in COST_JOB_STATES`);
  return found.steps;
}

/** Plan: the job's first steps, its units written for the Map, its state saved. */
export async function planState(
  env: CostJobEnv,
  request: CostRunRequest,
  bucket: { readonly name: string; readonly key: (relative: string) => string },
  itemStamp: Readonly<Record<string, string>> = {},
): Promise<CostJobRef & { readonly job: CostJob }> {
  const job = newJob(env.runId, request, jobOptions(request), env.sink.location, Date.now());
  await runSteps(env, job, stepsOf('Plan'));
  job.requestRetries += env.client.retries;
  const unitsKey = await writeUnitItems(env.sink, job, itemStamp);
  const jobKey = await saveJob(env.sink, job);
  return {
    runId: job.runId,
    bucket: bucket.name,
    jobObjectKey: bucket.key(jobKey),
    unitsObjectKey: bucket.key(unitsKey),
    units: job.plan?.units.length ?? 0,
    job,
  };
}

/** Finish: the units' reports gathered, then every step after the units. */
export async function finishState(env: CostJobEnv, runId: string): Promise<CostJob> {
  const job = await loadJob(env.sink, runId);
  await gatherUnitReports(env.sink, job);
  await runSteps(env, job, stepsOf('Finish'));
  job.requestRetries += env.client.retries;
  await saveJob(env.sink, job);
  return job;
}

/** Summary: the job's summary (the inline run's, field for field); the job's folder removed. */
export async function summaryState(sink: Sink, runId: string): Promise<CostRunSummary> {
  const job = await loadJob(sink, runId);
  const summary = costRunSummary(job, {
    requestRetries: job.requestRetries,
    durationMs: Date.now() - job.startedAt,
  });
  await removeJob(sink, runId);
  return summary;
}
