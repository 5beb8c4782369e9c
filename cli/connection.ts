// The settings every command shares, from options and the environment, each checked before any
// request: the endpoint (https, or http on this machine), the per-request timeout and answer
// size limit, the secret, the destination and the concurrency. A bad value is a usage error
// naming its flag.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  createLogger,
  ExportError,
  endpointExtraProblem,
  fileSecretSource,
  logLevelProblem,
  openSession,
  openSink,
  parseDestination,
  parseLogLevel,
  parseWholeNumber,
  plainHttpProblem,
  type SecretSource,
  secretsManagerSource,
  tenantDestination,
  tenantIdProblem,
  wholeNumberProblem,
} from '../functions/lib/faces/edge.ts';
import {
  type CliIo,
  type CommandContext,
  type Env,
  GIVE_UP_AFTER_S,
  PROBE_TIMEOUT_MS,
  type Values,
} from './command-context.ts';
import { watchSecretLoad } from './progress.ts';

/** The context of a command that reads the destination only (anomalies): --out, nothing else. */
export function destinationContext(command: string, values: Values, env: Env, io: CliIo): CommandContext {
  const given = homeExpanded(values.out ?? env.EXPORT_DESTINATION);
  if (!given)
    throw usageError(`missing --out (or EXPORT_DESTINATION); see cloudforet-export ${command} --help`);
  // move-into-tenant names the tenant it moves into: it works on the whole destination.
  const destination = command === 'move-into-tenant' ? checked(given) : withTenant(given, values, env);
  return {
    values,
    io,
    log: createLogger({
      level: parseLogLevel(env.LOG_LEVEL ?? 'warn'),
      write: (l) => io.stderr.write(`${l}\n`),
    }),
    concurrency: 4,
    openSink: () => openSink(destination),
    openSession: () => Promise.reject(usageError(`'${command}' reads the destination only`)),
  };
}

export function commandContext(
  command: string,
  values: Values,
  env: Env,
  io: CliIo,
  signal?: AbortSignal,
): CommandContext {
  const endpoint = values.endpoint ?? env.CLOUDFORET_ENDPOINT;
  const given = homeExpanded(values.out ?? env.EXPORT_DESTINATION);
  const missing = [
    !endpoint && '--endpoint (or CLOUDFORET_ENDPOINT)',
    !given && '--out (or EXPORT_DESTINATION)',
  ].filter(Boolean);
  if (!endpoint || !given) {
    throw usageError(`missing ${missing.join(' and ')}; see cloudforet-export ${command} --help`);
  }
  checkEndpoint(endpoint, values['allow-insecure-http'] === true);
  const destination = withTenant(given, values, env);
  const requestTimeoutMs = timeoutMs(values.timeout, env.CLOUDFORET_TIMEOUT_MS);
  const timeoutGiven = values.timeout !== undefined || env.CLOUDFORET_TIMEOUT_MS !== undefined;
  const giveUpAfterMs =
    wholeNumber('--give-up-after', values['give-up-after'], GIVE_UP_AFTER_S, 1, 86_400) * 1000;
  const maxAnswerBytes = maxAnswerMb(values['max-answer-mb'], env.CLOUDFORET_MAX_ANSWER_MB) * 1024 * 1024;
  const secrets = secretSource(command, values, env, io, requestTimeoutMs);
  const log = cliLogger(env, io);
  return {
    values,
    io,
    log,
    concurrency: wholeNumber('--concurrency', values.concurrency, 4, 1, 64),
    openSink: () => openSink(destination),
    openSession: ({ probe = false } = {}) =>
      openSession({
        endpoint,
        secrets,
        log,
        requestTimeoutMs: probe && !timeoutGiven ? PROBE_TIMEOUT_MS : requestTimeoutMs,
        maxAnswerBytes,
        retryNoAnswer: !probe,
        silenceBudgetMs: probe ? undefined : Math.max(giveUpAfterMs, requestTimeoutMs),
        signal,
      }),
  };
}

/**
 * `~/exports` in quotes (or from EXPORT_DESTINATION) reaches us unexpanded: the home folder is
 * meant, not a folder named '~'. `~user/…` is refused rather than guessed.
 */
function homeExpanded(destination: string | undefined): string | undefined {
  if (destination === undefined || !destination.startsWith('~')) return destination;
  if (/^~(\/|$)/.test(destination)) return join(homedir(), destination.slice(1));
  throw usageError(
    `--out '${destination}' starts with '~user', which is not expanded here: give the folder's full path`,
  );
}

