// What the scheduled job's states pass each other (CostJobRef), checked at each state's edge.
import { EventError } from '../../errors.ts';
import type { CostJobRef } from './states.ts';

/** Step Functions' Error and Cause of a state that failed, caught and passed on to the Summary. */
export interface StateError {
  readonly Error?: string;
  readonly Cause?: string;
}

export function parseJobRef(event: unknown): CostJobRef & { readonly finishError?: StateError } {
  const e = (event ?? {}) as Partial<CostJobRef> & { finishError?: StateError };
  if (typeof e.runId !== 'string' || e.runId === '' || typeof e.unitsObjectKey !== 'string') {
    throw new EventError(
      'EVENT_BAD_PLAN',
      'the cost job\'s states take the Plan state\'s output ({"runId", "bucket", "jobObjectKey", "unitsObjectKey", "units"}), as the state machine passes it',
    );
  }
  const finishError =
    e.finishError && typeof e.finishError === 'object' ? { finishError: e.finishError } : {};
  return {
    runId: e.runId,
    bucket: String(e.bucket ?? ''),
    jobObjectKey: String(e.jobObjectKey ?? ''),
    unitsObjectKey: e.unitsObjectKey,
    units: Number(e.units ?? 0),
    ...finishError,
  };
}
