// Bad CLI input, generated from the CLI's own option lists (cli/main.ts ownOptions,
// cli/command-context.ts options) so a new command or option is in the table without a line here:
// every row exits 2 (usage), prints one first line that names a code in brackets, no stack trace,
// nothing on stdout, and makes no request (the endpoint is a closed loopback port, so a row that
// slipped through to a request would fail with another code, CLOUDFORET_NETWORK).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { options } from '../cli/command-context.ts';
import { main, ownOptions, readsDestinationOnly } from '../cli/main.ts';
import { fakeIo } from './support/fake-io.ts';
import { consoleAppJson, makeTestToken } from '../harness/tokens.ts';

type Command = keyof typeof ownOptions;
const COMMANDS = Object.keys(ownOptions) as Command[];
/** Options every command that talks to Cloudforet takes. */
const CONNECTION = [
  'endpoint',
  'secret-file',
  'secret-id',
  'out',
  'timeout',
  'give-up-after',
  'max-answer-mb',
];
const isString = (name: string) => (options as Record<string, { type: string }>)[name]?.type === 'string';
/** Values no string option accepts. */
const GARBAGE: Record<string, readonly string[]> = {
  date: ['2026-13-45', 'yesterday', ''],
  from: ['2026-02-30', '20260101'],
  to: ['2026-00-10', 'now'],
  'snapshot-date': ['2026-99-01', 'today'],
  month: ['2026-13', '26-01', ''],
  currency: ['EUR', 'usd', ''],
  concurrency: ['0', '-3', '1.5', 'many', '1e309'],
  timeout: ['0', '-1', 'ten', '1e309'],
  'give-up-after': ['0', '-5', 'soon'],
  'max-answer-mb': ['0', '-1', 'big'],
  'data-source': [''],
  endpoint: ['', 'ftp://127.0.0.1:9', 'http://'],
};

// Named before the rows are built (at collection time), made before the first row runs.
const dir = join(tmpdir(), `bad-input-matrix-${process.pid}-${Date.now()}`);
const secretFile = join(dir, 'app.json');

beforeAll(async () => {
  await mkdir(dir, { recursive: true });
  await writeFile(secretFile, consoleAppJson(makeTestToken()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A well-formed command line for the command: what each row then breaks in one place. */
function base(command: Command): string[] {
  const out = ['--out', join(dir, 'out')];
  return readsDestinationOnly.has(command)
    ? [command, ...out]
    : [command, '--endpoint', 'http://127.0.0.1:9', '--secret-file', secretFile, ...out];
}

function rows(): Array<[string, string[]]> {
  const table: Array<[string, string[]]> = [];
  for (const command of COMMANDS) {
    const own = ownOptions[command] as readonly string[];
    const takes = readsDestinationOnly.has(command) ? [...own, 'out'] : [...own, ...CONNECTION];
    table.push([`${command}: an unknown option`, [...base(command), '--nope']]);
    table.push([`${command}: a stray argument`, [...base(command), 'stray']]);
    table.push([`${command}: a misspelt option`, [...base(command), `--${takes[0] ?? 'out'}x`, '1']]);
    for (const name of takes.filter(isString)) {
      table.push([`${command}: --${name} with no value`, [...base(command), `--${name}`]]);
      for (const value of GARBAGE[name] ?? [])
        table.push([`${command}: --${name} '${value}'`, [...base(command), `--${name}=${value}`]]);
    }
    for (const name of takes.filter((n) => !isString(n)))
      table.push([`${command}: --${name} given a value`, [...base(command), `--${name}=yes`]]);
    // Connection options are every command's (see --help); an option of another command is not.
    const foreign = Object.values(ownOptions)
      .flat()
      .find((n) => !own.includes(n) && isString(n));
    if (foreign)
      table.push([
        `${command}: --${foreign}, an option of another command`,
        [...base(command), `--${foreign}`, 'x'],
      ]);
  }
  table.push(['an unknown command', ['export', '--out', dir]]);
  return table;
}

describe('bad CLI input, generated from the option lists', () => {
  it('no command at all: the usage, exit 2', async () => {
    const io = fakeIo();

    const code = await main(['--out', dir], {}, io);

    expect(code).toBe(2);
    expect(io.out()).toMatch(/^Usage: cloudforet-export COMMAND \[options\]/);
  });

  const table = rows();

  it('holds at least 100 rows', () => {
    expect(table.length).toBeGreaterThanOrEqual(100);
  });

  it.each(table)('%s: exit 2, one line with a code, no stack, no request', async (_, argv) => {
    const io = fakeIo();

    const code = await main(argv, {}, io);

    const first = io.err().split('\n')[0] ?? '';
    expect(code).toBe(2);
    expect(first).toMatch(/\[[A-Z][A-Z0-9_]+\]$/);
    expect(first).not.toMatch(/CLOUDFORET_NETWORK|UNEXPECTED/);
    expect(io.err()).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
    expect(io.out()).toBe('');
  });
});
