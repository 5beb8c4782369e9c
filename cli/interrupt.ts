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

export function interruptOnSignals(stderr: Writable, proc: NodeJS.Process = process): Interrupt {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  const onSignal = (name: StopSignal) => {
    if (received) {
      // A second signal: stop now. The next run removes what this one leaves.
      proc.exit(EXIT_CODES[name]);
    }
    received = name;
    stderr.write(`\ncloudforet-export: ${name}: stopping; running units abort, nothing half-written stays\n`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const handlers = (Object.keys(EXIT_CODES) as StopSignal[]).map((name) => {
    const handler = () => onSignal(name);
    proc.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    exitCode: () => (received ? EXIT_CODES[received] : undefined),
    dispose: () => {
      for (const [name, handler] of handlers) proc.off(name, handler);
    },
  };
}
