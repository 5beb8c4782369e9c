// What every export run (costs, inventory) is given: where it reads and writes, how hard it may
// push, and how it reports and stops.
import type { CloudforetClient } from '../cloudforet/client.ts';
import type { Logger } from '../log.ts';
import type { Sink } from '../storage/sink.ts';
import type { Compression } from './listing-export.ts';
import type { RunProgress } from './run-progress.ts';

export interface ExportRunDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly concurrency?: number;
  /** Attempts per unit for retryable failures (drift, transient API errors). */
  readonly unitAttempts?: number;
  readonly runId?: string;
  readonly log?: Logger;
  readonly now?: () => Date;
  /** Overrides the row-group size (tests, bench). */
  readonly rowGroupRows?: number;
  /** Parquet page codec (PARQUET_COMPRESSION); the writer's default unless set. */
  readonly compression?: Compression;
  readonly onProgress?: (progress: RunProgress) => void;
  /** Asked before each unit starts; false leaves it (and the rest) for the next run. */
  readonly shouldStartUnit?: () => boolean;
  /** Aborting it (the Lambda's deadline, SIGINT, SIGTERM) ends the run: running units fail untouched. */
  readonly signal?: AbortSignal;
}
