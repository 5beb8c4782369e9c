// The CLI runs the use cases the Lambdas run, through their faces: every import a cli/*.ts file
// makes of functions/lib/ is on the one list of faces (tools/import-layers.cjs CLI_FACES), the
// use cases both entries run (costs, inventory, statements) are imported by a Lambda entry and a
// command alike, and each of those Lambda entries is its face through lambdaFace, one line.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { CLI_FACES } = createRequire(import.meta.url)('../../tools/import-layers.cjs') as {
  CLI_FACES: string[];
};

/** The modules of functions/lib/ a file imports, from the root. */
function libImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)/g)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))
    .filter((path) => path.startsWith('functions/lib/'));
}

const tsFiles = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${folder}/${f}`);

const cliImports = tsFiles('cli').flatMap((file) => libImports(file).map((path) => ({ file, path })));

describe('the CLI and the faces', () => {
  it('imports nothing of functions/lib but the faces on the list', () => {
    expect(cliImports.filter((i) => !CLI_FACES.includes(i.path))).toEqual([]);
  });

  it('lists only faces that exist and that the CLI uses', () => {
    const used = new Set(cliImports.map((i) => i.path));

    expect(CLI_FACES.filter((path) => !used.has(path))).toEqual([]);
  });

  it.each([
    ['costs', 'functions/cost-export.ts', 'cli/costs-command.ts'],
    ['inventory', 'functions/inventory-export.ts', 'cli/inventory-command.ts'],
    ['statements', 'functions/statements.ts', 'cli/statements-command.ts'],
  ])('runs the %s face from the Lambda and the command alike', (name, lambda, command) => {
    const face = `functions/lib/faces/${name}.ts`;

    expect(libImports(lambda)).toContain(face);
    expect(libImports(command)).toContain(face);
    expect(readFileSync(join(root, lambda), 'utf8')).toMatch(
      new RegExp(`export const handler = lambdaEntry\\('[a-z-]+', lambdaFace\\(${name}\\)\\);`),
    );
    expect(readFileSync(join(root, command), 'utf8')).toMatch(new RegExp(`= cliEntry\\(${name}\\b`));
  });

  it('reads the imports of a file, relative ones resolved from the root', () => {
    expect(libImports('cli/costs-command.ts')).toEqual(['functions/lib/faces/costs.ts']);
  });
});
