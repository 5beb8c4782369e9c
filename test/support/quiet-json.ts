// A vitest setup file: JSON lines written to stdout or stderr (the Lambda logger's lines, EMF
// metric lines) are held per test instead of printed, so a green run prints none; a failed test
// prints its held lines after it, for debugging. Tests that assert lines capture them themselves
// (a logger's `write`, or a spy on process.stdout.write, which sees every line first).
import { afterEach, beforeEach } from 'vitest';

const held: string[] = [];

function holdJsonLines(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (isJsonLines(chunk)) {
      held.push(String(chunk));
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

function isJsonLines(chunk: unknown): boolean {
  if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return false;
  const lines = String(chunk)
    .split('\n')
    .filter((l) => l !== '');
  return lines.length > 0 && lines.every((l) => l.startsWith('{"') && l.endsWith('}'));
}

holdJsonLines(process.stdout);
holdJsonLines(process.stderr);

beforeEach(() => {
  held.length = 0;
});
afterEach((context) => {
  if (context.task.result?.state === 'fail' && held.length > 0) {
    process.stderr.write(`-- ${held.length} JSON lines held during '${context.task.name}':\n`);
    for (const chunk of held) process.stderr.write(chunk.replace(/^\{"/gm, ' {"'));
  }
  held.length = 0;
});
