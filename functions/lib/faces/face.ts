// One face per use case, run by both entries: the Lambda (lambdaEntry(name, lambdaFace(face))) and
// the CLI (cli/cli-entry.ts). A face parses its input before anything is connected (an event, or
// the CLI's options under the event's names), runs with the adapters it names, and describes its
// result: lines for people, the Lambda's metrics and summary, and why a run that returned failed.
import type { CloudforetSession } from '../cloudforet/session.ts';
import type { Compression } from '../codecs.ts';
import type { FunctionConfig } from '../config.ts';
import type { RunProgress } from '../export/run-progress.ts';
import type { EntryContext, UseCase } from '../lambda/entry.ts';
import type { RunFigures } from '../lambda/run-metrics.ts';
import type { Logger } from '../log.ts';
import type { Sink } from '../storage/sink.ts';

export type { CloudforetSession, Logger, RunProgress, Sink };

/** What an entry allows a use case: the Lambda's from its settings, the CLI's fixed (CLI_SETTINGS). */
export interface EntrySettings {
  /** The longest range one run exports (the Lambda's MAX_INLINE_DAYS; none on the CLI). */
  readonly maxDays: number;
  /** Months in the default window, the current one included. */
  readonly windowMonths: number;
  /** When a sync job counts as hung; the run's default when absent. */
  readonly staleJobAfterMs?: number;
  /**
   * Statements: true on the CLI (working copies of any month asked, confirmed or not), false in
   * the Lambda (confirmed months only, archived).
   */
  readonly workingCopies: boolean;
}

export const CLI_SETTINGS: EntrySettings = {
  maxDays: Number.POSITIVE_INFINITY,
  windowMonths: 2,
  workingCopies: true,
};

/** What a run is given besides its request and its adapters, by either entry. */
export interface RunEnv {
  readonly log: Logger;
  /** The invocation's request id; undefined on the CLI (the run draws one). */
  readonly runId: string | undefined;
  readonly concurrency: number;
  readonly compression?: Compression;
  readonly shouldStartUnit?: () => boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: RunProgress) => void;
  /** A line for people as the run goes (the CLI prints it; the Lambda has none). */
  readonly say?: (line: string) => void;
}

/**
 * The adapters a run takes on the CLI: a Cloudforet session and the sink ('cloudforet'), the same
 * for a probe with a short deadline and no retry ('probe'), or the sink alone ('sink').
 */
export type Needs = 'cloudforet' | 'probe' | 'sink';

export interface Face<C extends { readonly sink: Sink }, Req, Res> {
  /** The CLI's label for its announcement and progress lines ("costs: writing to ..."). */
  readonly label: string;
  readonly needs: Needs;
  /** Exports announce their destination and report progress on the CLI. */
  readonly reportsProgress?: boolean;
  /** The Lambda's adapters, from the function's settings. */
  connect(entry: EntryContext): Promise<C>;
  /** Validates the input before anything is connected: a bad input costs no request. */
  parse(input: unknown, settings: EntrySettings, now: Date): Req;
  run(env: RunEnv & C, request: Req): Promise<Res>;
  /** Lines for people: what the CLI prints without --json. */
  describe(result: Res, connected: C): readonly string[];
  /** What --json prints; the result itself when absent. */
  json?(result: Res, connected: C): unknown;
  /** The Lambda's metrics. */
  figures(result: Res): RunFigures;
  /** Why the run fails although it returned (failed units): the Lambda throws, the CLI exits 1. */
  failure?(result: Res): string | undefined;
  /** The Lambda's summary line, for use cases that do not log their own. */
  summary?(result: Res): readonly [message: string, fields: Record<string, unknown>];
}

/** The Lambda's settings as a face takes them. */
export function lambdaSettings(config: FunctionConfig): EntrySettings {
  return {
    maxDays: config.maxInlineDays,
    windowMonths: config.windowMonths,
    staleJobAfterMs: config.staleJobAfterMs,
    workingCopies: false,
  };
}

/** The face as lambdaEntry runs it: its settings and run environment from the function's. */
export function lambdaFace<C extends { readonly sink: Sink }, Req, Res>(
  face: Face<C, Req, Res>,
): UseCase<C, Req, Res> {
  return {
    connect: face.connect,
    parse: (event, config, now) => face.parse(event, lambdaSettings(config), now),
    run: (entry, request) =>
      face.run(
        { ...entry, concurrency: entry.config.concurrency, compression: entry.config.compression },
        request,
      ),
    figures: (result) => face.figures(result),
    failure: face.failure,
    summary: face.summary,
  };
}
