// cloudforet-export: the same core as the Lambda functions, for local runs and backfills.
import { parseArgs } from 'node:util';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { openSession } from '../functions/lib/cloudforet-session.ts';
import { parseCostEvent } from '../functions/lib/cost-event.ts';
import { runCostExport } from '../functions/lib/cost-run.ts';
import { openSink } from '../functions/lib/destination.ts';
import { ExportError, errorCode, errorMessage } from '../functions/lib/errors.ts';
import { createLogger, parseLogLevel } from '../functions/lib/log.ts';
import { fileSecretSource, type SecretSource, secretsManagerSource } from '../functions/lib/secret.ts';
import { progressReporter } from './progress.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface CliIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

export const usage = `Usage:
  cloudforet-export costs --endpoint URL (--secret-file PATH | --secret-id ID) --out (DIR | s3://bucket/prefix)
                          [--date YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD] [--data-source ID]...
                          [--concurrency N] [--json]
Environment fallbacks: CLOUDFORET_ENDPOINT, CLOUDFORET_SECRET_FILE, CLOUDFORET_SECRET_ID, EXPORT_DESTINATION.
Without a date, exports yesterday (UTC). Exit code 0 only when every unit succeeded.`;

const options = {
  endpoint: { type: 'string' },
  'secret-file': { type: 'string' },
  'secret-id': { type: 'string' },
  out: { type: 'string' },
  date: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'data-source': { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: readonly string[], env: Env, io: CliIo = process): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    });
    if (values.help || positionals.length === 0) {
      io.stdout.write(`${usage}\n`);
      return values.help ? 0 : 2;
    }
    if (positionals[0] !== 'costs' || positionals.length > 1) {
      throw new ExportError('CLI_USAGE', `unknown command '${positionals.join(' ')}'; commands: costs`);
    }
    return await runCosts(values, env, io);
  } catch (error) {
    io.stderr.write(`cloudforet-export: ${errorMessage(error)} [${errorCode(error)}]\n`);
    return errorCode(error) === 'CLI_USAGE' || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
      ? 2
      : 1;
  }
}

type Values = {
  [K in keyof typeof options]?: (typeof options)[K] extends { multiple: true }
    ? string[]
    : (typeof options)[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

async function runCosts(values: Values, env: Env, io: CliIo): Promise<number> {
  const endpoint = values.endpoint ?? env.CLOUDFORET_ENDPOINT;
  const out = values.out ?? env.EXPORT_DESTINATION;
  const missing = [
    !endpoint && '--endpoint (or CLOUDFORET_ENDPOINT)',
    !out && '--out (or EXPORT_DESTINATION)',
  ].filter(Boolean);
  if (missing.length > 0) throw new ExportError('CLI_USAGE', `missing ${missing.join(' and ')}\n${usage}`);
  const request = parseCostEvent(
    { date: values.date, from: values.from, to: values.to, dataSourceIds: values['data-source'] },
    new Date(),
    Number.POSITIVE_INFINITY,
  );
  const log = createLogger({
    level: parseLogLevel(env.LOG_LEVEL ?? 'warn'),
    write: (l) => io.stderr.write(`${l}\n`),
  });
  const session = await openSession({ endpoint: endpoint!, secrets: secretSource(values, env), log });
  const progress = progressReporter(io.stderr, 'costs');
  const summary = await runCostExport(
    {
      client: session.client,
      sink: openSink(out!),
      concurrency: concurrency(values.concurrency),
      log,
      onProgress: progress.update,
    },
    request,
  );
  progress.done();
  if (values.json) io.stdout.write(`${JSON.stringify({ ...summary, scope: session.scope })}\n`);
  else io.stdout.write(describeSummary({ ...summary, scope: session.scope }));
  return summary.failed === 0 ? 0 : 1;
}

function secretSource(values: Values, env: Env): SecretSource {
  const file = values['secret-file'] ?? (values['secret-id'] ? undefined : env.CLOUDFORET_SECRET_FILE);
  const id = values['secret-id'] ?? (file ? undefined : env.CLOUDFORET_SECRET_ID);
  if (file && id) throw new ExportError('CLI_USAGE', 'give --secret-file or --secret-id, not both');
  if (file) return fileSecretSource(file);
  if (id) return secretsManagerSource({ client: new SecretsManagerClient({}), secretId: id });
  throw new ExportError(
    'CLI_USAGE',
    `missing --secret-file PATH or --secret-id ID (or CLOUDFORET_SECRET_FILE / CLOUDFORET_SECRET_ID)\n${usage}`,
  );
}

function concurrency(value: string | undefined): number {
  if (value === undefined) return 4;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new ExportError('CLI_USAGE', `--concurrency must be a whole number from 1 to 64 (got '${value}')`);
  return n;
}

function describeSummary(s: Awaited<ReturnType<typeof runCostExport>> & { scope: string }): string {
  const lines = [
    `costs ${s.from}..${s.to} (${s.scope}) -> ${s.destination}`,
    `  ${s.units} units over ${s.dataSources} data sources: ${s.written} written, ${s.removed} empty, ${s.failed} failed`,
    `  ${s.rows.toLocaleString('en-US')} rows, ${s.bytes.toLocaleString('en-US')} bytes in ${(s.durationMs / 1000).toFixed(1)} s`,
    ...s.failures.map((f) => `  FAILED ${f.dataSourceId} ${f.date}: ${f.message} [${f.code}]`),
  ];
  return `${lines.join('\n')}\n`;
}
