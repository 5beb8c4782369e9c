// Stand-in stdout/stderr for calling the CLI's main() in process.
import type { CliIo } from '../../cli/command-context.ts';

export function fakeIo(): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const stream = (sink: string[]) =>
    ({
      isTTY: false,
      write: (chunk: string) => sink.push(String(chunk)) > 0,
    }) as unknown as NodeJS.WriteStream;
  return { stdout: stream(out), stderr: stream(err), out: () => out.join(''), err: () => err.join('') };
}
