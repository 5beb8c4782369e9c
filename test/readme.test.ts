import { readFile } from 'node:fs/promises';
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
});
