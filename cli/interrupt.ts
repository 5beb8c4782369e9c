// Ctrl-C and SIGTERM stop a run cleanly: the run's signal aborts the running units (their uploads
// are aborted, their temporary files removed), no further unit starts, the partial summary is
// printed, and the exit code says which signal it was (128 + its number, as shells do).
import type { Writable } from 'node:stream';

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof EXIT_CODES;

export interface Interrupt {
  readonly signal: AbortSignal;
  /** 130 or 143 once a signal came; undefined otherwise. */
  exitCode(): number | undefined;
  /** Gives the signals back to Node's defaults. */
  dispose(): void;
}

/**
 * How long a clean stop may take before the process exits anyway: an operation that cannot be
 * aborted (a file system call stuck in the thread pool, a read of a FIFO nobody writes) must not
 * keep a stopped run alive. Units abort in milliseconds; their leftovers go with the next run.
 */
export const STOP_GRACE_MS = 2_000;

export function interruptOnSignals(
  stderr: Writable,
  proc: NodeJS.Process = process,
  graceMs: number = STOP_GRACE_MS,
): Interrupt {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  let grace: NodeJS.Timeout | undefined;
  const handlers: Array<readonly [StopSignal, () => void]> = [];
  const release = () => {
    clearTimeout(grace);
    for (const [name, handler] of handlers) proc.off(name, handler);
  };
  /**
   * Ends the process by the signal itself, as if it had no handler. Not process.exit(): that
   * waits for the thread pool, where a stuck file system call (a FIFO nobody writes) never ends.
   */
  const dieBy = (name: StopSignal) => {
    release();
    proc.kill(proc.pid, name);
  };
  const onSignal = (name: StopSignal) => {
    if (received) {
      // A second signal: stop now. The next run removes what this one leaves.
      dieBy(name);
      return;
    }
    received = name;
    stderr.write(`\ncloudforet-export: ${name}: stopping; running units abort, nothing half-written stays\n`);
    controller.abort(new Error(`interrupted by ${name}`));
    grace = setTimeout(() => {
      stderr.write(
        `cloudforet-export: ${name}: not stopped within ${graceMs / 1000} s; exiting now (the next run removes what this one left)\n`,
      );
      dieBy(name);
    }, graceMs);
    grace.unref();
  };
  for (const name of Object.keys(EXIT_CODES) as StopSignal[]) {
    const handler = () => onSignal(name);
    proc.on(name, handler);
    handlers.push([name, handler]);
  }
  return {
    signal: controller.signal,
    exitCode: () => (received ? EXIT_CODES[received] : undefined),
    dispose: release,
  };
}
