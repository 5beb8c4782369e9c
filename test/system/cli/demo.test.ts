// npm start, as a newcomer runs it: the demo script end to end in its own process.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('npm start (tools/demo.ts)', () => {
  let out: string;
  let stdout: string;
  beforeAll(async () => {
    out = join(await mkdtemp(join(tmpdir(), 'demo-')), 'export-out');
    ({ stdout } = await run(process.execPath, ['--import', 'tsx', 'tools/demo.ts', out], {
      cwd: new URL('../../..', import.meta.url),
      timeout: 60_000,
    }));
  });
  afterAll(async () => {
    await rm(join(out, '..'), { recursive: true, force: true });
  });

  it('exports a week of costs and an inventory snapshot, all units written', async () => {
    const costDays = await readdir(join(out, 'costs'));

    expect(costDays).toHaveLength(7);
    expect(stdout).toMatch(
      /3 data sources: 21 units \(data source × day\) planned: 21 written, 0 empty, 0 kept, 0 failed; 0 unchanged/,
    );
    expect(stdout).toMatch(/cloud_services: written, \d+ rows/);
    expect(stdout).toMatch(/data_source_accounts: written, \d+ rows/);
  });

  it('prints both DuckDB tables over the files it wrote', () => {
    expect(stdout).toContain('cost per day per provider');
    expect(stdout).toMatch(/│ 'aws'\s+│ 'USD'/);
    expect(stdout).toContain('resources per provider and type in the latest snapshot');
    expect(stdout).toContain("'EC2/Instance'");
  });

  it('prints cost by workspace and project name through the costs_named view', () => {
    const table = stdout.slice(stdout.indexOf('cost by workspace and project name'));

    expect(table).toMatch(/│ 'Platform'\s+│ 'Core'\s+│ 'USD'\s+│ \d/);
    expect(table).toContain(`'Données & Analytics / "Σ"'`);
  });

  it('prints month-to-date spend in USD by provider, KRW sources converted', () => {
    const table = stdout.slice(stdout.indexOf('month-to-date spend in USD by provider'));

    expect(table).toMatch(/│ 'aws'\s+│ 'USD'\s+│ \d+(\.\d+)?\s+│ \d+(\.\d+)?\s+│ false/);
    expect(table).toMatch(/│ 'google_cloud'\s+│ 'KRW'\s+│ \d+(\.\d+)?\s+│ \d+(\.\d+)?\s+│ false/);
  });

  it("matches the README's sample output line by line, numbers, dates, paths and widths aside", async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('```\nCloudforet simulator at') + 4;
    const sample = readme.slice(start, readme.indexOf('\n```', start));
    // The sample abridges the one long table (cost per day); every other line is the demo's.
    const abridged = /\ncost per day per provider[^\n]*\n[\s\S]*?\n└[^\n]*/;
    const shape = (text: string) =>
      text
        .trimEnd()
        .replace(abridged, '\nCOST PER DAY')
        .replace(/\S*export-out/g, 'OUT')
        .replace(/https?:\/\/\S+?(?=;)/g, 'URL')
        .replace(/[0-9a-f]{12}/g, 'ID')
        .replace(/\d[\d,.-]*/g, 'N')
        .replace(/─+/g, '─')
        .replace(/ +/g, ' ')
        .split('\n');

    expect(shape(sample)).toEqual(shape(stdout));
  });

  it('says why the FOCUS BilledCost can be lower than cost (the invoiced basis)', () => {
    expect(stdout).toMatch(/│ 'Azure'\s+│ 'Usage'\s+│ 'USD'\s+│ 'actual'/);
    expect(stdout).toContain('BilledCost is the invoiced charge');
  });
});
