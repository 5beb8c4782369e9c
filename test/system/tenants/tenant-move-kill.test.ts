// The move into a tenant's folder, killed: SIGKILL halfway through the copy, the same command
// finishes it and every object reads back as the source's; --delete-source then removes the source
// and nothing else. And the refusals, before any write: a destination that is no single domain's,
// a tenant folder that holds another destination, a run that may still be writing, a tenant not
// named; and a source written to while it is copied.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { moveIntoTenant } from '../../../functions/lib/destination/tenant-move.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';
import { checksums, dirStore, s3Store } from '../../support/tenant-move.ts';

const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));
const FROM = monthsBack(1);
const TO = addDays(utcDay(new Date()), -1);

let sim: Simulator;
let s3: S3Server;
let dir: string;
let secretFile: string;
const saved = { ...process.env };
const s3Env = () => ({
  ...s3.env,
});

beforeAll(async () => {
  sim = await startSimulator({ seed: 72, dataSources: 2, from: FROM, to: TO, rowsPerDay: 2 });
  ({ dir, secretFile } = await appFolder('tenant-move-kill', sim.issueToken()));
  s3 = await startS3({ buckets: ['lake'] });
  Object.assign(process.env, s3Env());
}, 60_000);
afterAll(async () => {
  process.env = saved;
  await Promise.all([sim.close(), s3.stop()]);
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const io = fakeIo();
  const code = await main(argv, {}, io);
  return { code, out: io.out(), err: io.err() };
}

async function exportInto(out: string, from = FROM): Promise<void> {
  const run = await cli(
    'costs',
    '--endpoint',
    sim.url,
    '--secret-file',
    secretFile,
    '--out',
    out,
    '--from',
    from,
    '--to',
    TO,
  );
  expect(run.code, run.err).toBe(0);
}

/** The move in a child process, killed with SIGKILL once its progress passes `share` of the objects. */
async function moveKilledAt(out: string, share: number): Promise<{ signal: string | null; seen: string }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'move-into-tenant', '--out', out, '--tenant', 'acme', '--force'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...s3Env() } },
  );
  let seen = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    const last = [...seen.matchAll(/(\d+)\/(\d+) objects/g)].at(-1);
    if (last && Number(last[1]) >= Number(last[2]) * share && Number(last[1]) < Number(last[2]))
      child.kill('SIGKILL');
  });
  const [, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, sig) => resolve([code, sig])),
  );
  return { signal, seen };
}

/**
 * What `read` answers once two reads 250 ms apart agree. s3rver may finish a PUT the killed process
 * left half-sent after the kill, as an empty object (S3 drops such a request): once, in CI, it
 * overwrote the re-run's copy of a manifest, which the re-run rightly refused (MOVE_COPY_MISMATCH).
 */
async function settled(read: () => Promise<Map<string, string>>): Promise<Map<string, string>> {
  const same = (a: Map<string, string>, b: Map<string, string>) =>
    JSON.stringify([...a]) === JSON.stringify([...b]);
  let last = await read();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await read();
    if (same(now, last)) return now;
    last = now;
  }
  throw new Error('s3rver kept changing the destination after the kill');
}

describe('move-into-tenant, killed', () => {
  it('finishes after SIGKILL halfway, loses nothing, then deletes the source only once verified', async () => {
    const out = 's3://lake/killed';
    await exportInto(out);
    const store = s3Store(s3, 'lake', 'killed');
    const source = await checksums(store, '');

    const killed = await moveKilledAt(out, 0.3);
    const half = await settled(() => checksums(store, 'tenants/acme/'));
    const halfRecord = JSON.parse((await store.read('tenants/acme/_moved-in.json'))!);
    const rerun = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--json');
    const moved = await checksums(store, 'tenants/acme/');
    const removal = await cli(
      'move-into-tenant',
      '--out',
      out,
      '--tenant',
      'acme',
      '--delete-source',
      '--json',
    );

    expect(killed.signal, killed.seen).toBe('SIGKILL');
    expect(half.size).toBeGreaterThan(source.size * 0.2);
    expect(half.size).toBeLessThan(source.size);
    expect(halfRecord).not.toHaveProperty('finishedAt');
    expect(rerun.code, rerun.err).toBe(0);
    const report = JSON.parse(rerun.out);
    expect(report).toMatchObject({
      outcome: 'moved',
      objects: source.size,
      rewritten: 0,
      identical: source.size,
    });
    expect(report.resumed).toBeGreaterThan(source.size * 0.2);
    moved.delete('_moved-in.json');
    expect(moved).toEqual(source);
    expect(removal.code, removal.err).toBe(0);
    expect(JSON.parse(removal.out)).toMatchObject({
      outcome: 'already moved',
      deleted: source.size,
      kept: [],
    });
    expect(await checksums(store, '')).toEqual(new Map());
    const after = await checksums(store, 'tenants/acme/');
    after.delete('_moved-in.json');
    expect(after).toEqual(source);
  }, 300_000);
});

