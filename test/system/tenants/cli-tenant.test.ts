// `--tenant ID` narrows a shared destination to the tenant's folder, tenants/ID/: two simulated
// domains exported into one directory and one bucket each land in their own folder, and nowhere else.
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { listKeys, type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

const FROM = monthsBack(4);
const TO = addDays(FROM, 2);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('cloudforet-export --tenant', () => {
  let acme: Simulator;
  let beta: Simulator;
  let s3: S3Server;
  const apps: Record<string, { dir: string; secretFile: string }> = {};
  const costs = (sim: Simulator, tenant: string, out: string, app = tenant) => [
    'costs',
    '--endpoint',
    sim.url,
    '--secret-file',
    apps[app]!.secretFile,
    '--out',
    out,
    '--tenant',
    tenant,
    '--from',
    FROM,
    '--to',
    TO,
    '--json',
  ];

  beforeAll(async () => {
    acme = await startSimulator({ seed: 51, dataSources: 2, from: FROM, to: TO, rowsPerDay: 10 });
    beta = await startSimulator({ seed: 52, dataSources: 1, from: FROM, to: TO, rowsPerDay: 10 });
    s3 = await startS3({ buckets: ['lake'] });
    apps.acme = await appFolder('cli-tenant-acme', acme.issueToken());
    apps.beta = await appFolder('cli-tenant-beta', beta.issueToken());
  });
  afterAll(async () => {
    await Promise.all([acme.close(), beta.close(), s3.stop()]);
    for (const app of Object.values(apps)) await rm(app.dir, { recursive: true, force: true });
  });

  it("writes each tenant's costs under tenants/<id>/ of one directory, and nothing beside", async () => {
    const out = join(apps.acme!.dir, 'lake');

    const first = fakeIo();
    const second = fakeIo();
    expect(await main(costs(acme, 'acme', out), {}, first)).toBe(0);
    expect(await main(costs(beta, 'beta', out), {}, second)).toBe(0);

    expect(JSON.parse(first.out())).toMatchObject({ units: 6, failed: 0, scope: `domain ${acme.domainId}` });
    expect(JSON.parse(second.out())).toMatchObject({ units: 3, failed: 0, scope: `domain ${beta.domainId}` });
    const files = await filesUnder(out);
    expect(files.filter((f) => !/^tenants\/(acme|beta)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('tenants/acme/costs/'))).toHaveLength(6);
    expect(files.filter((f) => f.startsWith('tenants/beta/costs/'))).toHaveLength(3);
    expect(first.err()).toContain(`${join(out, 'tenants', 'acme')}`);
  });

  it('writes into a tenant of a shared bucket prefix, and reads it back there', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ...s3.env,
    });

    const code = await main(costs(acme, 'acme', 's3://lake/shared'), {}, fakeIo());
    const anomalies = await main(
      ['anomalies', '--out', 's3://lake/shared', '--tenant', 'acme', '--json'],
      {},
      fakeIo(),
    ).finally(() => {
      process.env = saved;
    });

    expect(code).toBe(0);
    expect(anomalies).toBe(0);
    const keys = await listKeys(s3.client, 'lake', '');
    expect(keys.length).toBeGreaterThan(6);
    expect(keys.filter((k) => !k.startsWith('shared/tenants/acme/'))).toEqual([]);
  });

  it('refuses a tenant id that names no folder of its own, before any request', async () => {
    const io = fakeIo();

    const code = await main(costs(acme, '../beta', join(apps.acme!.dir, 'lake'), 'acme'), {}, io);

    expect(code).toBe(2);
    expect(io.err()).toContain('--tenant: a tenant id is 1-20 lower-case letters, digits and hyphens');
    expect(io.err()).toContain('[CLI_USAGE]');
  });
});
