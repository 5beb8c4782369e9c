// A cost object deleted or truncated behind the exporter's back is found by the next default run
// (manifests against one sized listing of the table) and re-exported as a repair.
import { mkdtemp, readFile, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_1 = monthBack(1);

const FROM = `${MONTH_1}-01`;
const TO = `${MONTH_1}-04`;

describe('published objects are verified against their manifests', () => {
  let sim: Simulator;
  let s3: S3Server;
  let dir: string;
  let client: CloudforetClient;
  const dayRows = async (out: string, ds: string, day: string) =>
    Number(
      (
        await queryDuckDB(
          `SELECT count(*) AS n FROM read_parquet('${out}/costs/*/*', hive_partitioning = true) WHERE data_source_id = '${ds}' AND billed_date::VARCHAR = '${day}'`,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, dataSources: 2, from: FROM, to: TO, rowsPerDay: 50 });
    s3 = await startS3({ buckets: ['repair-bucket'] });
    dir = await mkdtemp(join(tmpdir(), 'repair-'));
    client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
  });
  afterAll(async () => {
    await Promise.all([sim.close(), s3.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('restores a deleted and a truncated object on the next default run, and reports them repaired', async () => {
    const sink = dirSink(dir);
    await runCostExport({ client, sink }, { from: FROM, to: TO });
    const [a, b] = sim.dataSourceIds() as [string, string];
    await rm(join(dir, costObjectKey(a, `${MONTH_1}-02`)));
    const truncated = join(dir, costObjectKey(b, `${MONTH_1}-03`));
    const size = (await readFile(truncated)).length;
    await truncate(truncated, Math.floor(size / 2));

    const summary = await runCostExport({ client, sink }, { from: FROM, to: TO });

    expect(summary).toMatchObject({ units: 2, repaired: 2, written: 2, unchanged: 6, failed: 0 });
    expect((await readFile(truncated)).length).toBe(size);
    expect(await dayRows(dir, a, `${MONTH_1}-02`)).toBe(sim.costTruth(a, `${MONTH_1}-02`).rows);
    expect(await dayRows(dir, b, `${MONTH_1}-03`)).toBe(sim.costTruth(b, `${MONTH_1}-03`).rows);
    expect((await runCostExport({ client, sink }, { from: FROM, to: TO })).units).toBe(0);
  });

  it('does the same on S3, from one listing of the table', async () => {
    const sink = s3Sink({ client: s3.client, bucket: 'repair-bucket', prefix: 'p' });
    await runCostExport({ client, sink }, { from: FROM, to: TO });
    const [a, b] = sim.dataSourceIds() as [string, string];
    await s3.client.send(
      new DeleteObjectCommand({ Bucket: 'repair-bucket', Key: `p/${costObjectKey(a, FROM)}` }),
    );
    await s3.client.send(
      new PutObjectCommand({
        Bucket: 'repair-bucket',
        Key: `p/${costObjectKey(b, TO)}`,
        Body: 'PAR1 cut short',
      }),
    );

    const summary = await runCostExport({ client, sink }, { from: FROM, to: TO });

    expect(summary).toMatchObject({ units: 2, repaired: 2, written: 2, failed: 0 });
    expect((await runCostExport({ client, sink }, { from: FROM, to: TO })).units).toBe(0);
  });
});
