// One shape for every command, as lambdaEntry is for every Lambda: the command's options become
// its face's input (the event's fields under the event's names), the face parses them before
// anything is connected, the adapters it needs are opened from the options, it runs, and its
// result is printed (lines for people, or one JSON object with --json). A result that reports
// failed units exits 1; errors leave through main.ts (exit 2 for usage or configuration).
import { CLI_SETTINGS, type CloudforetSession, type Face, type Sink } from '../functions/lib/faces/face.ts';
import type { CommandContext, Values } from './command-context.ts';
import { announceDestination, progressReporter, watchSilence } from './progress.ts';

export interface CliCommand<Req> {
  /** The command's options as the face's input. */
  input(values: Values): unknown;
  /** What the command adds to the parsed request from options the Lambda has no event field for. */
  options?(values: Values): Partial<Req>;
}

export function cliEntry<C extends { readonly sink: Sink }, Req, Res>(
  face: Face<C, Req, Res>,
  command: CliCommand<Req> = { input: () => ({}) },
): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const { values, io } = ctx;
    const request = {
      ...face.parse(command.input(values), CLI_SETTINGS, new Date()),
      ...command.options?.(values),
    };
    const connected = (await connect(ctx, face)) as C;
    const progress = face.reportsProgress ? progressReporter(io.stderr, face.label) : undefined;
    const stopWatch = watchSilence(
      io.stderr,
      face.label,
      (connected as { session?: CloudforetSession }).session,
    );
    const result = await face
      .run(
        {
          log: ctx.log,
          runId: undefined,
          concurrency: ctx.concurrency,
          signal: ctx.signal,
          onProgress: progress?.update,
          say: (line) => io.stdout.write(`${line}\n`),
          ...connected,
        },
        request,
      )
      .finally(stopWatch);
    progress?.done();
    if (values.json)
      io.stdout.write(`${JSON.stringify(face.json ? face.json(result, connected) : result)}\n`);
    else {
      const lines = face.describe(result, connected);
      if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
    }
    return face.failure?.(result) === undefined ? 0 : 1;
  };
}

/** The adapters the face needs, from the command's options: the sink first, announced for an export. */
async function connect(
  ctx: CommandContext,
  face: Face<{ readonly sink: Sink }, unknown, unknown>,
): Promise<{ readonly sink: Sink; readonly session?: CloudforetSession }> {
  // A probe opens its session first: the secret is the first thing check reports.
  if (face.needs === 'probe') {
    const session = await ctx.openSession({ probe: true });
    return { session, sink: ctx.openSink() };
  }
  const sink = ctx.openSink();
  if (face.reportsProgress) announceDestination(ctx.io.stderr, face.label, sink.location);
  if (face.needs === 'sink') return { sink };
  return { session: await ctx.openSession(), sink };
}
