// A role whose s3:ListBucket is limited to the export prefix (the stack's roles) gets 403, not 404,
// for a GET of a key that does not exist (Amazon S3 User Guide, "GetObject": without
// s3:ListBucket S3 returns 403 Access Denied for a missing key). The sink tells "not there" from
// "not allowed" by a listing, so a first run's claim and manifest reads see "none", not a failure.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';

/** Keys the loopback bucket lists; every GET is refused 403, as to such a role. */
let listed: string[] = [];
let server: Server;
let client: S3Client;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.setHeader('content-type', 'application/xml');
    if (url.searchParams.get('list-type') === '2') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const contents = listed
        .filter((k) => k.startsWith(prefix))
        .map((k) => `<Contents><Key>${k}</Key><Size>3</Size><ETag>"e"</ETag></Contents>`)
        .join('');
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><Prefix>${prefix}</Prefix>` +
          `<KeyCount>${contents ? 1 : 0}</KeyCount><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
      );
      return;
    }
    res.statusCode = 403;
    res.end(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the S3 sink reading a key under a prefix-limited role', () => {
  it('takes a 403 for a key the prefix does not list as no object', async () => {
    listed = [];

    const text = await s3Sink({ client, bucket: 'b', prefix: 'cf' }).read('_destination.json');

    expect(text).toBeUndefined();
  });

  it('fails a 403 for a key that is listed: access is really denied', async () => {
    listed = ['cf/_destination.json'];

    const read = s3Sink({ client, bucket: 'b', prefix: 'cf' }).read('_destination.json');

    await expect(read).rejects.toMatchObject({ code: 'SINK_S3_FAILED' });
    await expect(read).rejects.toThrow(/AccessDenied/);
  });
});
