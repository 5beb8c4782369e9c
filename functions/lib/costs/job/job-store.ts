// The scheduled job's state between its states: one JSON object under _runs/costs/<run id>/, so
// the execution's own state carries keys only (CostJobRef), far below Step Functions' 256 KiB
// whatever the number of units or failures. The Summary removes the run's folder at the end; the
// bucket's lifecycle expires what a failed execution leaves (infra/export-bucket.ts).

import { ownScratch, removeProven } from '../../destination/gate.ts';
import { costJobPrefix, costJobStateKey } from '../../destination/layout.ts';
import { EventError } from '../../errors.ts';
import type { Sink } from '../../storage/sink.ts';
import type { CostJob } from './job.ts';

export async function saveJob(sink: Sink, job: CostJob): Promise<string> {
  const key = costJobStateKey(job.runId);
  await sink.put(key, JSON.stringify(job), 'application/json');
  return key;
}

export async function loadJob(sink: Sink, runId: string): Promise<CostJob> {
  const text = await sink.read(costJobStateKey(runId));
  const job = text === undefined ? undefined : (JSON.parse(text) as CostJob);
  if (!job || job.runId !== runId || !Array.isArray(job.results)) {
    throw new EventError(
      'EVENT_BAD_PLAN',
      `no state for cost job ${runId} at ${costJobStateKey(runId)}: start the state machine again`,
    );
  }
  return job;
}

/** Removes the job's folder (its state, units and reports): its summary has been taken. */
export async function removeJob(sink: Sink, runId: string): Promise<void> {
  for (const key of await sink.list(costJobPrefix(runId)))
    await removeProven(sink, key, ownScratch('a finished cost job’s state, units and unit reports'));
}
