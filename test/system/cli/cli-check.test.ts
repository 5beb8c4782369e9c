// `cloudforet-export check` and the destination line: what a first run needs, verified without
// exporting, and where the data of a real run goes, said before it starts.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { listKeys } from '../../../harness/s3-server.ts';
import { consoleAppJson, makeTestToken } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

const YESTERDAY = addDays(utcDay(new Date()), -1);

let local: LocalAws;
let work: string;
let secretFile: string;

async function run(argv: string[]) {
  const io = fakeIo();
  const restore = local.applyEnv();
  const exit = await main(argv, {}, io).finally(restore);
  return { exit, out: io.out(), err: io.err() };
}

const check = (out: string, secret = secretFile) =>
  run(['check', '--endpoint', local.simulator.url, '--secret-file', secret, '--out', out]);

/** Files (not folders) anywhere under dir. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe('cloudforet-export check', () => {
  beforeAll(async () => {
    local = await startLocalAws({ seed: 7, dataSources: 3, from: YESTERDAY, to: YESTERDAY, rowsPerDay: 5 });
    work = await mkdtemp(join(tmpdir(), 'cli-check-'));
    secretFile = join(work, 'app.json');
    await writeFile(secretFile, consoleAppJson(local.token));
  });
  afterAll(async () => {
    await local.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('reports the secret, the data sources seen and a write to a directory, and exports nothing', async () => {
    const dir = join(work, 'out');

    const { exit, out } = await check(dir);

    expect(exit).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^secret {3}ok: file '.*app\.json', domain domain-\w+, role DOMAIN_ADMIN, expires \d{4}-\d\d-\d\d \(in \d+ days\)$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^endpoint ok: ${local.simulator.url} answers; 3 cost data sources visible: ds-`),
    );
    expect(lines[2]).toBe(`output   ok: ${dir} takes a write (a test object, written and removed)`);
    expect(await filesUnder(dir)).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes S3://bucket/prefix in upper case as S3 and leaves no object and no local folder', async () => {
    const { exit, out } = await check(`S3://${BUCKET}/cf`);

    expect(exit).toBe(0);
    expect(out).toContain(`output   ok: s3://${BUCKET}/cf takes a write`);
    expect(await listKeys(local.s3.client, BUCKET)).toEqual([]);
    expect(existsSync('S3:')).toBe(false);
  });

  it('fails on an expired secret with exit 2 before any request', async () => {
    const expired = join(work, 'expired.json');
    await writeFile(expired, consoleAppJson(makeTestToken({ exp: 1_700_000_000 })));
    const requests = local.simulator.requests.length;

    const { exit, err } = await check(join(work, 'unused'), expired);

    expect(exit).toBe(2);
    expect(err).toMatch(/create a new app or a new client secret.*\[SECRET_EXPIRED\]/);
    expect(local.simulator.requests.length).toBe(requests);
    expect(existsSync(join(work, 'unused'))).toBe(false);
  });

  it('fails with exit 2 when the destination bucket does not exist', async () => {
    const { exit, err } = await check('s3://no-such-bucket/cf');

    expect(exit).toBe(2);
    expect(err).toMatch(/no-such-bucket.*does not exist/);
  });
});

describe('costs and inventory say where the data goes before they start', () => {
  beforeAll(async () => {
    local = await startLocalAws({ seed: 8, dataSources: 1, from: YESTERDAY, to: YESTERDAY, rowsPerDay: 3 });
    work = await mkdtemp(join(tmpdir(), 'cli-dest-'));
    secretFile = join(work, 'app.json');
    await writeFile(secretFile, consoleAppJson(local.token));
  });
  afterAll(async () => {
    await local.stop();
    await rm(work, { recursive: true, force: true });
  });

  it.each([
    ['costs', '--date', YESTERDAY],
    ['inventory', '--snapshot-date', utcDay(new Date())],
  ])('%s names the directory as its first line', async (command, ...more) => {
    const dir = join(work, command);

    const { exit, err } = await run([
      command,
      '--endpoint',
      local.simulator.url,
      '--secret-file',
      secretFile,
      '--out',
      dir,
      ...more,
    ]);

    expect(exit).toBe(0);
    expect(err.split('\n')[0]).toBe(`${command}: writing to ${dir} (local directory)`);
  });
});
