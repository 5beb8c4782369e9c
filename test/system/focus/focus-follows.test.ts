// FOCUS rows follow their costs objects anywhere in the destination, not only in the run's window:
// a FOCUS object cut in half is derived anew by the next run (directory and S3), a costs day
// restated by a run whose window did not reach the focus pass (a kill) is followed by the next
// run whatever its window, and a removal needs the gate's proof recorded in the costs manifest.
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costManifestKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { SinkError } from '../../../functions/lib/errors.ts';
import { focusManifestKey, focusObjectKey } from '../../../functions/lib/focus/derive.ts';
import { FOCUS_SCHEMA_MARK } from '../../../functions/lib/focus/pass.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_2 = monthBack(2);
const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-04`;
const DAY = `${MONTH_2}-02`;
/** A later window that holds none of the days above. */
const LATER = { from: `${monthBack(1)}-01`, to: `${monthBack(1)}-01` };

let sim: Simulator;
let s3: S3Server;
let dir: string;
let client: CloudforetClient;

beforeAll(async () => {
  sim = await startSimulator({ seed: 29, dataSources: 2, from: FROM, to: LATER.to, rowsPerDay: 25 });
  s3 = await startS3({ buckets: ['focus-bucket'] });
  dir = await mkdtemp(join(tmpdir(), 'focus-follows-'));
  client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
});
afterAll(async () => {
  await Promise.all([sim.close(), s3.stop()]);
  await rm(dir, { recursive: true, force: true });
});

/** Every (data source, cost id) in the costs table and in the focus table: one FOCUS row per cost row. */
async function focusAgainstCosts(out: string) {
  const ids = async (table: string, ds: string, id: string) =>
    (
      await queryDuckDB(
        `SELECT ${ds} AS ds, ${id} AS id FROM read_parquet('${out}/${table}/**/*.parquet', hive_partitioning = false) ORDER BY ALL`,
      )
    ).rows;
  const costs = await ids('costs', 'data_source_id', 'cost_id');
  expect(costs.length).toBeGreaterThan(0);
  return { costs, focus: await ids('focus', 'x_data_source_id', 'x_cost_id') };
}

describe('FOCUS rows follow their costs objects everywhere', () => {
  it('a FOCUS object cut in half is derived anew by the next run outside its window (directory)', async () => {
    const sink = dirSink(dir);
    expect((await runCostExport({ client, sink }, { from: FROM, to: TO })).failed).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    const path = join(dir, focusObjectKey(ds, DAY));
    const size = (await readFile(path)).length;
    await truncate(path, Math.floor(size / 2));

    const next = await runCostExport({ client, sink }, LATER);

    expect(next.failed).toBe(0);
    expect(next.focus).toMatchObject({ repaired: 1 });
    expect((await readFile(path)).length).toBe(size);
    const { costs, focus } = await focusAgainstCosts(dir);
    expect(focus).toEqual(costs);
  });

  it('a costs day restated where no focus pass followed is followed by the next run, whatever its window', async () => {
    const sink = dirSink(dir);
    const [, ds] = sim.dataSourceIds() as [string, string];
    sim.resync(ds, DAY, { costFactor: 2 });
    // The restating run ends before its focus pass (as a kill or the deadline would).
    const restated = await runCostExport({ client, sink, focus: false }, { from: DAY, to: DAY });
    expect(restated.written).toBe(1);

    const next = await runCostExport({ client, sink }, LATER);

    expect(next.focus).toMatchObject({ written: 1, failures: [] });
    const { costs, focus } = await focusAgainstCosts(dir);
    expect(focus).toEqual(costs);
  });

  it("a FOCUS object replaced behind the exporter's back on S3 is derived anew; --verify reads every one", async () => {
    const sink = s3Sink({ client: s3.client, bucket: 'focus-bucket', prefix: 'x' });
    expect((await runCostExport({ client, sink }, { from: FROM, to: TO })).failed).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    const key = `x/${focusObjectKey(ds, DAY)}`;
    const bytes = await (
      await s3.client.send(new GetObjectCommand({ Bucket: 'focus-bucket', Key: key }))
    ).Body!.transformToByteArray();
    await new Promise((r) => setTimeout(r, 1100)); // S3 keeps LastModified to the second
    await s3.client.send(
      new PutObjectCommand({
        Bucket: 'focus-bucket',
        Key: key,
        Body: bytes.slice(0, Math.floor(bytes.length / 2)),
      }),
    );

    const next = await runCostExport({ client, sink }, LATER);
    const verified = await runCostExport({ client, sink }, { ...LATER, verify: true });

    expect(next.focus).toMatchObject({ repaired: 1, failures: [] });
    expect(verified.focus).toMatchObject({ repaired: 0, written: 0, failures: [] });
    expect(verified.focus!.current).toBeGreaterThanOrEqual(8);
  });

  it('a costs manifest whose checksum was changed is repaired from Cloudforet in the same run, not failed every run', async () => {
    const sink = dirSink(dir);
    const [ds] = sim.dataSourceIds() as [string];
    const manifestPath = join(dir, costManifestKey(ds, `${MONTH_2}-03`));
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(manifestPath, JSON.stringify({ ...manifest, sha256: '0'.repeat(64) }, null, 2));

    const next = await runCostExport({ client, sink }, LATER);

    expect(next.failed).toBe(0);
    expect(next.repaired).toBe(1);
    expect(JSON.parse(await readFile(manifestPath, 'utf8')).sha256).not.toBe('0'.repeat(64));
    const { costs, focus } = await focusAgainstCosts(dir);
    expect(focus).toEqual(costs);
  });

  it('a destination that fails in the focus pass still gives the run its summary, the pass failed', async () => {
    const real = dirSink(dir);
    const outage: Sink = {
      ...real,
      listObjects: async (prefix) => {
        if (prefix.includes('focus'))
          throw new SinkError('SINK_LOCAL_FAILED', `could not list ${prefix}: EIO`);
        return real.listObjects(prefix);
      },
    };

    const run = await runCostExport({ client, sink: outage }, LATER);

    expect(run.failed).toBe(1);
    expect(run.focus?.failures).toEqual([expect.objectContaining({ code: 'SINK_LOCAL_FAILED' })]);
  });

  it('a new schema version re-derives every unit anywhere once, then listings suffice again', async () => {
    const sink = dirSink(dir);
    const [ds] = sim.dataSourceIds() as [string];
    const manifestPath = join(dir, focusManifestKey(ds, `${MONTH_2}-04`));
    const old = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(manifestPath, JSON.stringify({ ...old, schemaVersion: 1 }));
    await writeFile(join(dir, FOCUS_SCHEMA_MARK), JSON.stringify({ schemaVersion: 1 }));

    const upgraded = await runCostExport({ client, sink }, LATER);
    const after = await runCostExport({ client, sink }, LATER);

    expect(upgraded.focus).toMatchObject({ written: 1, failures: [] });
    expect(JSON.parse(await readFile(join(dir, FOCUS_SCHEMA_MARK), 'utf8')).schemaVersion).toBe(
      old.schemaVersion,
    );
    expect(after.focus?.current).toBeLessThan(upgraded.focus!.current);
  });

  it('a proven removal stays on record through a later empty rerun, and the FOCUS object follows it', async () => {
    const sink = dirSink(dir);
    const [, ds] = sim.dataSourceIds() as [string, string];
    const day = `${MONTH_2}-03`;
    sim.resync(ds, day, { rowDelta: -1_000_000 });
    // Removed with its proof, by runs that end before their focus pass.
    const removed = await runCostExport({ client, sink, focus: false }, { from: day, to: day });
    const rerun = await runCostExport({ client, sink, focus: false }, { from: day, to: day, force: true });

    const next = await runCostExport({ client, sink }, LATER);

    expect([removed.removed, rerun.removed]).toEqual([1, 0]);
    expect(next.focus).toMatchObject({ removed: 1, failures: [] });
    const { costs, focus } = await focusAgainstCosts(dir);
    expect(focus).toEqual(costs);
  });
});
