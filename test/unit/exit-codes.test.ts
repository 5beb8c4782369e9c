// The exit codes have one table, in docs/cli.md: its classes are the ones the CLI's help gives,
// and every test it names exists.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../cli/usage.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function table(): Promise<{ exit: number; tests: string[] }[]> {
  const text = await readFile(`${root}docs/cli.md`, 'utf8');
  return [...text.matchAll(/^ {2}\| (\d+) \|([^\n]*)$/gm)].map(([, exit, rest]) => ({
    exit: Number(exit),
    tests: [...rest!.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1]!),
  }));
}

describe('exit codes', () => {
  it('are 0, 1, 2, 130 and 143 in docs/cli.md, each with a test that exists', async () => {
    const rows = await table();

    expect(rows.map((r) => r.exit)).toEqual([0, 1, 2, 130, 143]);
    for (const row of rows) {
      expect(row.tests.length, `exit ${row.exit} names a test`).toBeGreaterThan(0);
      expect(row.tests.filter((t) => !existsSync(`${root}${t}`))).toEqual([]);
    }
  });

  it("are the ones every command's help gives", async () => {
    const said = [...EXIT_CODES.matchAll(/\b(0|1|2|130|143)\b(?= (?:every|a unit|bad|\/|stopped))/g)].map(
      (m) => Number(m[1]),
    );

    expect(new Set(said)).toEqual(new Set((await table()).map((r) => r.exit)));
  });
});
