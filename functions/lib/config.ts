// Function configuration from the environment, read when asked (never at import time).
// Every missing or invalid variable is reported in one error.
import { COMPRESSIONS, type Compression, DEFAULT_COMPRESSION, parseCompression } from './codecs.ts';
import { ConfigError } from './errors.ts';
import { plainHttpProblem } from './input/endpoint-rule.ts';
import { parseWholeNumber, wholeNumberProblem } from './input/whole-number.ts';
import { type LogLevel, logLevelProblem, parseLogLevel } from './log.ts';

export interface FunctionConfig {
  readonly endpoint: string;
  readonly secretId: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly concurrency: number;
  readonly maxInlineDays: number;
  /** Months in the default window of an event without dates, the current one included. */
  readonly windowMonths: number;
  /** The deadline of each Cloudforet request, headers and body together. */
  readonly requestTimeoutMs: number;
  /** The longest Cloudforet answer body taken, in bytes (set in MiB). */
  readonly maxAnswerBytes: number;
  readonly secretTtlMs: number;
  /** A cost sync job IN_PROGRESS for longer is stale: twice Cloudforet's default job timeout. */
  readonly staleJobAfterMs: number;
  readonly logLevel: LogLevel;
  /** Parquet page codec: ZSTD (the default, smaller and cheaper, docs/performance.md) or GZIP. */
  readonly compression: Compression;
  /** A data source whose newest billed day or last sync is older than this is stale (alarm). */
  readonly freshnessHours: number;
  /**
   * The Glue database whose `focus` table's partitions the cost run keeps (FOCUS_GLUE_DATABASE,
   * compaction/focus-catalog.ts); undefined: no catalog kept (the CLI, a stack before 0.3).
   */
  readonly focusGlueDatabase?: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export function readConfig(env: Env): FunctionConfig {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is not set`);
    return value ?? '';
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const value = parseWholeNumber(raw, min, max);
    if (value === undefined) problems.push(wholeNumberProblem(name, min, max, raw));
    return value ?? fallback;
  };
  const endpoint = required('CLOUDFORET_ENDPOINT');
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) {
    problems.push(
      `CLOUDFORET_ENDPOINT must be an http(s) URL, e.g. https://console-v2.api.example.com (got '${endpoint}')`,
    );
  } else if (endpoint) {
    const clear = plainHttpProblem('CLOUDFORET_ENDPOINT', endpoint);
    if (clear) problems.push(clear);
  }
  const { prefix, problems: destinationProblems } = destinationSettings(env);
  problems.push(...destinationProblems);
  const config: FunctionConfig = {
    endpoint,
    secretId: required('CLOUDFORET_SECRET_ID'),
    bucket: required('EXPORT_BUCKET'),
    prefix,
    concurrency: integer('EXPORT_CONCURRENCY', 4, 1, 64),
    maxInlineDays: integer('MAX_INLINE_DAYS', 62, 1, 400),
    windowMonths: integer('EXPORT_WINDOW_MONTHS', 2, 1, 12),
    requestTimeoutMs: integer('CLOUDFORET_TIMEOUT_MS', 60_000, 1_000, 600_000),
    maxAnswerBytes: integer('CLOUDFORET_MAX_ANSWER_MB', 64, 1, 1024) * 1024 * 1024,
    secretTtlMs: integer('SECRET_TTL_SECONDS', 300, 0, 86_400) * 1000,
    staleJobAfterMs: integer('STALE_JOB_HOURS', 4, 1, 168) * 3_600_000,
    logLevel: parseLogLevel(env.LOG_LEVEL?.trim()),
    compression: parseCompression(env.PARQUET_COMPRESSION ?? '') ?? DEFAULT_COMPRESSION,
    freshnessHours: integer('FRESHNESS_HOURS', 36, 1, 720),
    focusGlueDatabase: env.FOCUS_GLUE_DATABASE?.trim() || undefined,
  };
  const codec = env.PARQUET_COMPRESSION?.trim();
  if (codec && parseCompression(codec) === undefined) {
    problems.push(`PARQUET_COMPRESSION must be ${COMPRESSIONS.join(' or ')} (got '${codec}')`);
  }
  const glueDatabase = env.FOCUS_GLUE_DATABASE?.trim();
  if (glueDatabase && !/^[a-z0-9_]{1,255}$/.test(glueDatabase)) {
    problems.push(
      `FOCUS_GLUE_DATABASE must be a Glue database name: lower-case letters, digits and '_' (got '${glueDatabase}')`,
    );
  }
  const levelProblem = logLevelProblem(env.LOG_LEVEL);
  if (levelProblem) problems.push(levelProblem);
  if (problems.length > 0) {
    throw new ConfigError('CONFIG_INVALID', `configuration: ${problems.join('; ')}`);
  }
  return config;
}

/** A bucket given as a URL or an ARN, where the variable takes the bucket's name alone. */
/**
 * The destination's settings every function reads (EXPORT_BUCKET's name rule, EXPORT_PREFIX
 * without surrounding slashes or '.' segments): readConfig's, and the entry of the states that
 * serve every tenant at once (lambda/tenants-entry.ts). EXPORT_BUCKET's absence is the caller's.
 */
export function destinationSettings(env: Env): { readonly prefix: string; readonly problems: string[] } {
  const problems: string[] = [];
  const bucketProblem = bucketNameProblem(env.EXPORT_BUCKET?.trim());
  if (bucketProblem) problems.push(bucketProblem);
  const prefix = (env.EXPORT_PREFIX ?? '').trim().replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((segment) => segment === '..' || segment === '.')) {
    problems.push(`EXPORT_PREFIX must not hold '.' or '..' segments (got '${env.EXPORT_PREFIX}')`);
  }
  return { prefix, problems };
}

function bucketNameProblem(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const name = /^s3:\/\/([^/]*)/i.exec(value)?.[1] ?? /^arn:aws[\w-]*:s3:::([^/]*)/.exec(value)?.[1];
  if (name === undefined) return undefined;
  return `EXPORT_BUCKET takes the bucket's name alone, not a URL or an ARN (got '${value}'): set EXPORT_BUCKET=${name || '<bucket>'}, and a prefix in EXPORT_PREFIX`;
}
