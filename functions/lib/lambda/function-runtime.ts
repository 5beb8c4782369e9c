// What every Lambda entry needs: config, a logger, and (after the event is validated) a
// Cloudforet session and the S3 sink. The secret source lives in module scope so warm
// invocations reuse the cached client_secret: a deliberate warm-Lambda cache, valid for one
// secret in one place (id, region, endpoint), so a changed environment never reuses it.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { type CloudforetSession, openSession } from '../cloudforet/session.ts';
import { type FunctionConfig, readConfig } from '../config.ts';
import { openSink } from '../storage/open-sink.ts';
import { createLogger, type Logger } from '../log.ts';
import { type SecretSource, secretsManagerSource } from '../cloudforet/secret.ts';
import type { Sink } from '../storage/sink.ts';

let secrets: { key: string; source: SecretSource } | undefined;

export interface FunctionRuntime {
  readonly config: FunctionConfig;
  readonly log: Logger;
  readonly runId: string | undefined;
  /** Load the secret and open the client and sink; call it after the event is validated. */
  connect(): Promise<{ session: CloudforetSession; sink: Sink }>;
}

export function functionRuntime(name: string, context: Context | undefined): FunctionRuntime {
  const config = readConfig(process.env);
  const log = createLogger({
    level: config.logLevel,
    fields: { function: name, requestId: context?.awsRequestId },
  });
  return {
    config,
    log,
    runId: context?.awsRequestId,
    connect: async () => {
      const { AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL } = process.env;
      const key = [config.secretId, AWS_REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER ?? AWS_ENDPOINT_URL].join(
        '|',
      );
      if (secrets?.key !== key) {
        const client = new SecretsManagerClient({});
        const source = secretsManagerSource({ client, secretId: config.secretId, ttlMs: config.secretTtlMs });
        secrets = { key, source };
      }
      const session = await openSession({
        endpoint: config.endpoint,
        secrets: secrets.source,
        log,
        requestTimeoutMs: config.requestTimeoutMs,
        maxAnswerBytes: config.maxAnswerBytes,
      });
      return { session, sink: openSink(`s3://${config.bucket}/${config.prefix}`) };
    },
  };
}
