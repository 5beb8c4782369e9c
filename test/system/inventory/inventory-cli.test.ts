// `cloudforet-export inventory` into a local directory, against the simulator.
import { access, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { fakeIo } from '../../support/fake-io.ts';

describe('cloudforet-export inventory', () => {
  let simulator: Simulator;
  let dir: string;
  let secretFile: string;

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 44, cloudServices: 300 });
    dir = await mkdtemp(join(tmpdir(), 'inventory-cli-'));
    secretFile = join(dir, 'app.json');
    await writeFile(secretFile, simulator.issueToken());
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  const args = (out: string, ...more: string[]) => [
    'inventory',
    '--endpoint',
    simulator.url,
    '--secret-file',
    secretFile,
    '--out',
    out,
    ...more,
  ];

  it('snapshots every table into the directory and prints the summary as JSON', async () => {
    const io = fakeIo();
    const out = join(dir, 'out');

    const today = utcDay(new Date());

    const code = await main(args(out, '--snapshot-date', today, '--json'), {}, io);
    const summary = JSON.parse(io.out());
    const { rows } = await queryDuckDB(
      `SELECT count(*) AS n FROM read_parquet('${out}/cloud_services/snapshot_date=${today}/domain.parquet')`,
    );

    expect(code).toBe(0);
    expect(summary).toMatchObject({
      snapshotDate: today,
      scope: `domain ${simulator.domainId}`,
      failed: 0,
    });
    expect(Object.keys(summary.tables)).toEqual([
      'cloud_services',
      'regions',
      'data_sources',
      'data_source_accounts',
      'workspaces',
      'project_groups',
      'projects',
      'service_accounts',
      'trusted_accounts',
      'providers',
      'budgets',
      'budget_usage',
    ]);
    expect(Number(rows[0]!.n)).toBe([...simulator.cloudServiceTruth().values()].reduce((a, b) => a + b, 0));
    expect((await readdir(join(out, '_manifests'))).sort()).toEqual(Object.keys(summary.tables).sort());
  });

  it('claims the destination only after Cloudforet answered: a secret it refuses leaves the folder empty', async () => {
    const refused = join(dir, 'refused.json');
    await writeFile(refused, simulator.issueToken({ badSignature: true }));
    const out = join(dir, 'refused-out');
    const io = fakeIo();

    const code = await main(
      ['inventory', '--endpoint', simulator.url, '--secret-file', refused, '--out', out],
      {},
      io,
    );

    expect(code).toBe(2);
    expect(io.err()).toMatch(/^cloudforet-export: cloudforet: 401 ERROR_AUTHENTICATE_FAILURE/m);
    expect(await readdir(out).catch(() => [])).toEqual([]);
    // The run that Cloudforet answered claimed its destination (the check above can fail).
    expect(await readdir(join(dir, 'out'))).toContain('_destination.json');
  });

  it('adds inactive cloud services with --include-inactive and says so', async () => {
    const io = fakeIo();

    const code = await main(args(join(dir, 'all'), '--include-inactive'), {}, io);

    const total = [...simulator.cloudServiceTruth({ includeInactive: true }).values()].reduce(
      (a, b) => a + b,
      0,
    );
    expect(code).toBe(0);
    expect(io.out()).toContain('inactive included');
    expect(io.out()).toContain(`cloud_services: written, ${total} rows`);
  });

  it('refuses a costs option with exit code 2, naming it', async () => {
    const io = fakeIo();

    const code = await main(args(join(dir, 'x'), '--date', '2026-05-10'), {}, io);

    expect(code).toBe(2);
    expect(io.err()).toContain("--date is not an option of 'inventory'");
  });

  it('refuses a bad --snapshot-date as bad usage (exit 2), naming the flag and the event error code', async () => {
    const io = fakeIo();

    const code = await main(args(join(dir, 'x'), '--snapshot-date', '10/05/2026'), {}, io);

    expect(code).toBe(2);
    expect(io.err()).toContain('--snapshot-date must be a date as YYYY-MM-DD');
    expect(io.err()).toContain('[EVENT_BAD_DATE]');
  });

  it('refuses --snapshot-date yesterday with exit 2, saying why, and writes nothing', async () => {
    const io = fakeIo();
    const out = join(dir, 'yesterday');
    simulator.resetRequestLog();

    const code = await main(args(out, '--snapshot-date', addDays(utcDay(new Date()), -1)), {}, io);

    expect(code).toBe(2);
    expect(io.err()).toMatch(
      /--snapshot-date \d{4}-\d\d-\d\d is not today \(.*\): Cloudforet lists its inventory only as it is now.*\[EVENT_SNAPSHOT_NOT_TODAY\]/,
    );
    await expect(access(out)).rejects.toThrow(/ENOENT/);
    expect(simulator.requests).toEqual([]);
  });

  it('exits 1 and prints the failed table when Cloudforet refuses a list', async () => {
    const io = fakeIo();
    simulator.injectFault({ path: '/cost-analysis/data-source/list', kind: '401' });

    const code = await main(args(join(dir, 'fail')), {}, io);

    expect(code).toBe(1);
    expect(io.out()).toContain('FAILED data_sources');
  });
});
