// The shape of a row of test/system/cli/bad-input-matrix.test.ts: what it did, and what it must have done.
import { addDays, utcDay } from '../../functions/lib/dates.ts';

/** What one row did: the exit code (CLI, simulator) or the thrown code (handler), and its words. */
export interface Said {
  readonly exit?: number;
  readonly code?: string;
  readonly text: string;
}
export interface Row {
  readonly kind: 'flag' | 'file' | 'endpoint' | 'event' | 'env' | 'simulator';
  readonly name: string;
  readonly act: () => Promise<Said>;
  /** The CLI's or the simulator's exit code; for a handler, the code of the error it throws. */
  readonly expected: number | string;
  /** The first line that is not progress or a log line (see firstLine). */
  readonly first: RegExp;
  /** Seconds the row may take at most. */
  readonly within: number;
  /** Nothing but that line, besides progress and log lines: no line per unit. */
  readonly alone?: boolean;
}

export const TODAY = utcDay(new Date());
export const YESTERDAY = addDays(TODAY, -1);
export const LAST_WEEK = addDays(TODAY, -7);
