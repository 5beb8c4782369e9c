// The world's destination on S3 (s3rver, with a Secrets Manager responder holding the app), so the
// cost function's real handler runs beside the CLI on one archive. The checks read a mirror of the
// bucket (world.out), refreshed before each; a damage is made on the mirror and pushed.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { applyEnv, awsEnv, BUCKET, PREFIX, SECRET_ID } from '../local-aws.ts';
import { getObjectBytes, listKeys, type S3Server, startS3 } from '../s3-server.ts';
import { type SecretsManagerResponder, startSecretsManager } from '../secrets-manager.ts';
import { consoleAppJson } from '../tokens.ts';

export interface S3Destination {
  readonly destination: string;
  /** s3rver's data directory (to copy as a template). */
  readonly dataDir: string;
  /** The bucket's objects under the prefix, written afresh into `into`. */
  mirror(into: string): Promise<void>;
  /** One key of the mirror written back (or deleted when the mirror has none). */
  push(from: string, key: string): Promise<void>;
  close(): Promise<void>;
}

/** `template`: an s3rver data directory to start from (copied). */
export async function startS3Destination(
  gatewayUrl: string,
  token: string,
  template?: string,
): Promise<S3Destination> {
  const dataDir = await mkdtemp(join(tmpdir(), 'adversary-s3-'));
  if (template) await cp(template, dataDir, { recursive: true, preserveTimestamps: true });
  const s3: S3Server = await startS3({ buckets: [BUCKET], directory: dataDir });
  const secrets: SecretsManagerResponder = await startSecretsManager({ [SECRET_ID]: consoleAppJson(token) });
  // The CLI (--out s3://…) and the handler read the environment, as on a machine or in Lambda.
  const restore = applyEnv({
    ...awsEnv(gatewayUrl, s3, secrets),
    SECRET_TTL_SECONDS: '0',
    LOG_LEVEL: 'warn',
  });
  return {
    destination: `s3://${BUCKET}/${PREFIX}`,
    dataDir,
    mirror: async (into) => {
      await rm(into, { recursive: true, force: true });
      await mkdir(into, { recursive: true });
      for (const key of await listKeys(s3.client, BUCKET, `${PREFIX}/`)) {
        const path = join(into, key.slice(PREFIX.length + 1));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, await getObjectBytes(s3.client, BUCKET, key));
      }
    },
    push: async (from, key) => {
      const bytes = await readFile(join(from, key)).catch(() => undefined);
      const Key = `${PREFIX}/${key}`;
      await s3.client.send(
        bytes
          ? new PutObjectCommand({ Bucket: BUCKET, Key, Body: bytes })
          : new DeleteObjectCommand({ Bucket: BUCKET, Key }),
      );
    },
    close: async () => {
      restore();
      await Promise.all([s3.stop(), secrets.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
