// Storage that fails under a run: S3 (s3rver behind a proxy that resets or answers 500) and a local
// directory that turns immutable, is blocked by a file, or fills up. The previous object survives,
// nothing temporary or half-uploaded is left, and the run reports the unit as failed.
// s3rver answers AbortMultipartUpload with 405 (and does not list uploads), so these tests prove
// through the proxy that the Abort request was SENT; real S3 then drops the parts.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { type CostRunSummary, runCostExport } from '../../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { type FaultyProxy, s3Requests, startFaultyProxy } from '../../../harness/faulty-proxy.ts';
import { getObjectBytes, listPendingUploads, type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { downloadPrefix } from '../../support/export-reader.ts';
import { monthBack } from '../../support/months.ts';
import {
  changedFiles,
  expectEachUnitExactOrUntouched,
  snapshotDir,
  tempFiles,
} from '../../support/unit-invariants.ts';

const MONTH_1 = monthBack(1);

const BUCKET = 'exports';
const PREFIX = 'cf';
const DAY = `${MONTH_1}-01`;
const MiB = 1024 * 1024;
const exec = promisify(execFile);
const IMMUTABLE_DIRS = await immutableSupported();
const downloads: string[] = [];

/** The published prefix as files, read from s3rver directly (not through the proxy). */
async function download(s3: S3Server): Promise<string> {
  const { dir } = await downloadPrefix(s3.client, BUCKET, `${PREFIX}/`);
  downloads.push(dir);
  return dir;
}

async function costRun(sim: Simulator, sink: Sink, from: string, to = from): Promise<CostRunSummary> {
  const client = new CloudforetClient({
    endpoint: sim.url,
    token: sim.issueToken(),
    dispatcher: new Agent(),
    sleep: async () => {},
  });
  return runCostExport({ client, sink, concurrency: 1 }, { from, to, force: true });
}

describe('S3 failing under a run', () => {
  let s3: S3Server;
  let proxy: FaultyProxy;
  let proxied: S3Client;
  let sim: Simulator;
  let ds: string[];
  const sink = (prefix = PREFIX, partSize?: number) =>
    s3Sink({ client: proxied, bucket: BUCKET, prefix, partSize });
  const published = async () => snapshotDir(await download(s3));

  beforeAll(async () => {
    [s3, sim] = await Promise.all([
      startS3({ buckets: [BUCKET] }),
      startSimulator({
        seed: 41,
        dataSources: 2,
        from: DAY,
        to: DAY,
        rowsPerDay: 300,
        exactRowsPerDay: true,
      }),
    ]);
    proxy = await startFaultyProxy(s3.port);
    proxied = new S3Client({
      region: 'us-east-1',
      endpoint: proxy.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 2,
    });
    ds = sim.dataSourceIds();
    expect(await costRun(sim, sink(), DAY)).toMatchObject({ written: 2, failed: 0 });
  });
  afterEach(() => proxy.clear());
  afterAll(async () => {
    proxied.destroy();
    await Promise.all([proxy.close(), sim.close()]);
    await s3.stop();
    await Promise.all(downloads.map((d) => rm(d, { recursive: true, force: true })));
  });

  it.each(['500', 'reset'] as const)(
    'a data object PUT answered %s fails its unit and keeps the previous object',
    async (kind) => {
      for (const id of ds) sim.resync(id, DAY, { costFactor: 1.5 });
      const before = await published();
      proxy.failWhen({ kind, match: (r) => r.method === 'PUT' && r.path.endsWith(`/${ds[0]}.parquet`) });

      const summary = await costRun(sim, sink(), DAY);

      expect(summary.failures).toMatchObject([{ dataSourceId: ds[0], code: 'SINK_S3_FAILED' }]);
      expect(summary.failures[0]!.message).toContain(
        `s3://${BUCKET}/${PREFIX}/${costObjectKey(ds[0]!, DAY)}`,
      );
      const dir = await download(s3);
      const units = ds.map((dataSourceId) => ({ dataSourceId, date: DAY }));
      await expectEachUnitExactOrUntouched({ sim, dir, before, summary, units });
      // Under this run's prefix only: the multipart tests below leave uploads of their own.
      const pending = await listPendingUploads(s3.dir, BUCKET);
      expect(pending.filter((u) => u.key.startsWith(`${PREFIX}/`))).toEqual([]);
    },
  );

  it('a manifest PUT that fails after the object was replaced reports the unit failed; the object is whole', async () => {
    sim.resync(ds[1]!, DAY, { costFactor: 2 });
    const before = await published();
    proxy.failWhen({ kind: '500', match: (r) => r.method === 'PUT' && r.path.includes('/_manifests/') });

    const summary = await costRun(sim, sink(), DAY, DAY);

    expect(summary.failures.map((f) => f.code)).toEqual(['SINK_S3_FAILED', 'SINK_S3_FAILED']);
    const after = await published();
    const manifest = costManifestKey(ds[1]!, DAY);
    const changed = dayFiles(changedFiles(before, after));
    expect(changed.filter((k) => !k.startsWith('costs_revisions/'))).toEqual(
      ds.map((id) => costObjectKey(id, DAY)).sort(),
    );
    // The restated day's published object was kept before its replacement (docs/tables.md).
    expect(changed.filter((k) => k.startsWith('costs_revisions/'))).toEqual([
      expect.stringMatching(
        new RegExp(`^costs_revisions/billed_date=${DAY}/${ds[1]}~[0-9a-f]{16}\\.parquet$`),
      ),
    ]);
    expect(after.get(manifest)?.equals(before.get(manifest)!)).toBe(true);
  });

  describe('multipart upload (s3Sink.begin, 5 MiB parts)', () => {
    const KEY = 'big/object.parquet';
    const previous = Buffer.from('the previous version of the object');
    const uploadIdOf = () => proxy.requests.find(s3Requests.part)?.query.get('uploadId') ?? undefined;
    const abortsSent = (uploadId: string | undefined) =>
      proxy.requests.filter((r) => s3Requests.abort(r) && r.query.get('uploadId') === uploadId);

    afterEach(() => {
      proxy.requests.length = 0;
    });

    it.each([
      { kind: '500' as const, request: 'part', match: s3Requests.part, afterBytes: MiB, mib: 24 },
      { kind: 'reset' as const, request: 'part', match: s3Requests.part, afterBytes: 3 * MiB, mib: 24 },
      { kind: '500' as const, request: 'complete', match: s3Requests.complete, afterBytes: 0, mib: 11 },
    ])('$kind on $request: the write fails, the previous object stays, Abort is sent', async (c) => {
      await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `mp/${KEY}`, Body: previous }));
      proxy.failWhen(c);
      const upload = sink('mp', 5 * MiB).begin(KEY, 'application/octet-stream');

      const failure = await (async () => {
        for (let i = 0; i < c.mib; i++) await upload.write(randomBytes(MiB));
        await upload.commit();
      })().catch(async (error: unknown) => {
        await upload.abort();
        return error;
      });

      expect(failure).toMatchObject({ code: 'SINK_S3_FAILED' });
      expect(Buffer.from(await getObjectBytes(s3.client, BUCKET, `mp/${KEY}`)).equals(previous)).toBe(true);
      expect(abortsSent(uploadIdOf())).toHaveLength(1);
    });

    it('abandoning an upload sends AbortMultipartUpload before abort() resolves', async () => {
      const upload = sink('mp', 5 * MiB).begin(KEY, 'application/octet-stream');
      await upload.write(randomBytes(6 * MiB));
      await waitFor(() => proxy.requests.some((r) => s3Requests.part(r) && r.status === 200));

      await upload.abort();

      expect(abortsSent(uploadIdOf())).toHaveLength(1);
    });

    it('a part that fails while no write is waiting surfaces at commit as a sink error', async () => {
      proxy.failWhen({ kind: '500', match: s3Requests.part });
      const upload = sink('mp', 5 * MiB).begin(KEY, 'application/octet-stream');
      for (let i = 0; i < 5; i++) await upload.write(randomBytes(MiB));
      await upload.write(randomBytes(100));
      await waitFor(() => proxy.faultsInjected > 0);

      const failure = await upload.commit().catch((error: unknown) => error);

      expect(failure).toMatchObject({ code: 'SINK_S3_FAILED' });
      expect(abortsSent(uploadIdOf())).toHaveLength(1);
    });
  });
});

