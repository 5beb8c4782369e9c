import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  CreateMultipartUploadCommand,
  ListBucketsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getObjectBytes,
  listKeys,
  listPendingUploads,
  type S3Server,
  startS3,
} from '../../../harness/s3-server.ts';

describe('startS3', () => {
  it('starts s3rver with the buckets asked for, and stop removes its directory', async () => {
    const s3 = await startS3({ buckets: ['alpha', 'beta'] });
    const answer = await s3.client.send(new ListBucketsCommand({}));

    await s3.stop();

    expect(answer.Buckets?.map((bucket) => bucket.Name).sort()).toEqual(['alpha', 'beta']);
    expect(existsSync(s3.dir)).toBe(false);
  });
});

describe('s3rver behind startS3', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3({ buckets: ['data'] });
  });
  afterAll(async () => {
    await s3.stop();
  });

  it('pages ListObjectsV2 past 1,000 keys', async () => {
    const keys = Array.from({ length: 1100 }, (_, i) => `many/k-${String(i).padStart(4, '0')}`);
    await putAll(s3, 'data', keys, 32);

    const listed = await listKeys(s3.client, 'data', 'many/');

    expect(listed).toHaveLength(1100);
    expect(listed).toEqual(keys);
  });

  it('completes a ~12 MB multipart Upload that reads back byte for byte', async () => {
    const body = randomBytes(12 * 1024 * 1024 + 123);
    const upload = new Upload({
      client: s3.client,
      params: { Bucket: 'data', Key: 'big/blob.bin', Body: body },
      partSize: 5 * 1024 * 1024,
      queueSize: 3,
    });

    await upload.done();
    const read = await getObjectBytes(s3.client, 'data', 'big/blob.bin');

    expect(read.byteLength).toBe(body.byteLength);
    expect(sha256(read)).toBe(sha256(body));
    const pending = await listPendingUploads(s3.dir, 'data');
    expect(pending.filter((u) => u.key === 'big/blob.bin')).toEqual([]);
  });

  it('shows an upload left unfinished in listPendingUploads', async () => {
    const created = await s3.client.send(
      new CreateMultipartUploadCommand({ Bucket: 'data', Key: 'left/over.bin' }),
    );
    await s3.client.send(
      new UploadPartCommand({
        Bucket: 'data',
        Key: 'left/over.bin',
        UploadId: created.UploadId,
        PartNumber: 1,
        Body: randomBytes(1024),
      }),
    );

    const pending = await listPendingUploads(s3.dir, 'data');

    expect(pending).toEqual([{ uploadId: created.UploadId, key: 'left/over.bin', parts: [1] }]);
  });
});

async function putAll(
  s3: S3Server,
  bucket: string,
  keys: readonly string[],
  concurrency: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