function checked(destination: string): string {
  parseDestination(destination);
  return destination;
}

/**
 * The destination checked, narrowed to a tenant's folder (tenants/<id>/) when --tenant names one:
 * a shared lake holds each tenant's layout in its own folder, as the stack's tenants do.
 */
function withTenant(destination: string, values: Values, env: Env): string {
  parseDestination(destination);
  const tenant = values.tenant ?? env.EXPORT_TENANT;
  if (tenant === undefined) return destination;
  const problem = tenantIdProblem(tenant);
  if (problem) throw usageError(`--tenant: ${problem}`);
  return tenantDestination(destination, tenant);
}

/**
 * The token travels in every request's Authorization header: over plain http only to this
 * machine (a simulator, a tunnel), or when the user says so.
 */
export function checkEndpoint(endpoint: string, allowInsecureHttp: boolean): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw usageError(
      `--endpoint '${endpoint}' is not a URL: give the HTTP API base, e.g. https://console-v2.api.example.com`,
    );
  }
  const extra = endpointExtraProblem(url);
  if (extra) throw usageError(`--${extra}`);
  if (url.protocol === 'https:') return;
  if (url.protocol !== 'http:') {
    throw usageError(`--endpoint must be an https:// URL (got '${endpoint}')`);
  }
  const clear = allowInsecureHttp ? undefined : plainHttpProblem('--endpoint', endpoint);
  if (clear) throw usageError(`${clear}, or add --allow-insecure-http if you must`);
}

/** Human lines on stderr unless LOG_FORMAT=json; LOG_LEVEL checked as the Lambda checks it. */
function cliLogger(env: Env, io: CliIo) {
  const problem = logLevelProblem(env.LOG_LEVEL);
  if (problem) throw usageError(problem);
  const format = env.LOG_FORMAT?.trim() || 'text';
  if (format !== 'text' && format !== 'json') {
    throw usageError(`LOG_FORMAT must be text or json (got '${format}')`);
  }
  return createLogger({
    level: parseLogLevel(env.LOG_LEVEL?.trim() || 'warn'),
    format,
    write: (l) => io.stderr.write(`${l}\n`),
  });
}

function timeoutMs(seconds: string | undefined, envMs: string | undefined): number {
  if (seconds !== undefined) return wholeNumber('--timeout', seconds, 60, 1, 600) * 1000;
  return wholeNumber('CLOUDFORET_TIMEOUT_MS', envMs, 60_000, 1_000, 600_000);
}

function maxAnswerMb(flag: string | undefined, envMb: string | undefined): number {
  if (flag !== undefined) return wholeNumber('--max-answer-mb', flag, 64, 1, 1024);
  return wholeNumber('CLOUDFORET_MAX_ANSWER_MB', envMb, 64, 1, 1024);
}

/** A whole-number flag or variable, by the rule the Lambda and the CDK settings follow too. */
export function wholeNumber(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = parseWholeNumber(value, min, max);
  if (n === undefined) throw usageError(wholeNumberProblem(name, min, max, value));
  return n;
}

function secretSource(
  command: string,
  values: Values,
  env: Env,
  io: CliIo,
  requestTimeoutMs: number,
): SecretSource {
  const file = values['secret-file'] ?? (values['secret-id'] ? undefined : env.CLOUDFORET_SECRET_FILE);
  const id = values['secret-id'] ?? (file ? undefined : env.CLOUDFORET_SECRET_ID);
  if (file && id) throw usageError('give --secret-file or --secret-id, not both');
  if (file) return fileSecretSource(file);
  if (id) {
    // The SDK waits for ever on a Secrets Manager that answers nothing: each attempt is bounded by
    // --timeout as Cloudforet's requests are, and the wait is said every 5 s.
    const client = new SecretsManagerClient({
      requestHandler: {
        connectionTimeout: requestTimeoutMs,
        requestTimeout: requestTimeoutMs,
        throwOnRequestTimeout: true,
      },
    });
    const limit = `each attempt waits ${Math.round(requestTimeoutMs / 1000)} s at most; --timeout`;
    return watchSecretLoad(io.stderr, command, secretsManagerSource({ client, secretId: id }), {
      what: `secret '${id}' from AWS Secrets Manager`,
      limit,
    });
  }
  throw usageError(
    `missing --secret-file PATH or --secret-id ID (or CLOUDFORET_SECRET_FILE / CLOUDFORET_SECRET_ID); see cloudforet-export ${command} --help`,
  );
}

export const usageError = (message: string) => new ExportError('CLI_USAGE', message);
