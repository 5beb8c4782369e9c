// What the CLI's commands share: the options, the usage text and the context each command is given.
import type { CloudforetSession } from '../functions/lib/cloudforet/session.ts';
import type { Logger } from '../functions/lib/log.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CliIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

export const usage = `Usage:
  cloudforet-export costs --endpoint URL (--secret-file PATH | --secret-id ID) --out (DIR | s3://bucket/prefix)
                          [--date YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD] [--data-source ID]...
                          [--force] [--concurrency N] [--json]
  cloudforet-export inventory --endpoint URL (--secret-file PATH | --secret-id ID) --out (DIR | s3://bucket/prefix)
                          [--snapshot-date YYYY-MM-DD] [--include-inactive] [--concurrency N] [--json]
Environment fallbacks: CLOUDFORET_ENDPOINT, CLOUDFORET_SECRET_FILE, CLOUDFORET_SECRET_ID, EXPORT_DESTINATION.
costs without a date covers this month and the previous one (UTC); it exports only the days that
are new or changed since the last export (per-day row count and cost sum), or all with --force.
inventory without --snapshot-date snapshots into today (UTC).
Exit code 0 only when every unit succeeded.`;

export const options = {
  endpoint: { type: 'string' },
  'secret-file': { type: 'string' },
  'secret-id': { type: 'string' },
  out: { type: 'string' },
  date: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'data-source': { type: 'string', multiple: true },
  force: { type: 'boolean' },
  'snapshot-date': { type: 'string' },
  'include-inactive': { type: 'boolean' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
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
  /** DIR or s3://bucket/prefix. */
  readonly destination: string;
  readonly concurrency: number;
  /** Aborted on SIGINT or SIGTERM (cli/interrupt.ts). */
  readonly signal?: AbortSignal;
  openSession(): Promise<CloudforetSession>;
}
