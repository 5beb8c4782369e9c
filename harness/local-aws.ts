// Everything a handler meets in AWS, on loopback: the Cloudforet simulator, s3rver as S3 and a
// Secrets Manager responder, wired through the same environment variables Lambda would set.

import { type S3Server, startS3 } from './s3-server.ts';
import { type SecretsManagerResponder, startSecretsManager } from './secrets-manager.ts';
import { type Simulator, type SimulatorOptions, startSimulator } from './simulator/index.ts';
import { consoleAppJson } from './tokens.ts';

export const BUCKET = 'exports';
export const PREFIX = 'cf';
export const SECRET_ID = 'cloudforet/app';

export interface LocalAws {
  readonly simulator: Simulator;
  readonly s3: S3Server;
  readonly secrets: SecretsManagerResponder;
  readonly token: string;
  readonly env: Record<string, string>;
  /** Set the environment as Lambda would; returns a function restoring the previous one. */
  applyEnv(extra?: Record<string, string>): () => void;
  stop(): Promise<void>;
}

/** `s3Directory`: where the bucket's objects stay between runs (default: a temporary folder). */
export async function startLocalAws(options: SimulatorOptions = {}, s3Directory?: string): Promise<LocalAws> {
  const simulator = await startSimulator(options);
  // What started is stopped when the next one fails to: a caller gets nothing to clean up.
  const s3 = await startS3({ buckets: [BUCKET], ...(s3Directory ? { directory: s3Directory } : {}) }).catch(
    async (error: unknown) => {
      await simulator.close();
      throw error;
    },
  );
  const token = simulator.issueToken();
  const secrets = await startSecretsManager({ [SECRET_ID]: consoleAppJson(token) }).catch(
    async (error: unknown) => {
      await Promise.all([simulator.close(), s3.stop()]);
      throw error;
    },
  );
  const env = awsEnv(simulator.url, s3, secrets);
  return {
    simulator,
    s3,
    secrets,
    token,
    env,
    applyEnv: (extra = {}) => applyEnv({ ...env, ...extra }),
    stop: async () => {
      await Promise.all([simulator.close(), s3.stop(), secrets.stop()]);
    },
  };
}

/** The environment Lambda would set for the functions: Cloudforet at `endpoint`, S3 and Secrets Manager on loopback. */
export function awsEnv(
  endpoint: string,
  s3: Pick<S3Server, 'endpoint'>,
  secrets: Pick<SecretsManagerResponder, 'endpoint'>,
): Record<string, string> {
  return {
    CLOUDFORET_ENDPOINT: endpoint,
    CLOUDFORET_SECRET_ID: SECRET_ID,
    EXPORT_BUCKET: BUCKET,
    EXPORT_PREFIX: PREFIX,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    LOG_LEVEL: 'info',
  };
}

/** Sets the environment as Lambda would; returns a function restoring the previous one. */
export function applyEnv(values: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
