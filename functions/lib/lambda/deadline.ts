// The inline function's own deadline. Lambda ends a run that reaches its timeout with "Task timed
// out" and no summary; instead, the run stops starting units while the ones in flight can still
// finish, abandons any still running shortly before the end, and returns what it did.
import type { Context } from 'aws-lambda';

export interface RunDeadline {
  /** False once less than `reserveMs` is left: a unit started now might not finish. */
  shouldStartUnit(): boolean;
  /** Aborts `hardStopMs` before the timeout: units still running end as failed, untouched. */
  readonly signal: AbortSignal;
  dispose(): void;
}

export function runDeadline(
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  opts: { reserveMs: number; hardStopMs: number },
): RunDeadline {
  const controller = new AbortController();
  const remaining = context?.getRemainingTimeInMillis?.bind(context);
  if (remaining === undefined) {
    return { shouldStartUnit: () => true, signal: controller.signal, dispose: () => {} };
  }
  const timer = setTimeout(
    () => controller.abort(new Error('the function is about to time out')),
    Math.max(0, remaining() - opts.hardStopMs),
  );
  return {
    shouldStartUnit: () => remaining() > opts.reserveMs,
    signal: controller.signal,
    dispose: () => clearTimeout(timer),
  };
}
