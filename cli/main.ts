// cloudforet-export: the same core as the Lambda functions, for local runs and backfills.
// This file parses the arguments and builds what every command shares; commands live beside it.
import { parseArgs } from 'node:util';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { openSession } from '../functions/lib/cloudforet/session.ts';
import { ExportError, errorCode, errorMessage } from '../functions/lib/errors.ts';
import { createLogger, parseLogLevel } from '../functions/lib/log.ts';
import {
  fileSecretSource,
  type SecretSource,
  secretsManagerSource,
} from '../functions/lib/cloudforet/secret.ts';
import { type CliIo, type CommandContext, type Env, options, usage, type Values } from './command-context.ts';
import { runCosts } from './costs-command.ts';
import { runInventory } from './inventory-command.ts';
import { interruptOnSignals } from './interrupt.ts';

const commands = { costs: runCosts, inventory: runInventory };
const ownOptions: Record<keyof typeof commands, ReadonlyArray<keyof Values>> = {
  costs: ['date', 'from', 'to', 'data-source', 'force'],
  inventory: ['snapshot-date', 'include-inactive'],
};

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
    const name = positionals[0];
    if (positionals.length > 1 || (name !== 'costs' && name !== 'inventory')) {
      throw new ExportError(
        'CLI_USAGE',
        `unknown command '${positionals.join(' ')}'; commands: costs, inventory`,
      );
    }
    rejectForeignOptions(name, values);
    const interrupt = interruptOnSignals(io.stderr);
    try {
      const code = await commands[name]({ ...commandContext(values, env, io), signal: interrupt.signal });
      return interrupt.exitCode() ?? code;
    } finally {
      interrupt.dispose();
    }
  } catch (error) {
    // node:util parseArgs errors (unknown option, missing value) are usage errors like ours.
    const parseError = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    const code = parseError ? 'CLI_USAGE' : errorCode(error);
    const hint = parseError ? '; see cloudforet-export --help' : '';
    io.stderr.write(`cloudforet-export: ${errorMessage(error)}${hint} [${code}]\n`);
    return code === 'CLI_USAGE' ? 2 : 1;
  }
}

function rejectForeignOptions(command: keyof typeof commands, values: Values): void {
  const foreign = Object.entries(ownOptions)
    .filter(([other]) => other !== command)
    .flatMap(([, names]) => names.filter((n) => values[n] !== undefined));
  if (foreign.length > 0) {
    const list = foreign.map((n) => `--${n}`).join(', ');
    throw new ExportError('CLI_USAGE', `${list} is not an option of '${command}'\n${usage}`);
  }
}

function commandContext(values: Values, env: Env, io: CliIo): CommandContext {
  const endpoint = values.endpoint ?? env.CLOUDFORET_ENDPOINT;
  const destination = values.out ?? env.EXPORT_DESTINATION;
  const missing = [
    !endpoint && '--endpoint (or CLOUDFORET_ENDPOINT)',
    !destination && '--out (or EXPORT_DESTINATION)',
  ].filter(Boolean);
  if (!endpoint || !destination) {
    throw new ExportError('CLI_USAGE', `missing ${missing.join(' and ')}\n${usage}`);
  }
  const secrets = secretSource(values, env);
  const log = createLogger({
    level: parseLogLevel(env.LOG_LEVEL ?? 'warn'),
    write: (l) => io.stderr.write(`${l}\n`),
  });
  return {
    values,
    io,
    log,
    destination,
    concurrency: concurrency(values.concurrency),
    openSession: () => openSession({ endpoint, secrets, log }),
  };
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
