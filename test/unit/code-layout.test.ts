// docs/code-layout.md matches the tree: every top-level folder and every folder under
// functions/lib is in its map, every folder the map names exists, and the runtime files at the
// top of functions/lib are each named.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Folders that are not the project's: installed, built or written by a run (.gitignore). */
const NOT_OURS = new Set(['node_modules', 'cdk.out', 'export-out', 'coverage']);

interface Entry {
  /** The folder, from the root, with a trailing slash. */
  readonly folder: string;
  /** Its line and the description lines under it. */
  readonly text: string;
}

/** The folders the map (the first fenced block) names, each with its description. */
function mapEntries(doc: string): Entry[] {
  const block = /```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const entries: { folder: string; lines: string[] }[] = [];
  const parents: string[] = [];
  for (const line of block.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^( {0,6})(\S+\/)(\s|$)/.exec(line);
    if (!m) {
      entries.at(-1)?.lines.push(line);
      continue;
    }
    const depth = m[1]!.length / 2;
    parents.length = depth;
    const folder = `${parents.join('')}${m[2]}`;
    parents.push(m[2]!);
    entries.push({ folder, lines: [line] });
  }
  return entries.map((e) => ({ folder: e.folder, text: e.lines.join('\n') }));
}

/** Folders under `folder` (from the root), at every depth. */
function foldersUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => [`${folder}${d.name}/`, ...foldersUnder(`${folder}${d.name}/`)]);
}

const doc = readFileSync(join(root, 'docs/code-layout.md'), 'utf8');
const entries = mapEntries(doc);
const named = new Set(entries.map((e) => e.folder));

describe('docs/code-layout.md', () => {
  it('names every top-level folder (functions/ by functions/lib/)', () => {
    const top = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith('.') && !NOT_OURS.has(d.name))
      .map((d) => `${d.name}/`);

    const mapped = (f: string) => [...named].some((n) => n.startsWith(f));

    expect(top.filter((f) => !mapped(f))).toEqual([]);
  });

  it('names every folder under functions/lib', () => {
    expect(foldersUnder('functions/lib/').filter((f) => !named.has(f))).toEqual([]);
  });

  it('names only folders that exist', () => {
    const gone = [...named].filter(
      (f) => !existsSync(join(root, f)) || !statSync(join(root, f)).isDirectory(),
    );

    expect(gone).toEqual([]);
  });

  it('names every runtime file at the top of functions/lib', () => {
    const runtime = entries.find((e) => e.folder === 'functions/lib/')?.text ?? '';
    const files = readdirSync(join(root, 'functions/lib')).filter((f) => f.endsWith('.ts'));

    expect(files.map((f) => f.slice(0, -3)).filter((name) => !runtime.includes(name))).toEqual([]);
  });

  it('keeps at most 12 files directly in functions/lib, as the layout asks', () => {
    const loose = readdirSync(join(root, 'functions/lib')).filter((f) => f.endsWith('.ts'));

    expect(loose.length, loose.join(' ')).toBeLessThanOrEqual(12);
  });

  it('states the order of tools/import-layers.cjs, bottom first', () => {
    const { LEVELS } = createRequire(import.meta.url)('../../tools/import-layers.cjs') as {
      LEVELS: { name: string }[][];
    };
    const order = LEVELS.map((level) => level.map((layer) => layer.name).join(', ')).join(' <- ');

    expect(doc).toContain(`\n${order}\n`);
  });
});

describe('the map reader', () => {
  it('puts indented folders under the last folder above them, and keeps their descriptions', () => {
    const text = [
      '```',
      'functions/lib/   the runtime:',
      '                 config',
      '  costs/         the run',
      '    days/        one day',
      'cli/             the CLI',
      '```',
    ].join('\n');

    expect(mapEntries(text)).toEqual([
      { folder: 'functions/lib/', text: 'functions/lib/   the runtime:\n                 config' },
      { folder: 'functions/lib/costs/', text: '  costs/         the run' },
      { folder: 'functions/lib/costs/days/', text: '    days/        one day' },
      { folder: 'cli/', text: 'cli/             the CLI' },
    ]);
  });
});
