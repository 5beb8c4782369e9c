// Damage that keeps the size, on S3: an object overwritten behind the exporter's back with as many
// bytes gets a new ETag, which the next run's one listing shows; the day is exported again.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { getObjectBytes } from '../../../harness/s3-server.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-02`;
const PREFIX = 'etag';

let local: LocalAws;
beforeAll(async () => {
  local = await startLocalAws({ seed: 62, dataSources: 1, from: FROM, to: TO, rowsPerDay: 20 });
});
afterAll(async () => {
  await local.stop();
});

describe('same-size damage on S3', () => {
  it('is seen by its ETag and repaired by the next default run', async () => {
    const client = new CloudforetClient({
      endpoint: local.simulator.url,
      token: local.token,
      dispatcher: new Agent(),
    });
    const sink = s3Sink({ client: local.s3.client, bucket: BUCKET, prefix: PREFIX });
    const run = () => runCostExport({ client, sink }, { from: FROM, to: TO });
    expect((await run()).written).toBe(2);
    const [ds] = local.simulator.dataSourceIds() as [string];
    const key = `${PREFIX}/${costObjectKey(ds, FROM)}`;
    const good = await getObjectBytes(local.s3.client, BUCKET, key);
    const damaged = Buffer.from(good);
    damaged.fill(0x7f, 100, 164);
    await local.s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: damaged }));

    const summary = await run();

    const manifest = JSON.parse(
      Buffer.from(
        await getObjectBytes(local.s3.client, BUCKET, `${PREFIX}/${costManifestKey(ds, FROM)}`),
      ).toString(),
    );
    expect(summary).toMatchObject({ units: 1, repaired: 1, written: 1, failed: 0 });
    expect(Buffer.from(await getObjectBytes(local.s3.client, BUCKET, key)).length).toBe(good.length);
    expect(manifest.etag).toMatch(/^[0-9a-f]{32}/);
    expect(manifest.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
