// What the CLI prints goes through the one redactor (functions/lib/redact/redact.ts): summaries, --json,
// progress, warnings and error lines alike, so no command can print the client_secret back.
import { redact } from '../functions/lib/faces/edge.ts';
import type { CliIo } from './command-context.ts';

export function redactingIo(io: CliIo): CliIo {
  return { stdout: redacting(io.stdout), stderr: redacting(io.stderr) };
}

/** The stream with every write redacted; commands use write and isTTY only. */
function redacting(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean).call(stream, redact(textOf(chunk)), ...rest);
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write,
  } as unknown as NodeJS.WriteStream;
}

const textOf = (chunk: unknown): string =>
  chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk);
