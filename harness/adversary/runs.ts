// The runs the adversary makes: the CLI in process (cli/main.ts, as a person types it), and the
// costs face in process where the CLI cannot be told something (the clock, a stop after N units,
// the Lambda's deadline), composed as cli/cli-entry.ts composes it. Each returns its exit code,
// its summary and every text it produced.

import type { CliIo } from '../../cli/command-context.ts';
import { main } from '../../cli/main.ts';
import { costs } from '../../functions/lib/faces/costs.ts';
import {
  createLogger,
  errorCode,
  errorMessage,
  fileSecretSource,
  openSession,
  openSink,
} from '../../functions/lib/faces/edge.ts';
import { CLI_SETTINGS } from '../../functions/lib/faces/face.ts';
import type { World } from './world.ts';

export interface RunOutcome {
  /** 0 all done, 1 a unit failed (or the run stopped), 2 the run threw. */
  readonly code: number;
  readonly summary?: RunSummary;
  /** Killed: temporaries it left are expected until the next run removes them. */
  readonly debrisExpected?: boolean;
  /** The window the run covered, when it planned one. */
  readonly from?: string;
  readonly to?: string;
}

/** The parts of a cost run's JSON summary the model reads. */
export interface RunSummary {
  readonly from?: string;
  readonly to?: string;
  readonly failed?: number;
  readonly failures?: ReadonlyArray<{ dataSourceId?: string; date?: string; code?: string }>;
  readonly removed?: number;
  readonly interrupted?: boolean;
  readonly notStarted?: number;
  /** What the run left for the next one (units or FOCUS units not started, steps left out). */
  readonly left?: string;
  /** Data sources left alone because a sync of theirs was running (the next run exports them). */
  readonly skippedSyncInProgress?: readonly string[];
}

function bufferIo(): CliIo & { text: () => string } {
  const chunks: string[] = [];
  const stream = {
    isTTY: false,
    write: (c: string) => chunks.push(String(c)) > 0,
  } as unknown as NodeJS.WriteStream;
  return { stdout: stream, stderr: stream, text: () => chunks.join('') };
}

function lastJson(text: string): RunSummary | undefined {
  for (const line of text.split('\n').reverse()) {
    if (!line.startsWith('{"')) continue;
    try {
      const value = JSON.parse(line) as RunSummary & { msg?: string };
      if (value.msg === undefined) return value;
    } catch {}
  }
  return undefined;
}

/** `cloudforet-export <args> --endpoint <gateway> --secret-file … --out … --json`, in process (no endpoint for a command that reads --out only). */
export async function cli(
  world: World,
  args: readonly string[],
  opts: { readonly readsCloudforet?: boolean } = {},
): Promise<RunOutcome> {
  const io = bufferIo();
  const cloudforet =
    opts.readsCloudforet === false
      ? []
      : ['--endpoint', world.gateway.url, '--secret-file', world.secretFile];
  const argv = [...args, ...cloudforet, '--out', world.destination, '--json'];
  const code = await main(argv, { LOG_LEVEL: 'warn' }, io);
  const text = io.text();
  world.texts.push(text);
  const summary = lastJson(text);
  return { code, summary, from: summary?.from, to: summary?.to };
}

export interface FaceRunOptions {
  /** The event: {} (this month and the previous one) or {from, to}. */
  readonly event: Record<string, unknown>;
  /** Abort (as SIGINT does) once this many units have finished. */
  readonly abortAfterUnits?: number;
  /** The Lambda's deadline: no unit starts once this many have started. */
  readonly startAtMost?: number;
  /** The run's clock off the world's by this much (a skewed host). */
  readonly skewMs?: number;
}

/** The costs face run in process, on the world's clock: what the CLI and the cost function run. */
export async function faceRun(world: World, opts: FaceRunOptions): Promise<RunOutcome> {
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', write: (l) => lines.push(l) });
  const now = new Date(world.now.getTime() + (opts.skewMs ?? 0));
  try {
    const request = costs.parse(opts.event, CLI_SETTINGS, now);
    const session = await openSession({
      endpoint: world.gateway.url,
      secrets: fileSecretSource(world.secretFile),
      log,
    });
    const clock = { now: () => now };
    const stop = new AbortController();
    let started = 0;
    const summary = await costs.run(
      {
        log,
        runId: undefined,
        // One unit at a time when the run is to stop after N: the N-th unit is where it stops.
        concurrency: opts.abortAfterUnits === undefined && opts.startAtMost === undefined ? 2 : 1,
        // The face passes the rest of its env to runCostExport, which takes the clock.
        ...clock,
        signal: stop.signal,
        // SIGINT as the (N+1)-th unit is about to start; the deadline: no unit starts after N.
        shouldStartUnit: () => {
          const n = started++;
          if (opts.abortAfterUnits !== undefined && n >= opts.abortAfterUnits)
            stop.abort(new Error('interrupted by SIGINT'));
          return opts.startAtMost === undefined || n < opts.startAtMost;
        },
        say: (line) => lines.push(line),
        session,
        sink: openSink(world.destination),
      },
      request,
    );
    lines.push(JSON.stringify(summary));
    const code = costs.failure?.(summary) === undefined && !summary.interrupted ? 0 : 1;
    return { code, summary, from: summary.from, to: summary.to };
  } catch (error) {
    lines.push(`${errorCode(error)}: ${errorMessage(error)}`);
    return { code: 2 };
  } finally {
    world.texts.push(lines.join('\n'));
  }
}
