// The unit retry loop every run shares: redo a unit on drift or a transient API error, up to a
// number of attempts; never throws, so one failed unit never stops the others.
import { errorCode, errorMessage, isRetryable } from '../errors.ts';
import type { Logger } from '../log.ts';

export const DEFAULT_UNIT_ATTEMPTS = 3;

export interface UnitFailureInfo {
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
  /** Whether a later attempt may succeed (transient API failure, drift). */
  readonly retryable: boolean;
}

export type UnitAttempts<T> =
  | { readonly ok: true; readonly value: T; readonly retries: number }
  | { readonly ok: false; readonly failure: UnitFailureInfo; readonly retries: number };

export interface AttemptOptions {
  /** 'cost unit', 'inventory table': names the log lines. */
  readonly what: string;
  readonly log: Logger;
  /** Keys of every log line about the unit. */
  readonly fields: Record<string, unknown>;
  readonly attempts?: number;
  /** The run's own stop (SIGINT, SIGTERM, the Lambda's deadline): a unit it ends is not retried. */
  readonly signal?: AbortSignal;
  /** A stop the caller reports itself (a broken endpoint): no line per unit. */
  readonly quietStop?: () => boolean;
}

/** The failure code of a unit the run stopped: its previous object, if any, is untouched. */
export const UNIT_INTERRUPTED = 'UNIT_INTERRUPTED';

export async function attemptUnit<T>(opts: AttemptOptions, work: () => Promise<T>): Promise<UnitAttempts<T>> {
  const limit = opts.attempts ?? DEFAULT_UNIT_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await work(), retries: attempt - 1 };
    } catch (error) {
      if (opts.signal?.aborted) return stopped(opts, attempt);
      if (isRetryable(error) && attempt < limit) {
        opts.log.warn(`${opts.what} retried`, { ...opts.fields, attempt, error });
        continue;
      }
      opts.log.error(`${opts.what} failed`, { ...opts.fields, attempt, error });
      const failure = {
        code: errorCode(error),
        message: errorMessage(error),
        attempts: attempt,
        retryable: isRetryable(error),
      };
      return { ok: false, failure, retries: attempt - 1 };
    }
  }
}

function stopped<T>(opts: AttemptOptions, attempt: number): UnitAttempts<T> {
  const reason = errorMessage(opts.signal?.reason ?? 'the run was stopped');
  const message = `stopped before it finished (${reason}); what it replaces is untouched: rerun to export it`;
  if (opts.quietStop?.() !== true) opts.log.warn(`${opts.what} stopped`, { ...opts.fields, attempt, reason });
  const failure = { code: UNIT_INTERRUPTED, message, attempts: attempt, retryable: true };
  return { ok: false, failure, retries: attempt - 1 };
}
