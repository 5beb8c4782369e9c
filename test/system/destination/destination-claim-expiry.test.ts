// A claim that outlives its run: a domain app's cost run SIGKILLed after it claimed an empty
// destination and before it exported anything. The other scope is told who holds it, since when,
// and the one command that releases it; once the claim has expired (60 min after its holder's
// latest run started, nothing exported behind it) the next run takes it over. A claim whose holder
// exported something is an ownership: never taken over, never released.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { CLAIM_EXPIRY_MS } from '../../../functions/lib/destination/claim-records.ts';
import { claimDestination } from '../../../functions/lib/destination/destination-claim.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import { startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';
import { snapshotDir, tempFiles } from '../../support/unit-invariants.ts';

const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));
const MONTH = monthBack(2);
const FROM = `${MONTH}-01`;
const TO = `${MONTH}-02`;
const CLAIM = '_destination.json';

let sim: Simulator;
let dir: string;
const apps = { domain: '', workspace: '' };

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo();
  const code = await main(argv, {}, io);
  return { code, out: io.out(), err: io.err() };
}

const costs = (app: string, out: string) =>
  cli('costs', '--endpoint', sim.url, '--secret-file', app, '--out', out, '--from', FROM, '--to', TO);

/** The domain app's cost run in a child, held after it claims `out`, then SIGKILLed. */
async function killedRun(out: string): Promise<void> {
  sim.injectFault({ path: /\/cost-analysis\/(cost|job)\//, kind: 'slow', delayMs: 600_000, times: 1_000 });
  const argv = [
    'costs',
    '--endpoint',
    sim.url,
    '--secret-file',
    apps.domain,
    '--out',
    out,
    '--from',
    FROM,
    '--to',
    TO,
  ];
  const child = spawn(process.execPath, [BIN, ...argv], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = Date.now();
  while (!existsSync(join(out, CLAIM)) && Date.now() - started < 30_000)
    await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGKILL');
  await exited;
  sim.clearFaults();
  expect(existsSync(join(out, CLAIM))).toBe(true);
}

/** The claim as if its holder's latest run started `ms` ago: what waiting that long would leave. */
async function ageClaim(out: string, ms: number): Promise<void> {
  const claim = JSON.parse(await readFile(join(out, CLAIM), 'utf8')) as Record<string, string>;
  const at = new Date(Date.now() - ms).toISOString();
  await writeFile(join(out, CLAIM), JSON.stringify({ ...claim, claimedAt: at, lastRunAt: at }));
}

/** Every file but a killed run's temporaries, which the next run sweeps by design. */
async function keptFiles(out: string): Promise<Map<string, Buffer>> {
  const files = await snapshotDir(out);
  for (const name of tempFiles(files)) files.delete(name);
  return files;
}

const claimOf = async (out: string) => JSON.parse(await readFile(join(out, CLAIM), 'utf8'));

beforeAll(async () => {
  sim = await startSimulator({ seed: 29, dataSources: 2, workspaces: 2, from: FROM, to: TO, rowsPerDay: 15 });
  dir = await mkdtemp(join(tmpdir(), 'claim-expiry-'));
  apps.domain = join(dir, 'domain.json');
  apps.workspace = join(dir, 'workspace.json');
  await writeFile(apps.domain, consoleAppJson(sim.issueToken()));
  const workspaceToken = sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId: sim.workspaceIds()[0] });
  await writeFile(apps.workspace, consoleAppJson(workspaceToken));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a claim left by a killed run', () => {
  it('names its holder, its age and the one command that releases it; nothing is written', async () => {
    const out = join(dir, 'killed');
    await killedRun(out);
    const before = await keptFiles(out);

    const refused = await costs(apps.workspace, out);

    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`claimed by the domain app of ${sim.domainId}`);
    expect(refused.err).toMatch(/its latest run started \d+ s ago, by cloudforet-export on .+ \(pid \d+\)/);
    expect(refused.err).toContain('has exported nothing here yet');
    expect(refused.err).toContain(`cloudforet-export release-claim --out ${out} --force`);
    expect(await keptFiles(out)).toEqual(before);
    expect([...before.keys()]).toEqual([CLAIM]);
  });

  it('is released by that command only when forced while young, and the other scope then exports', async () => {
    const out = join(dir, 'killed');

    const young = await cli('release-claim', '--out', out);
    const forced = await cli('release-claim', '--out', out, '--force');
    const exported = await costs(apps.workspace, out);

    expect(young).toMatchObject({ code: 2, err: expect.stringContaining('may still be running') });
    expect(forced).toMatchObject({
      code: 0,
      out: expect.stringContaining('released the claim of the domain app'),
    });
    expect(exported.code).toBe(0);
    expect((await claimOf(out)).costScope).toBe(sim.workspaceIds()[0]);
  });

  it(`is taken over by the next run once ${CLAIM_EXPIRY_MS / 60_000} min old, and not a minute before`, async () => {
    const out = join(dir, 'expired');
    await killedRun(out);

    await ageClaim(out, CLAIM_EXPIRY_MS - 60_000);
    const early = await costs(apps.workspace, out);
    await ageClaim(out, CLAIM_EXPIRY_MS + 1_000);
    const late = await costs(apps.workspace, out);

    expect(early.code).toBe(2);
    expect(early.err).toMatch(/its latest run started 59 min ago/);
    expect(late.code).toBe(0);
    expect(await claimOf(out)).toMatchObject({ domainId: sim.domainId, costScope: sim.workspaceIds()[0] });
  });

  it("is renewed by its holder's next run, which starts its expiry over, and not rewritten by each rerun", async () => {
    const out = join(dir, 'renewed');
    await killedRun(out);
    await ageClaim(out, CLAIM_EXPIRY_MS + 1_000);

    expect((await costs(apps.domain, out)).code).toBe(0);
    const renewed = await readFile(join(out, CLAIM), 'utf8');
    expect((await costs(apps.domain, out)).code).toBe(0);
    const refused = await costs(apps.workspace, out);

    expect(Date.now() - Date.parse(JSON.parse(renewed).lastRunAt)).toBeLessThan(60_000);
    // A rerun within CLAIM_RENEW_AFTER_MS leaves the claim byte for byte.
    expect(await readFile(join(out, CLAIM), 'utf8')).toBe(renewed);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('its own prefix');
  });
});

