// A real S3-compatible server on loopback: s3rver in a child process (see s3rver-child.mjs for why).
// s3rver answers ListMultipartUploads with NotImplemented and AbortMultipartUpload with
// MethodNotAllowed, so leftover uploads are found by reading its directory (listPendingUploads).

import { fork } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export interface S3Server {
  readonly endpoint: string;
  readonly port: number;
  /** s3rver's data directory: <dir>/<bucket>/<key path>._S3rver_object and friends. */
  readonly dir: string;
  readonly client: S3Client;
  /** The variables through which the AWS SDK (the functions' and the CLI's) reaches this server. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

const childScript = fileURLToPath(new URL('./s3rver-child.mjs', import.meta.url));

/** `directory`: keep the objects there, across servers (npm run invoke -- --keep); else a temporary one. */
export async function startS3(opts: { buckets?: string[]; directory?: string } = {}): Promise<S3Server> {
  const kept = opts.directory !== undefined;
  const dir = opts.directory ?? (await mkdtemp(join(tmpdir(), 's3rver-')));
  const child = fork(childScript, [JSON.stringify({ directory: dir, buckets: opts.buckets ?? [] })], {
    execArgv: ['--openssl-legacy-provider'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { port: number }).port));
      child.once('exit', (code) =>
        reject(new Error(`s3rver exited with code ${code} before listening: ${stderr}`)),
      );
      child.once('error', reject);
    });
  } catch (error) {
    if (!kept) await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const env = {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  return {
    endpoint,
    port,
    dir,
    client,
    env,
    async stop() {
      client.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      if (!kept) await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function listKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

export async function getObjectBytes(client: S3Client, bucket: string, key: string): Promise<Uint8Array> {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (answer.Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
  return answer.Body.transformToByteArray();
}

export interface PendingUpload {
  readonly uploadId: string;
  readonly key: string;
  /** Part numbers stored so far, ascending. */
  readonly parts: number[];
}

/** Multipart uploads begun and neither completed nor cleaned up, read from s3rver's directory. */
export async function listPendingUploads(dir: string, bucket: string): Promise<PendingUpload[]> {
  const uploadsDir = join(dir, bucket, '._S3rver_uploads');
  const ids = await readdir(uploadsDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return Promise.all(
    ids.sort().map(async (uploadId) => {
      const files = await readdir(join(uploadsDir, uploadId));
      const parts = files
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .sort((a, b) => a - b);
      const key = await readFile(join(uploadsDir, uploadId, 'key'), 'utf8');
      return { uploadId, key, parts };
    }),
  );
}
