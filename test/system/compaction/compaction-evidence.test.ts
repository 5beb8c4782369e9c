// A compacted month is called current only on evidence that its monthly object is still the one
// its manifest describes (compaction/compact.ts): one deleted, cut short or replaced behind the
// exporter's back (a directory and S3) is rebuilt from its days by the next run, whatever its
// window, and holds the month's rows again; an untouched month stays current, with nothing written.
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { manifestKey, objectKey } from '../../../functions/lib/destination/layout.ts';
import { SinkError } from '../../../functions/lib/errors.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { compactedTables } from '../../../functions/lib/tables/compacted.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

/** Two months back is always confirmed (from day 15 of the next). */
const MONTH = monthBack(2);
const FROM = `${MONTH}-01`;
/** A later window that holds none of the month's days: compaction still looks at every month. */
const LATER = { from: `${monthBack(1)}-01`, to: `${monthBack(1)}-01` };
/** The first run's: four days of MONTH and the later day (its month confirmed or not, by the date). */
const FIRST = { from: FROM, to: LATER.to };
const [COSTS_MONTHLY, FOCUS_MONTHLY] = compactedTables as unknown as [
  (typeof compactedTables)[number],
  (typeof compactedTables)[number],
];

let sim: Simulator;
let s3: S3Server;
let dir: string;
let client: CloudforetClient;

beforeAll(async () => {
  sim = await startSimulator({ seed: 47, dataSources: 2, from: FROM, to: LATER.to, rowsPerDay: 15 });
  s3 = await startS3({ buckets: ['evidence-bucket'] });
  dir = await mkdtemp(join(tmpdir(), 'compaction-evidence-'));
  client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
});
afterAll(async () => {
  await Promise.all([sim.close(), s3.stop()]);
  await rm(dir, { recursive: true, force: true });
});

/** The sink, and the keys of every object written (data objects and small ones) and read through it. */
function counting(sink: Sink): { sink: Sink; written: string[]; read: string[] } {
  const written: string[] = [];
  const read: string[] = [];
  return {
    written,
    read,
    sink: {
      ...sink,
      read: (key) => {
        read.push(key);
        return sink.read(key);
      },
      begin: (key, contentType) => {
        written.push(key);
        return sink.begin(key, contentType);
      },
      put: (key, body, contentType) => {
        written.push(key);
        return sink.put(key, body, contentType);
      },
    },
  };
}

/** Reads of MONTH's daily manifests (costs and FOCUS), the ones compaction needs no more while nothing changed. */
const dailyManifestReads = (read: readonly string[]) =>
  read.filter((k) => /^_manifests\/(costs|focus)\//.test(k) && k.includes(MONTH));

/** The compaction summary's line of one table. */
function compacted(run: Awaited<ReturnType<typeof runCostExport>>, table: string) {
  const line = run.compaction?.tables.find((t) => t.table === table);
  expect(line).toBeDefined();
  return line!;
}

/** A Parquet object's rows, as sorted text (order-insensitive, bigints as numbers). */
async function rowsOf(path: string): Promise<string[]> {
  const { rows } = await queryDuckDB(`SELECT * FROM read_parquet('${path}', hive_partitioning = false)`);
  return rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))).sort();
}

/** Rows of the month's daily objects of one data source (the costs table). */
async function dailyCount(out: string, ds: string): Promise<number> {
  const { rows } = await queryDuckDB(
    `SELECT count(*) AS n FROM read_parquet('${out}/costs/billed_date=${MONTH}-*/${ds}.parquet', hive_partitioning = false)`,
  );
  return Number(rows[0]!['n']);
}