describe('a claim whose holder exported', () => {
  it('is never taken over nor released, however old', async () => {
    const out = join(dir, 'owned');
    expect((await costs(apps.domain, out)).code).toBe(0);
    await ageClaim(out, 30 * 24 * 3_600_000);
    const before = await snapshotDir(out);

    const run = await costs(apps.workspace, out);
    const release = await cli('release-claim', '--out', out, '--force');

    expect(run).toMatchObject({ code: 2, err: expect.stringContaining('would be replaced by this run') });
    expect(release).toMatchObject({ code: 2, err: expect.stringContaining('is an ownership') });
    expect(await snapshotDir(out)).toEqual(before);
  });
});

describe('two runs of other scopes finding one expired claim', () => {
  it.each(['a directory', 'S3'])(
    'leave exactly one of them holding it, 10 times out of 10, on %s',
    async (where) => {
      const s3 = where === 'S3' ? await startS3({ buckets: ['claims'] }) : undefined;
      const sinkOf = (trial: number) =>
        s3
          ? s3Sink({ client: s3.client, bucket: 'claims', prefix: `takeover-${trial}` })
          : dirSink(join(dir, `takeover-${trial}`));
      const results: string[] = [];
      for (let trial = 0; trial < 10; trial++) {
        const sink = sinkOf(trial);
        const old = new Date(Date.now() - 2 * CLAIM_EXPIRY_MS);
        await claimDestination(sink, { domainId: 'domain-1', workspaceId: '*' }, true, old);
        const take = (workspaceId: string) =>
          claimDestination(sink, { domainId: 'domain-1', workspaceId }, true).then(
            () => workspaceId,
            () => 'refused',
          );

        const outcome = await Promise.all([take('workspace-a'), take('workspace-b')]);

        const holder = JSON.parse((await sink.read(CLAIM))!).costScope as string;
        expect(outcome.filter((o) => o !== 'refused')).toEqual([holder]);
        results.push(holder);
      }
      await s3?.stop();
      expect(results).toHaveLength(10);
    },
  );
});
