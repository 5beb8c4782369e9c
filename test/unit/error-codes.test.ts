// Every error code is declared once, in functions/lib/error-codes.ts, with its meaning and whether
// it is retried; docs/errors.md is generated from it. A code spelt at a throw site in functions/
// or cli/ but missing from the catalogue fails here, and so does a catalogued code nothing gives.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredCodes } from '../../functions/lib/error-codes.ts';
import { ERROR_DOCS_FILE, errorDocs } from '../../tools/error-docs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where a code is spelt: a named error's first argument, a failure's `code:`, a constant, any EVENT_ literal. */
const CODE_SITES: readonly RegExp[] = [
  /new \w*Error\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /super\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /\bcode: '([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g,
  /\bconst [A-Z][A-Z0-9_]* = '([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g,
  /'(EVENT_[A-Z0-9_]+)'/g,
];

/** The codes one file's text spells. */
function codeLiterals(text: string): string[] {
  return [...new Set(CODE_SITES.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!)))];
}

/** Every .ts file under the folders, relative to the root. */
function sources(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => relative(root, join(root, folder, f))),
  );
}

const CATALOGUE = 'functions/lib/error-codes.ts';

/** Codes put together from parts, with the part spelt at the site: CloudforetApiError's CLOUDFORET_ + 'NETWORK'. */
const BUILT: Readonly<Record<string, string>> = { CLOUDFORET_NETWORK: 'NETWORK' };

const files = sources('functions', 'cli').map((file) => ({
  file,
  text: readFileSync(join(root, file), 'utf8'),
}));

describe('the error catalogue', () => {
  it('declares every code spelt in functions/ and cli/', () => {
    const declared = declaredCodes();
    const missing = files.flatMap(({ file, text }) =>
      codeLiterals(text)
        .filter((c) => !declared.has(c))
        .map((c) => `${c} (${file})`),
    );

    expect(missing, 'declare each in functions/lib/error-codes.ts, then npm run error-docs').toEqual([]);
  });

  it('declares no code that nothing gives', () => {
    const all = files
      .filter((f) => f.file !== CATALOGUE)
      .map((f) => f.text)
      .join('\n');
    const spelt = (c: string) => all.includes(`'${c}'`) || all.includes(`'${BUILT[c]}'`);

    expect([...declaredCodes()].filter((c) => !spelt(c))).toEqual([]);
  });

  it('is what docs/errors.md says (npm run error-docs)', () => {
    expect(readFileSync(join(root, ERROR_DOCS_FILE), 'utf8')).toBe(errorDocs());
  });
});

describe('the code scan', () => {
  it('finds codes at throw sites spread over lines, in failures, constants and EVENT_ literals', () => {
    const text = [
      'throw new SinkError(',
      "  'SINK_X_FAILED',",
      '  `message`,',
      ');',
      "failures.push({ date, code: 'FOCUS_X', message });",
      "export const X_CODE = 'UNIT_X';",
      "super('RUN_X', message);",
      "flag(fields, 'force', 'EVENT_BAD_X');",
      "if (status !== 'IN_PROGRESS') return;",
    ].join('\n');

    expect(codeLiterals(text).sort()).toEqual(['EVENT_BAD_X', 'FOCUS_X', 'RUN_X', 'SINK_X_FAILED', 'UNIT_X']);
  });
});