describe('a compacted month is current only while its monthly object is as recorded', () => {
  it('a directory: an untouched month stays current with nothing written; a deleted or replaced monthly object is rebuilt', async () => {
    const [a, b] = sim.dataSourceIds() as [string, string];
    const first = await runCostExport({ client, sink: dirSink(dir) }, FIRST);
    expect(first.failed).toBe(0);
    // Two data sources in each compacted month (MONTH, and the later one once it is confirmed).
    const units = compacted(first, COSTS_MONTHLY.name).written;
    expect(units).toBeGreaterThanOrEqual(2);
    expect(compacted(first, COSTS_MONTHLY.name).throughMonth! >= MONTH).toBe(true);
    expect(compacted(first, FOCUS_MONTHLY.name).written).toBe(units);
    const costsA = objectKey(COSTS_MONTHLY, MONTH, a);
    const focusB = objectKey(FOCUS_MONTHLY, MONTH, b);
    const original = { costsA: await rowsOf(join(dir, costsA)), focusB: await rowsOf(join(dir, focusB)) };
    expect(original.costsA.length).toBe(await dailyCount(dir, a));
    expect(original.costsA.length).toBeGreaterThan(0);

    // Untouched: current, and no monthly object or manifest written.
    const quiet = counting(dirSink(dir));
    const again = await runCostExport({ client, sink: quiet.sink }, LATER);
    expect(again.failed).toBe(0);
    expect(compacted(again, COSTS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(compacted(again, FOCUS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(quiet.written.filter((k) => k.includes('_monthly'))).toEqual([]);
    // Told from the listing of the daily manifests: none of the month's read.
    expect(dailyManifestReads(quiet.read)).toEqual([]);

    // Deleted: rebuilt, the other data source's month untouched.
    await rm(join(dir, costsA));
    const deleted = counting(dirSink(dir));
    const afterDelete = await runCostExport({ client, sink: deleted.sink }, LATER);
    expect(afterDelete.failed).toBe(0);
    expect(compacted(afterDelete, COSTS_MONTHLY.name)).toMatchObject({
      written: 1,
      current: units - 1,
      throughMonth: compacted(first, COSTS_MONTHLY.name).throughMonth,
    });
    expect(compacted(afterDelete, FOCUS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(deleted.written.filter((k) => /_monthly\/.*\.parquet$/.test(k))).toEqual([costsA]);
    expect(await rowsOf(join(dir, costsA))).toEqual(original.costsA);

    // Replaced by another readable Parquet object of another size, and cut short: each rebuilt.
    const other = await readFile(join(dir, costsA));
    expect(other.length).not.toBe((await readFile(join(dir, focusB))).length);
    await writeFile(join(dir, focusB), other);
    await truncate(join(dir, costsA), 100);
    const replaced = await runCostExport({ client, sink: dirSink(dir) }, LATER);
    expect(replaced.failed).toBe(0);
    expect(compacted(replaced, COSTS_MONTHLY.name)).toMatchObject({ written: 1, current: units - 1 });
    expect(compacted(replaced, FOCUS_MONTHLY.name)).toMatchObject({ written: 1, current: units - 1 });
    expect(await rowsOf(join(dir, costsA))).toEqual(original.costsA);
    expect(await rowsOf(join(dir, focusB))).toEqual(original.focusB);

    // And then current again.
    const settled = await runCostExport({ client, sink: dirSink(dir) }, LATER);
    expect(compacted(settled, COSTS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(compacted(settled, FOCUS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
  }, 180_000);

  it('a monthly manifest written before sources recorded their listed manifests: the daily manifests are read once, the facts recorded', async () => {
    const [a] = sim.dataSourceIds() as [string];
    const key = manifestKey(COSTS_MONTHLY, MONTH, a);
    const path = join(dir, key);
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    const old = {
      ...manifest,
      sources: manifest.sources.map(({ manifest: _, ...s }: { manifest: unknown }) => s),
    };
    await writeFile(path, JSON.stringify(old, null, 2));

    const first = counting(dirSink(dir));
    const upgraded = await runCostExport({ client, sink: first.sink }, LATER);
    const second = counting(dirSink(dir));
    const after = await runCostExport({ client, sink: second.sink }, LATER);

    expect(compacted(upgraded, COSTS_MONTHLY.name)).toMatchObject({ written: 0 });
    expect(
      dailyManifestReads(first.read).filter((k) => k.endsWith(`/${a}.json`) && k.includes('/costs/')).length,
    ).toBe(manifest.sources.length);
    // Only the manifest rewritten, its object and the facts it describes unchanged.
    expect(first.written.filter((k) => k.includes('_monthly'))).toEqual([key]);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(manifest);
    expect(compacted(after, COSTS_MONTHLY.name)).toMatchObject({ written: 0 });
    expect(dailyManifestReads(second.read)).toEqual([]);
    expect(second.written.filter((k) => k.includes('_monthly'))).toEqual([]);
  }, 180_000);

  it('a restated day is seen in the listing of its manifests: its month is rebuilt, the others stay current unread', async () => {
    const [, b] = sim.dataSourceIds() as [string, string];
    const day = `${MONTH}-03`;
    sim.resync(b, day, { costFactor: 2 });
    await runCostExport({ client, sink: dirSink(dir), focus: false }, { from: day, to: day });

    const run = counting(dirSink(dir));
    const next = await runCostExport({ client, sink: run.sink }, LATER);

    const units = compacted(next, COSTS_MONTHLY.name).current + 1;
    expect(compacted(next, COSTS_MONTHLY.name)).toMatchObject({ written: 1 });
    expect(compacted(next, FOCUS_MONTHLY.name)).toMatchObject({ written: 1, current: units - 1 });
    expect(run.written.filter((k) => /_monthly\/.*\.parquet$/.test(k)).sort()).toEqual(
      [objectKey(COSTS_MONTHLY, MONTH, b), objectKey(FOCUS_MONTHLY, MONTH, b)].sort(),
    );
    // Only the restated data source's month read its days' manifests.
    expect(dailyManifestReads(run.read).filter((k) => !k.endsWith(`/${b}.json`))).toEqual([]);
    const { rows } = await queryDuckDB(
      `SELECT count(*) AS n FROM read_parquet('${join(dir, objectKey(COSTS_MONTHLY, MONTH, b))}')`,
    );
    expect(Number(rows[0]!['n'])).toBe(await dailyCount(dir, b));
  }, 180_000);

  it("a failed listing of the monthly table: each month's object is checked by its checksum instead, one failure a unit when that fails too", async () => {
    const [a] = sim.dataSourceIds() as [string];
    const real = dirSink(dir);
    const noListing: Sink = {
      ...real,
      listObjects: async (prefix) => {
        if (prefix.includes('_monthly'))
          throw new SinkError('SINK_LOCAL_FAILED', `could not list ${prefix}: EIO`);
        return real.listObjects(prefix);
      },
    };
    const units = compacted(await runCostExport({ client, sink: real }, LATER), COSTS_MONTHLY.name).current;

    const checked = await runCostExport({ client, sink: noListing }, LATER);
    expect(checked.failed).toBe(0);
    expect(compacted(checked, COSTS_MONTHLY.name)).toMatchObject({ written: 0, current: units });

    const costsA = objectKey(COSTS_MONTHLY, MONTH, a);
    const rows = await rowsOf(join(dir, costsA));
    await truncate(join(dir, costsA), 100);
    const repaired = await runCostExport({ client, sink: noListing }, LATER);
    expect(repaired.failed).toBe(0);
    expect(compacted(repaired, COSTS_MONTHLY.name)).toMatchObject({ written: 1, current: units - 1 });
    expect(await rowsOf(join(dir, costsA))).toEqual(rows);

    // Neither the listing nor the object's bytes: no month is called current, each unit fails once.
    const unreadable: Sink = {
      ...noListing,
      sha256: async (key) => {
        if (key.includes('_monthly')) throw new SinkError('SINK_LOCAL_FAILED', `could not read ${key}: EIO`);
        return real.sha256!(key);
      },
    };
    const failed = await runCostExport({ client, sink: unreadable }, LATER);
    expect(compacted(failed, COSTS_MONTHLY.name)).toMatchObject({ written: 0, current: 0 });
    expect(compacted(failed, COSTS_MONTHLY.name).failures).toHaveLength(units);
    expect(compacted(failed, FOCUS_MONTHLY.name).failures).toHaveLength(units);
    expect(failed.failed).toBe(2 * units);
  }, 180_000);

  it('S3: an untouched month stays current (ETags and sizes agree); a replaced monthly object is rebuilt', async () => {
    const [a] = sim.dataSourceIds() as [string];
    const sink = s3Sink({ client: s3.client, bucket: 'evidence-bucket', prefix: 'e' });
    const first = await runCostExport({ client, sink }, FIRST);
    expect(first.failed).toBe(0);
    const units = compacted(first, COSTS_MONTHLY.name).written;
    expect(units).toBeGreaterThanOrEqual(2);
    const quiet = counting(sink);
    const again = await runCostExport({ client, sink: quiet.sink }, LATER);
    expect(compacted(again, COSTS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(compacted(again, FOCUS_MONTHLY.name)).toMatchObject({ written: 0, current: units });
    expect(quiet.written.filter((k) => k.includes('_monthly'))).toEqual([]);
    expect(dailyManifestReads(quiet.read)).toEqual([]);

    const key = `e/${objectKey(COSTS_MONTHLY, MONTH, a)}`;
    const get = async () =>
      (
        await s3.client.send(new GetObjectCommand({ Bucket: 'evidence-bucket', Key: key }))
      ).Body!.transformToByteArray();
    const body = await get();
    await s3.client.send(
      new PutObjectCommand({ Bucket: 'evidence-bucket', Key: key, Body: body.slice(0, body.length - 7) }),
    );

    const next = await runCostExport({ client, sink }, LATER);

    expect(next.failed).toBe(0);
    expect(compacted(next, COSTS_MONTHLY.name)).toMatchObject({ written: 1, current: units - 1 });
    const restored = await get();
    const path = join(dir, 's3-restored.parquet');
    await writeFile(path, restored);
    await writeFile(join(dir, 's3-original.parquet'), body);
    expect(await rowsOf(path)).toEqual(await rowsOf(join(dir, 's3-original.parquet')));
  }, 180_000);
});
