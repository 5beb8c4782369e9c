// Each command's help says what every one of its options does, and its default where it has one.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { options } from '../../cli/command-context.ts';
import { main, ownOptions, readsDestinationOnly } from '../../cli/main.ts';
import { type CommandName, commandNames, commandUsage } from '../../cli/usage.ts';
import { inventoryTables } from '../../functions/lib/tables/inventory.ts';
import { fakeIo } from '../support/fake-io.ts';

const CONNECTION = [
  'endpoint',
  'secret-file',
  'secret-id',
  'timeout',
  'give-up-after',
  'max-answer-mb',
  'allow-insecure-http',
  'out',
  'tenant',
];

/** The shared options a command takes: a command that reads the destination only takes --out and --tenant. */
const connection = (command: CommandName) =>
  readsDestinationOnly.has(command) ? ['out', 'tenant'] : CONNECTION;

async function help(command: CommandName): Promise<string> {
  const io = fakeIo();
  expect(await main([command, '--help'], {}, io)).toBe(0);
  return io.out();
}

/** The option's line in the help: its name, a value if it takes one, then words saying what it does. */
const described = (text: string, name: string) =>
  new RegExp(`^  --${name}\\b[^\\n]*? {2,}\\S+( \\S+){2,}`, 'm').test(text);

describe('per-command help', () => {
  it.each(commandNames)('%s --help describes every option it takes', async (command) => {
    const text = await help(command);

    const undescribed = [...ownOptions[command], ...connection(command)].filter((n) => !described(text, n));
    expect(undescribed).toEqual([]);
  });

  it.each(commandNames)('%s --help gives the default of every option with a value', async (command) => {
    const text = await help(command);
    const valued = [...ownOptions[command], ...connection(command)].filter(
      (n) =>
        options[n as keyof typeof options].type === 'string' &&
        !['date', 'from', 'to', 'endpoint', 'secret-file', 'secret-id', 'out', 'month'].includes(n),
    );

    const lines = valued.map((n) => text.split('\n').find((l) => l.startsWith(`  --${n}`)) ?? `--${n}: none`);
    expect(lines.filter((l) => !l.includes('default'))).toEqual([]);
  });

  it('inventory --help names every table it writes, identity and budgets included', async () => {
    const text = (await help('inventory')).replace(/\n/g, ' ');

    expect(inventoryTables.map((t) => t.name).filter((n) => !text.includes(n))).toEqual([]);
    expect(text).toContain('workspaces');
    expect(text).toContain('budget_usage');
  });
});

describe('docs/cli.md', () => {
  /** The fenced blocks of docs/cli.md, without their fences. */
  async function blocks(): Promise<string[]> {
    const text = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    return [...text.matchAll(/^```\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  }

  /** A command's synopsis: the first line of its help and the lines that continue it. */
  const synopsis = (command: CommandName) => {
    const [first, ...rest] = commandUsage[command].split('\n');
    const more = rest.slice(
      0,
      rest.findIndex((l) => !l.startsWith(' ')),
    );
    return [first, ...more].join('\n');
  };

  it('shows the usage exactly as --help prints it', async () => {
    const io = fakeIo();

    expect(await main(['--help'], {}, io)).toBe(0);

    expect(await blocks()).toContain(io.out());
  });

  it("shows every command's synopsis exactly as its --help begins", async () => {
    const expected = `${commandNames.map(synopsis).join('\n')}\n`;

    expect(await blocks()).toContain(expected);
  });
});
