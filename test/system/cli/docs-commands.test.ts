// The commands the README and the docs print are the product's: every `npm run X` is a script,
// every events/ and tools/ file they name exists, and every concrete CLI command line (one with
// no placeholder such as DIR or YYYY-MM-DD) parses as the CLI parses it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { fakeIo } from '../../support/fake-io.ts';

const ROOT = new URL('../../..', import.meta.url);
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const TEXT = DOCS.map((path) => readFileSync(new URL(path, ROOT), 'utf8')).join('\n');
const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: object }).scripts,
);

/** CLI command lines, in code blocks or in backticks, without the launcher. */
function cliLines(): string[] {
  const launcher =
    /(?:npm run (?:-s )?cli -- |npx cloudforet-export |^\s*cloudforet-export |`cloudforet-export )([^`\n]*)/gm;
  return [...TEXT.matchAll(launcher)].map((m) => m[1]!.replace(/\s*…\s*$/, '').trim());
}

const PLACEHOLDER = /[[\]()|<>…]|\b[A-Z][A-Z_-]{1,}\b|YYYY/;

describe('the commands the docs print', () => {
  it('name npm scripts that exist', () => {
    const named = new Set([...TEXT.matchAll(/npm run (?:-s )?([a-z][a-z:-]*)/g)].map((m) => m[1]!));

    expect([...named].filter((name) => !SCRIPTS.includes(name))).toEqual([]);
  });

  it('name files of events/ and tools/ that exist', () => {
    const files = new Set(
      [...TEXT.matchAll(/\b(?:events|tools)\/[\w./-]+\.(?:json|ts|sh|cjs|mjs)\b/g)].map((m) => m[0]),
    );

    expect([...files].filter((path) => !existsSync(new URL(path, ROOT)))).toEqual([]);
  });

  it('parse as the CLI parses them, where they name no placeholder', async () => {
    const concrete = cliLines().filter((line) => line !== '' && !PLACEHOLDER.test(line));
    const refused: string[] = [];

    for (const line of concrete) {
      const io = fakeIo();
      const argv = line.split(/\s+/);
      // --help stops after the parse: nothing is run, the options are checked all the same.
      const exit = await main(argv.includes('--help') ? argv : [...argv, '--help'], {}, io);
      if (exit !== 0) refused.push(`${line}: ${io.err().trim()}`);
    }

    expect(concrete.length).toBeGreaterThanOrEqual(3);
    expect(refused).toEqual([]);
  });
});
