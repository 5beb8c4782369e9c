// What the CLI's commands share: the options and the context each command is given.
import type { CloudforetSession, Logger, Sink } from '../functions/lib/faces/face.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CliIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/** check's deadline for each request when neither --timeout nor CLOUDFORET_TIMEOUT_MS is set. */
export const PROBE_TIMEOUT_MS = 10_000;

/** How long costs and inventory wait for an endpoint that answers nothing, unless --give-up-after. */
export const GIVE_UP_AFTER_S = 60;

export const options = {
  endpoint: { type: 'string' },
  'secret-file': { type: 'string' },
  'secret-id': { type: 'string' },
  out: { type: 'string' },
  tenant: { type: 'string' },
  date: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'data-source': { type: 'string', multiple: true },
  force: { type: 'boolean' },
  'delete-source': { type: 'boolean' },
  verify: { type: 'boolean' },
  'cost-reports': { type: 'boolean' },
  'snapshot-date': { type: 'string' },
  month: { type: 'string' },
  currency: { type: 'string' },
  table: { type: 'string' },
  at: { type: 'string' },
  'include-inactive': { type: 'boolean' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  'give-up-after': { type: 'string' },
  'max-answer-mb': { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

export type Values = {
  [K in keyof typeof options]?: (typeof options)[K] extends { multiple: true }
    ? string[]
    : (typeof options)[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

/** What every command is given: its arguments and the shared plumbing, opened when it asks. */
export interface CommandContext {
  readonly values: Values;
  readonly io: CliIo;
  readonly log: Logger;
  readonly concurrency: number;
  /** Aborted on SIGINT or SIGTERM (cli/interrupt.ts). */
  readonly signal?: AbortSignal;
  /** Where data goes: checked, but nothing is created until a command writes. */
  openSink(): Sink;
  /**
   * A probe (check) waits PROBE_TIMEOUT_MS for an answer unless a timeout was set, and does not
   * retry a request that got none: a silent endpoint fails in seconds, not in 5 × the timeout.
   */
  openSession(opts?: { probe?: boolean }): Promise<CloudforetSession>;
}