describe('a local directory failing under a run', () => {
  let sim: Simulator;
  let dir: string;
  let ds: string;
  const days = [`${MONTH_1}-01`, `${MONTH_1}-02`, `${MONTH_1}-03`] as const;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 43,
      dataSources: 1,
      from: days[0],
      to: days[2],
      rowsPerDay: 1_200,
      exactRowsPerDay: true,
    });
    ds = sim.dataSourceIds()[0]!;
    dir = await mkdtemp(join(tmpdir(), 'dir-faults-'));
    expect(await costRun(sim, dirSink(dir), days[0], days[1])).toMatchObject({ written: 2, failed: 0 });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!IMMUTABLE_DIRS)(
    'a partition directory made immutable (chattr +i) fails its unit and keeps the previous object',
    async () => {
      sim.resync(ds, days[0], { costFactor: 1.5 });
      const before = await snapshotDir(dir);
      const partition = join(dir, 'costs', `billed_date=${days[0]}`);
      await exec('chattr', ['+i', partition]);

      const summary = await costRun(sim, dirSink(dir), days[0]).finally(() =>
        exec('chattr', ['-i', partition]),
      );

      expect(summary.failures).toMatchObject([{ date: days[0], code: 'SINK_LOCAL_FAILED' }]);
      expect(summary.failures[0]!.message).toMatch(/EPERM|EACCES/);
      // Only the revision, kept before the commit that then failed: the published object is untouched.
      expect(dayFiles(changedFiles(before, await snapshotDir(dir)))).toEqual([
        expect.stringMatching(
          new RegExp(`^costs_revisions/billed_date=${days[0]}/${ds}~[0-9a-f]{16}\\.parquet$`),
        ),
      ]);
    },
  );

  it('a partition path blocked by a file fails that unit only, leaving no temporary file', async () => {
    await writeFile(join(dir, 'costs', `billed_date=${days[2]}`), 'not a directory');
    const before = await snapshotDir(dir);

    const summary = await costRun(sim, dirSink(dir), days[0], days[2]);

    expect(summary.failures).toMatchObject([{ date: days[2], code: 'SINK_LOCAL_FAILED' }]);
    const units = days.map((date) => ({ dataSourceId: ds, date }));
    await expectEachUnitExactOrUntouched({ sim, dir, before, summary, units });
  });

  it('a disk that fills up in the middle of an object (ulimit -f) fails the unit and keeps the previous one', async () => {
    sim.resync(ds, days[1], { costFactor: 3 });
    const before = await snapshotDir(dir);

    const summary = await exportInChild(
      { endpoint: sim.url, token: sim.issueToken(), dir, from: days[1], to: days[1] },
      16,
    );

    expect(summary.failures).toMatchObject([{ date: days[1], code: 'SINK_LOCAL_FAILED' }]);
    expect(summary.failures[0]!.message).toContain('EFBIG');
    const after = await snapshotDir(dir);
    expect(tempFiles(after)).toEqual([]);
    expect(changedFiles(before, after)).toEqual([]);
  });

  it('a write cut short by the file size limit is never committed as a truncated object', async () => {
    const key = costObjectKey(ds, days[0]);
    const before = await snapshotDir(dir);

    const outcome = await exportInChild({ dir, key, bytes: 64 * 1024 }, 16);

    expect(outcome).toMatchObject({ code: 'SINK_LOCAL_FAILED', message: expect.stringContaining('EFBIG') });
    expect(changedFiles(before, await snapshotDir(dir))).toEqual([]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The cost-day files among changed keys: the run's unified-cost month is a unit of its own (with
 * the revision it keeps), and the run ledger only ever gains rows (test/system/costs/run-ledger.test.ts).
 */
function dayFiles(keys: readonly string[]): string[] {
  return keys.filter(
    (k) =>
      !k.startsWith('unified_costs/') &&
      !k.startsWith('unified_costs_revisions/') &&
      !k.startsWith('_manifests/unified_costs/') &&
      !k.startsWith('ledger/'),
  );
}

/** chattr +i works only as root on file systems that support it (ext4, xfs; not overlayfs or tmpfs). */
async function immutableSupported(): Promise<boolean> {
  const probe = await mkdtemp(join(tmpdir(), 'chattr-probe-'));
  try {
    await exec('chattr', ['+i', probe]);
    await exec('chattr', ['-i', probe]);
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** Runs test/support/export-child.ts with files limited to `kib` KiB each: writes past it fail with EFBIG. */
async function exportInChild<T = CostRunSummary>(
  args: Record<string, string | number>,
  kib: number,
): Promise<T> {
  const script = fileURLToPath(new URL('../../support/export-child.ts', import.meta.url));
  const child = spawn(
    'bash',
    ['-c', `ulimit -f ${kib} && exec "$0" --import tsx "$1"`, process.execPath, script],
    {
      env: { ...process.env, TSX_DISABLE_CACHE: '1', EXPORT_CHILD_ARGS: JSON.stringify(args) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`export child exited with ${code}: ${err}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as T;
}
