// The adapters of an entry that talks to Cloudforet: a session (the client_secret from Secrets
// Manager) and the S3 sink. The secret sources live in module scope so warm invocations reuse the
// cached client_secret: a deliberate warm-Lambda cache, one source per secret in one place (id,
// region, endpoint), so a changed environment never reuses it, and tenants taking turns on one
// warm function (tenant-scope.ts) each keep their own.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type SecretSource, secretsManagerSource } from '../cloudforet/secret.ts';
import { type CloudforetSession, openSession } from '../cloudforet/session.ts';
import type { Sink } from '../storage/sink.ts';
import { connectSink } from './connect-sink.ts';
import type { EntryContext } from './entry.ts';

const secrets = new Map<string, SecretSource>();

export interface CloudforetConnection {
  readonly session: CloudforetSession;
  readonly sink: Sink;
}

export async function connectCloudforet({ config, log }: EntryContext): Promise<CloudforetConnection> {
  const { AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL } = process.env;
  const key = [config.secretId, AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER ?? AWS_ENDPOINT_URL].join('|');
  let source = secrets.get(key);
  if (source === undefined) {
    // The SDK alone waits for ever on a Secrets Manager that answers nothing (a VPC without its
    // endpoint): each attempt is bounded as Cloudforet's requests are, well inside the timeout.
    const client = new SecretsManagerClient({
      requestHandler: {
        connectionTimeout: config.requestTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        throwOnRequestTimeout: true,
      },
    });
    source = secretsManagerSource({ client, secretId: config.secretId, ttlMs: config.secretTtlMs });
    secrets.set(key, source);
  }
  const session = await openSession({
    endpoint: config.endpoint,
    secrets: source,
    log,
    requestTimeoutMs: config.requestTimeoutMs,
    maxAnswerBytes: config.maxAnswerBytes,
  });
  return { session, sink: (await connectSink({ config })).sink };
}

/** What an export run takes from an entry connected to Cloudforet: its adapters, settings and stop. */
export function exportRunDeps(entry: EntryContext & CloudforetConnection) {
  const { session, sink, config, runId, log, shouldStartUnit, signal } = entry;
  return {
    client: session.client,
    sink,
    credential: session.credential,
    concurrency: config.concurrency,
    compression: config.compression,
    runId,
    log,
    shouldStartUnit,
    signal,
  };
}
