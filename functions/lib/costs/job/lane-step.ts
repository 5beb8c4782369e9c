// One invocation of a lane of the daily run across tenants (lanes.ts): the lane's units read from
// S3, then run one at a time by the unit function's own entry, each as a unit item is.
import type { Context } from 'aws-lambda';
import { redactError } from '../../redact/redact.ts';
import { openSink } from '../../storage/open-sink.ts';
import { type LaneProgress, type LaneStep, runLane } from './lanes.ts';

export function isLaneStep(event: unknown): event is LaneStep {
  const e = event as Partial<LaneStep> | null;
  return typeof e?.laneKey === 'string' && typeof e.bucket === 'string' && typeof e.runId === 'string';
}

export async function runLaneStep(
  step: LaneStep,
  context: Context | undefined,
  unit: (item: unknown, context?: Context) => Promise<unknown>,
): Promise<LaneProgress> {
  try {
    const text = await openSink(`s3://${step.bucket}`).read(step.laneKey);
    if (text === undefined) throw new Error(`lane ${step.laneKey} is gone: start the daily run again`);
    const units = JSON.parse(text) as unknown[];
    return await runLane(step, {
      units,
      runUnit: (item) => unit(item, context),
      remainingMs: () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
    });
  } catch (error) {
    throw redactError(error);
  }
}
