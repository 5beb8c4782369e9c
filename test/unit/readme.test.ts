import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replaceBlock, START, TABLE_DOCS_FILE, tableDocs } from '../../tools/table-docs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every page under docs/, as { file (from the repository root), text }. */
async function documentation(): Promise<{ file: string; text: string }[]> {
  const pages = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  const files = ['README.md', ...pages.map((f) => `docs/${f}`)];
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(join(root, file), 'utf8') })));
}

async function allText(): Promise<string> {
  return (await documentation()).map((d) => d.text).join('\n');
}

/** The text without fenced code blocks. */
function unfenced(text: string): string {
  return text.replace(/^ *```[^\n]*\n[\s\S]*?^ *```[^\n]*$/gm, '');
}

/** The text without fenced code blocks and inline code spans. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a page's headings (duplicates get -1, -2, …). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of unfenced(text).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('README', () => {
  it('documents every table column as the column lists define it (run npx tsx tools/table-docs.ts)', async () => {
    const tables = await readFile(join(root, TABLE_DOCS_FILE), 'utf8');
    const readme = await readFile(join(root, 'README.md'), 'utf8');

    expect(tables).toContain(START);
    expect(replaceBlock(tables, tableDocs())).toBe(tables);
    expect(readme).not.toContain(START);
  });

  it('shows the two commands a newcomer runs, and CI runs the README test command', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const ci = await readFile(new URL('../../.ci/run', import.meta.url), 'utf8');

    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    expect(ci).toContain('tools/with-node24.sh');
    expect(ci).toContain('npm ci && npm test');
  });

  it("shows a sample output whose dates agree with each other, as one real run's do", async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const start = readme.indexOf('```\nCloudforet simulator at');
    const sample = readme.slice(start, readme.indexOf('\n```\n', start + 4));
    const [, from, to] = /exporting (\d{4}-\d\d-\d\d)\.\.(\d{4}-\d\d-\d\d) into/.exec(sample)!;
    const snapshot = /^inventory snapshot (\d{4}-\d\d-\d\d) /m.exec(sample)![1]!;
    const table = (title: string) =>
      sample.slice(sample.indexOf(title), sample.indexOf('└', sample.indexOf(title)));

    const billed = [...table('cost per day per provider').matchAll(/'(\d{4}-\d\d-\d\d)'/g)].map((m) => m[1]!);
    const snapshots = [...table('resources per provider and type').matchAll(/'(\d{4}-\d\d-\d\d)'/g)];

    expect(sample).toContain(`\ncosts ${from}..${to} (`);
    expect(billed.length).toBeGreaterThan(0);
    expect(billed.filter((d) => d < from! || d > to!)).toEqual([]);
    expect(billed[0]).toBe(from);
    expect(snapshots.map((m) => m[1])).toEqual(snapshots.map(() => snapshot));
    expect(sample).toContain(`month-to-date spend in USD by provider, ${to!.slice(0, 7)} `);
  });

  it('links nothing outside the repository', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');

    expect(readme).not.toMatch(/\.\.\/(shared|[a-z-]+\/)/);
    // Every `../` path in README.md and docs/*.md, resolved from its page, is a file of this repository.
    for (const { file, text } of await documentation()) {
      for (const [path] of text.matchAll(/(?:\.\.\/)+[^\s)`'"#]*/g)) {
        const target = resolve(root, dirname(file), path);
        expect(
          target.startsWith(root) && !relative(root, target).startsWith(`..${sep}`),
          `${file}: ${path}`,
        ).toBe(true);
        expect(existsSync(target), `${file}: ${path} does not exist`).toBe(true);
      }
    }
  });

  it('gives backfill examples of past days only, with the stated range limit', async () => {
    const docs = await allText();
    const today = new Date().toISOString().slice(0, 10);

    const ranges = [...docs.matchAll(/"from": "(\d{4}-\d\d-\d\d)", "to": "(\d{4}-\d\d-\d\d)"/g)];
    const flags = [...docs.matchAll(/--from (\d{4}-\d\d-\d\d) --to (\d{4}-\d\d-\d\d)/g)];

    expect(ranges.length + flags.length).toBeGreaterThanOrEqual(3);
    for (const [, from, to] of [...ranges, ...flags]) {
      expect(to! <= today, `${from}..${to} ends after today`).toBe(true);
      expect(from! <= to!).toBe(true);
    }
  });

  it('names every saved query and the FOCUS table', async () => {
    const docs = await allText();
    const queries = (await readdir(new URL('../../infra/queries/', import.meta.url))).filter((f) =>
      f.endsWith('.sql'),
    );

    expect(queries.length).toBeGreaterThan(0);
    for (const file of queries) expect(docs).toContain(`\`${file.slice(0, -4)}\``);
    expect(docs).toContain('focus_consolidation_cloudforet');
  });

  it('has Troubleshooting, Cost and Uninstall sections, a LICENSE and a CHANGELOG for this version', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const license = await readFile(new URL('../../LICENSE', import.meta.url), 'utf8');
    const changelog = await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));

    for (const section of ['Troubleshooting', 'Cost', 'Uninstall'])
      expect(readme).toContain(`\n## ${section}\n`);
    expect(pkg.license).toBe('Apache-2.0');
    expect(license).toMatch(/^\s+Apache License\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(changelog).toContain(`## [${pkg.version}]`);
  });

  it('keeps README.md to 400 lines, links every docs page, and every relative link reaches its file and heading', async () => {
    const pages = await documentation();
    const readme = pages.find((p) => p.file === 'README.md')!.text;

    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(400);
    for (const { file } of pages.filter((p) => p.file !== 'README.md'))
      expect(readme, `README.md does not link ${file}`).toContain(`](${file})`);

    let links = 0;
    for (const { file, text } of pages) {
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
        links++;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const full = path === '' ? join(root, file) : resolve(root, dirname(file), path);
        expect(existsSync(full), `${file}: ${target} does not exist`).toBe(true);
        if (anchor !== undefined && full.endsWith('.md'))
          expect(
            anchors(await readFile(full, 'utf8')).has(anchor),
            `${file}: ${target} has no such heading`,
          ).toBe(true);
      }
    }
    expect(links).toBeGreaterThan(pages.length);
  });
});
