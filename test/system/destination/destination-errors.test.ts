// Destination failures say what went wrong underneath (the SDK's or the system's cause) and what
// to do, and an unusable destination fails before the first Cloudforet request.
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_1 = monthBack(1);

describe('destination errors', () => {
  let sim: Simulator;
  let s3: S3Server;
  let dir: string;
  let secretFile: string;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 47,
      dataSources: 1,
      from: `${MONTH_1}-01`,
      to: `${MONTH_1}-02`,
      rowsPerDay: 5,
    });
    s3 = await startS3({ buckets: ['errors-bucket'] });
    ({ dir, secretFile } = await appFolder('dest-errors', sim.issueToken()));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), s3.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('an unwritable --out fails with the system cause and a remedy, before any Cloudforet request', async () => {
    await writeFile(join(dir, 'a-file'), 'not a directory');
    const io = fakeIo();
    const requestsBefore = sim.requests.length;

    const code = await main(
      [
        'costs',
        '--endpoint',
        sim.url,
        '--secret-file',
        secretFile,
        '--out',
        join(dir, 'a-file', 'out'),
        '--date',
        `${MONTH_1}-01`,
      ],
      {},
      io,
    );

    expect(code).toBe(2);
    expect(io.err()).toContain('ENOTDIR');
    expect(io.err()).toContain('a file stands where a folder must be');
    expect(io.err()).toContain('[SINK_LOCAL_FAILED]');
    expect(sim.requests.length).toBe(requestsBefore);
  });

  it('S3 connection refused names ECONNREFUSED and the endpoint to check', async () => {
    const sink = s3Sink({
      client: s3ClientAt(`http://127.0.0.1:${await closedPort()}`),
      bucket: 'b',
      prefix: '',
    });

    const error = await sink
      .put('k.json', '{}', 'application/json')
      .catch((e: unknown) => e as Error & { code: string });

    expect(error).toMatchObject({ code: 'SINK_S3_FAILED' });
    expect(error!.message).toContain('ECONNREFUSED');
    expect(error!.message).toContain('check AWS_ENDPOINT_URL_S3');
  });

  it('a missing bucket names the bucket and what to check', async () => {
    const sink = s3Sink({ client: s3.client, bucket: 'no-such-bucket', prefix: 'p' });

    const error = await sink.put('k.json', '{}', 'application/json').catch((e: unknown) => e as Error);

    expect(error!.message).toContain('NoSuchBucket');
    expect(error!.message).toContain("bucket 'no-such-bucket' does not exist in this account and region");
  });

  it('missing AWS credentials say where credentials come from', async () => {
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: async () => {
        const error = new Error('Could not load credentials from any providers');
        error.name = 'CredentialsProviderError';
        throw error;
      },
    });
    const sink = s3Sink({ client, bucket: 'errors-bucket', prefix: '' });

    const error = await sink.put('k.json', '{}', 'application/json').catch((e: unknown) => e as Error);

    expect(error!.message).toContain(
      'CredentialsProviderError (Could not load credentials from any providers)',
    );
    expect(error!.message).toContain('set AWS_PROFILE');
  });
});

function s3ClientAt(endpoint: string): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
