// What a source file reaches through its imports, read from the text: relative imports are
// followed (they all spell the file's own extension), packages and node: modules are leaves.
// Small and synchronous on purpose: the unit tier's guard runs it on every unit file, where a
// dependency-cruiser pass over the whole tree would take seconds.
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

/**
 * Static imports, re-exports, side-effect imports and `import('…')` with a literal specifier.
 * Group 1 is `type ` on a type-only import, which is erased and so runs nothing.
 */
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\s+(type\s)?[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers one file's text names, type-only imports left out. */
export function specifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].filter((m) => m[1] === undefined).map((m) => (m[2] ?? m[3] ?? m[4])!);
}

/** A package's name without its subpath, builtins spelt with node:: 'node:fs', 'aws-cdk-lib'. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return isBuiltin(name) && !name.startsWith('node:') ? `node:${name}` : name;
}

export interface Reach {
  /** Repository files reached, relative to the root, the start included. */
  readonly files: ReadonlySet<string>;
  /** Packages and node: modules reached, with the first repository file that imports each. */
  readonly packages: ReadonlyMap<string, string>;
}

/** Every repository file and package that `start` (relative to `root`) reaches. */
export function reach(root: string, start: string): Reach {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const pending = [start];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(resolve(root, file), 'utf8');
    for (const specifier of specifiers(text)) {
      if (!specifier.startsWith('.')) {
        const name = packageName(specifier);
        if (!packages.has(name)) packages.set(name, file);
        continue;
      }
      const target = resolve(root, dirname(file), specifier);
      if (!existsSync(target)) throw new Error(`${file} imports ${specifier}, which does not exist`);
      pending.push(relative(root, target));
    }
  }
  return { files, packages };
}
