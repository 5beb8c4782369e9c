// A domain app and a workspace app started at the same moment into one empty destination: the
// claim is taken before planning with a create that only one writer can make (a hard link in a
// directory; S3 PutObject with If-None-Match: *, which the s3rver child implements as S3 does), so
// exactly one run exports and the other exits 2, naming the owner, having written nothing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { daysBetween } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-03`;
const TRIALS = 10;

let local: LocalAws;
let dir: string;
let restoreEnv: () => void;
const apps = { domain: '', workspace: '' };

beforeAll(async () => {
  local = await startLocalAws({
    seed: 23,
    dataSources: 2,
    workspaces: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 15,
  });
  restoreEnv = local.applyEnv();
  dir = await mkdtemp(join(tmpdir(), 'dest-race-'));
  const sim = local.simulator;
  apps.domain = join(dir, 'domain.json');
  apps.workspace = join(dir, 'workspace.json');
  await writeFile(apps.domain, consoleAppJson(sim.issueToken()));
  const workspaceToken = sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId: sim.workspaceIds()[0] });
  await writeFile(apps.workspace, consoleAppJson(workspaceToken));
});
afterAll(async () => {
  restoreEnv();
  await local.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Both apps' cost runs, started together into `out`: [domain, workspace] exit codes and stderr. */
async function race(out: string) {
  const run = async (secret: string) => {
    const io = fakeIo();
    const argv = ['costs', '--endpoint', local.simulator.url, '--secret-file', secret, '--out', out];
    const code = await main([...argv, '--from', FROM, '--to', TO], {}, io);
    return { code, err: io.err() };
  };
  return Promise.all([run(apps.domain), run(apps.workspace)]);
}

const totalRows = () =>
  local.simulator
    .dataSourceIds()
    .flatMap((ds) => daysBetween(FROM, TO).map((d) => local.simulator.costTruth(ds, d).rows))
    .reduce((a, b) => a + b, 0);

describe('two scopes started together into one destination', () => {
  it(`leaves exactly one owner, ${TRIALS} times out of ${TRIALS}, in a directory`, async () => {
    const outcomes: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const out = join(dir, `local-${trial}`);

      const [domain, workspace] = await race(out);

      const claim = JSON.parse(await readFile(join(out, '_destination.json'), 'utf8'));
      const winner = domain.code === 0 ? 'domain' : 'workspace';
      const loser = winner === 'domain' ? workspace : domain;
      expect([domain.code, workspace.code].sort()).toEqual([0, 2]);
      expect(loser.err).toContain('DESTINATION_SCOPE_MISMATCH');
      expect(claim.costScope).toBe(winner === 'domain' ? 'domain' : local.simulator.workspaceIds()[0]);
      const { rows } = await queryDuckDB(
        `SELECT count(*) AS n FROM read_parquet('${out}/costs/*/*', hive_partitioning = true)`,
      );
      // The domain app sees every row; the workspace app a part: the table holds the winner's alone.
      if (winner === 'domain') expect(Number(rows[0]!.n)).toBe(totalRows());
      else expect(Number(rows[0]!.n)).toBeLessThan(totalRows());
      outcomes.push(winner);
    }
    expect(outcomes).toHaveLength(TRIALS);
  });

  it(`leaves exactly one owner, ${TRIALS} times out of ${TRIALS}, on S3`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const prefix = `race-${trial}`;

      const [domain, workspace] = await race(`s3://${BUCKET}/${prefix}`);

      const claim = JSON.parse(
        Buffer.from(await getObjectBytes(local.s3.client, BUCKET, `${prefix}/_destination.json`)).toString(),
      );
      const winner = domain.code === 0 ? 'domain' : 'workspace';
      expect([domain.code, workspace.code].sort()).toEqual([0, 2]);
      expect((winner === 'domain' ? workspace : domain).err).toContain('DESTINATION_SCOPE_MISMATCH');
      expect(claim.costScope).toBe(winner === 'domain' ? 'domain' : local.simulator.workspaceIds()[0]);
      const manifests = (await listKeys(local.s3.client, BUCKET, `${prefix}/_manifests/costs/`)).length;
      const days = daysBetween(FROM, TO).length;
      // The domain app's units are every data source's days; a workspace app's are its own.
      if (winner === 'domain') expect(manifests).toBe(days * local.simulator.dataSourceIds().length);
      else expect(manifests).toBeLessThanOrEqual(days * local.simulator.dataSourceIds().length);
    }
  });

  it('refuses an S3 create of a key that exists (the condition the claim relies on)', async () => {
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const put = (body: string) =>
      local.s3.client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: 'conditional/claim.json', Body: body, IfNoneMatch: '*' }),
      );
    await put('first');

    const second = await put('second').catch((e: { $metadata?: { httpStatusCode?: number } }) => e);

    expect(second.$metadata?.httpStatusCode).toBe(412);
    expect(
      Buffer.from(await getObjectBytes(local.s3.client, BUCKET, 'conditional/claim.json')).toString(),
    ).toBe('first');
  });
});