describe('move-into-tenant, a run writing to the source', () => {
  it('stops the move, deletes nothing, and the next move takes the new object too', async () => {
    const out = join(dir, 'busy');
    await exportInto(out, TO);
    const sink = dirSink(out);
    const before = await checksums(sink, '');
    let reads = 0;
    const busy: Sink = {
      ...sink,
      readBytes: async (key) => {
        if (++reads === 5) await sink.put('_manifests/cost-jobs/late.json', '{}\n', 'application/json');
        return sink.readBytes(key);
      },
    };

    const stopped = await moveIntoTenant(busy, { tenant: 'acme', deleteSource: true, force: true }).catch(
      (error: { code?: string; message: string }) => error,
    );
    const finished = await moveIntoTenant(sink, { tenant: 'acme', deleteSource: false, force: true });

    expect(stopped).toMatchObject({ code: 'MOVE_SOURCE_CHANGED' });
    expect((stopped as Error).message).toContain('1 object(s) of');
    expect(await checksums(sink, '')).toEqual(
      new Map([...before, ['_manifests/cost-jobs/late.json', expect.any(String)]]),
    );
    expect(finished).toMatchObject({ outcome: 'moved', objects: before.size + 1, deleted: 0 });
  });
});

describe('move-into-tenant refuses, writing nothing', () => {
  it('a destination whose latest run may still be writing, without --force', async () => {
    const out = join(dir, 'recent');
    await exportInto(out, TO);

    const run = await cli('move-into-tenant', '--out', out, '--tenant', 'acme');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/the latest run into .* started 0 min ago and may still be writing/);
    expect(run.err).toContain('add --force only if no run is going [MOVE_REFUSED]');
    expect(await checksums(dirStore(out), 'tenants/')).toEqual(new Map());
  });

  it('a destination that holds no single domain', async () => {
    const empty = join(dir, 'empty');
    await mkdir(join(empty, 'tenants', 'beta'), { recursive: true });
    await writeFile(join(empty, 'tenants', 'beta', 'x.json'), '{}');

    const run = await cli('move-into-tenant', '--out', empty, '--tenant', 'acme');

    expect(run.code).toBe(2);
    expect(run.err).toContain('is no single-domain destination: it has no _destination.json');
    expect(run.err).toContain('(it holds tenants/ already: a shared destination)');
    expect(run.err).toContain('[MOVE_REFUSED]');
    expect([...(await checksums(dirStore(empty), 'tenants/')).keys()]).toEqual(['beta/x.json']);
  });

  it('a tenant folder that holds another destination', async () => {
    const out = join(dir, 'taken');
    await exportInto(out, TO);
    const other = join(out, 'tenants', 'acme');
    await mkdir(other, { recursive: true });
    await writeFile(join(other, '_destination.json'), '{"domainId": "domain-other"}\n');
    const before = await checksums(dirStore(out), '');

    const run = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--force');

    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'tenants/acme already holds 1 object(s) (a destination of domain domain-other)',
    );
    expect(run.err).toContain('[MOVE_REFUSED]');
    expect(await checksums(dirStore(out), '')).toEqual(before);
    expect([...(await checksums(dirStore(out), 'tenants/')).keys()]).toEqual(['acme/_destination.json']);
  });

  it("a tenant folder the tenant's own runs wrote before the move", async () => {
    const out = join(dir, 'early');
    await exportInto(out, TO);
    await exportInto(join(out, 'tenants', 'acme'), TO);

    const run = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--force');

    expect(run.code).toBe(2);
    expect(run.err).toContain(
      "the tenant's own runs wrote there before the move: remove that folder and move again",
    );
    expect(run.err).toContain('[MOVE_REFUSED]');
  });

  it('a move without --tenant', async () => {
    const run = await cli('move-into-tenant', '--out', join(dir, 'taken'));

    expect(run.code).toBe(2);
    expect(run.err).toContain('--tenant: the tenant to move into is required');
  });
});
