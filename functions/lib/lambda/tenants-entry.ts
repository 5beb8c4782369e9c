// The entry of a state that serves every tenant of one run at once (the daily run's Lanes and
// TenantsSummary, infra/tenants-run.ts): no tenant scope, since it serves none alone; the shared
// destination and each tenant's endpoint from EXPORT_TENANTS. Its result and any error leave
// through the one redactor, as every entry's do (entry.ts).
import type { Context } from 'aws-lambda';
import { destinationSettings } from '../config.ts';
import { ConfigError } from '../errors.ts';
import { limitHeapGrowth } from '../heap-growth.ts';
import { createLogger, type Logger, type LogLevel, logLevelProblem } from '../log.ts';
import { redactError, redactValue } from '../redact/redact.ts';
import { openSink } from '../storage/open-sink.ts';
import type { Sink } from '../storage/sink.ts';
import { decodeTenants, type TenantConnection } from '../tenant.ts';

export interface AcrossTenants {
  /** The bucket, keys whole: the shared destination `<prefix>/` and every tenant's folder are in it. */
  readonly sink: Sink;
  readonly bucket: string;
  readonly prefix: string;
  readonly tenants: ReadonlyMap<string, TenantConnection>;
  readonly log: Logger;
}

// As every Lambda entry (entry.ts): the Lanes state holds a lane's units, large in a backfill.
limitHeapGrowth();

export function acrossTenantsEntry<Req, Res>(
  name: string,
  useCase: {
    parse(event: unknown): Req;
    run(entry: AcrossTenants, request: Req): Promise<Res>;
  },
): (event: unknown, context?: Context) => Promise<Res> {
  return async (event, context) => {
    try {
      const env = process.env;
      const bucket = env.EXPORT_BUCKET?.trim();
      const text = env.EXPORT_TENANTS?.trim();
      const decoded = text
        ? decodeTenants(text)
        : {
            tenants: new Map(),
            problems: [`EXPORT_TENANTS is not set: ${name} serves the daily run across a stack's tenants`],
          };
      const { tenants } = decoded;
      const level = logLevelProblem(env.LOG_LEVEL);
      const destination = destinationSettings(env);
      const problems = [
        ...decoded.problems,
        ...destination.problems,
        ...(bucket ? [] : ['EXPORT_BUCKET is not set']),
        ...(level ? [level] : []),
      ];
      if (problems.length > 0)
        throw new ConfigError('CONFIG_INVALID', `configuration: ${problems.join('; ')}`);
      const { prefix } = destination;
      const log = createLogger({
        level: (env.LOG_LEVEL?.trim() || 'info') as LogLevel,
        fields: { function: name, requestId: context?.awsRequestId },
      });
      const request = useCase.parse(event);
      const sink = openSink(`s3://${bucket}`);
      return redactValue(await useCase.run({ sink, bucket: bucket!, prefix, tenants, log }, request));
    } catch (error) {
      throw redactError(error);
    }
  };
}
