import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { replaceBlock, START, tableDocs } from '../tools/table-docs.ts';

describe('README', () => {
  it('documents every table column as the column lists define it (run npx tsx tools/table-docs.ts)', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');

    expect(readme).toContain(START);
    expect(replaceBlock(readme, tableDocs())).toBe(readme);
  });

  it('shows the two commands a newcomer runs, and CI runs the README test command', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const ci = await readFile(new URL('../.ci/run', import.meta.url), 'utf8');

    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    expect(ci).toContain('tools/with-node24.sh');
    expect(ci).toContain('npm ci && npm test');
  });

  it('links nothing outside the repository', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');

    expect(readme).not.toMatch(/\.\.\/(shared|[a-z-]+\/)/);
  });

  it('gives backfill examples of past days only, with the stated range limit', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const today = new Date().toISOString().slice(0, 10);

    const ranges = [...readme.matchAll(/"from": "(\d{4}-\d\d-\d\d)", "to": "(\d{4}-\d\d-\d\d)"/g)];
    const flags = [...readme.matchAll(/--from (\d{4}-\d\d-\d\d) --to (\d{4}-\d\d-\d\d)/g)];

    expect(ranges.length + flags.length).toBeGreaterThanOrEqual(3);
    for (const [, from, to] of [...ranges, ...flags]) {
      expect(to! <= today, `${from}..${to} ends after today`).toBe(true);
      expect(from! <= to!).toBe(true);
    }
  });

  it('names every saved query and the FOCUS view', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const queries = (await readdir(new URL('../infra/queries/', import.meta.url))).filter((f) =>
      f.endsWith('.sql'),
    );

    expect(queries.length).toBeGreaterThan(0);
    for (const file of queries) expect(readme).toContain(`\`${file.slice(0, -4)}\``);
    expect(readme).toContain('focus_costs');
  });

  it('has Troubleshooting, Cost and Uninstall sections, a LICENSE and a CHANGELOG for this version', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const license = await readFile(new URL('../LICENSE', import.meta.url), 'utf8');
    const changelog = await readFile(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

    for (const section of ['Troubleshooting', 'Cost', 'Uninstall'])
      expect(readme).toContain(`\n## ${section}\n`);
    expect(pkg.license).toBe('Apache-2.0');
    expect(license).toMatch(/^\s+Apache License\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(changelog).toContain(`## [${pkg.version}]`);
  });
});
