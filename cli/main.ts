// cloudforet-export: the same core as the Lambda functions, for local runs and backfills.
// This file parses the arguments, answers --help and --version, runs one command and turns its
// outcome into an exit code: 0 all done, 1 a unit failed, 2 bad usage or configuration.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { closestName, errorCode, errorMessage, isUsageOrConfiguration } from '../functions/lib/faces/edge.ts';
import { runAnomalies } from './anomalies-command.ts';
import { runAsOf } from './as-of-command.ts';
import { runCheck } from './check-command.ts';
import type { CliIo, CommandContext, Env, Values } from './command-context.ts';
import { options } from './command-context.ts';
import { commandContext, destinationContext, usageError } from './connection.ts';
import { runCosts } from './costs-command.ts';
import { interruptOnSignals } from './interrupt.ts';
import { runInventory } from './inventory-command.ts';
import { runMoveIntoTenant } from './move-into-tenant-command.ts';
import { redactingIo } from './redacting-io.ts';
import { runReleaseClaim } from './release-claim-command.ts';
import { runStatements } from './statements-command.ts';
import { type CommandName, commandNames, commandUsage, usage } from './usage.ts';

const commands: Record<CommandName, (ctx: CommandContext) => Promise<number>> = {
  costs: runCosts,
  inventory: runInventory,
  check: runCheck,
  anomalies: runAnomalies,
  statements: runStatements,
  'release-claim': runReleaseClaim,
  'as-of': runAsOf,
  'move-into-tenant': runMoveIntoTenant,
};
export const ownOptions: Record<CommandName, ReadonlyArray<keyof Values>> = {
  costs: ['date', 'from', 'to', 'data-source', 'force', 'verify', 'cost-reports', 'concurrency', 'json'],
  inventory: ['snapshot-date', 'include-inactive', 'concurrency', 'json'],
  check: [],
  anomalies: ['json'],
  statements: ['month', 'currency', 'json'],
  'release-claim': ['force'],
  'as-of': ['table', 'at', 'from', 'to', 'json'],
  'move-into-tenant': ['delete-source', 'force', 'json'],
};

/** Commands that read what was exported, with --out alone: no endpoint, no secret. */
export const readsDestinationOnly: ReadonlySet<CommandName> = new Set([
  'anomalies',
  'statements',
  'release-claim',
  'as-of',
  'move-into-tenant',
]);

export async function main(argv: readonly string[], env: Env, given: CliIo = process): Promise<number> {
  const io = redactingIo(given);
  // Known before parsing, so that a parse error can point at the command's own help.
  let command = argv.find((a): a is CommandName => commandNames.includes(a as CommandName));
  try {
    rejectSingleDashLongOptions(argv);
    const { values, positionals, tokens } = parseArgs({
      args: negativeNumbersAsValues(argv),
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    rejectRepeatedOptions(tokens);
    if (values.version) return print(io, version(), 0);
    command = commandOf(positionals);
    if (values.help) return print(io, command ? commandUsage[command] : usage, 0);
    if (command === undefined) return print(io, usage, 2);
    rejectForeignOptions(command, values);
    const interrupt = interruptOnSignals(io.stderr);
    try {
      const code = await commands[command]({
        ...(readsDestinationOnly.has(command) ? destinationContext : commandContext)(
          command,
          values,
          env,
          io,
          interrupt.signal,
        ),
        signal: interrupt.signal,
      });
      return interrupt.exitCode() ?? code;
    } catch (error) {
      // Stopped where no summary can be printed (connecting, listing data sources): the line the
      // signal printed says it all; the abort's own error would be a second, misleading one.
      const stopped = interrupt.exitCode();
      if (stopped !== undefined) return stopped;
      throw error;
    } finally {
      interrupt.dispose();
    }
  } catch (error) {
    const usageLike = isUsageOrConfiguration(error);
    const parseError = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    const code = parseError ? 'CLI_USAGE' : errorCode(error);
    const hint = parseError ? `; see cloudforet-export ${command ?? ''}${command ? ' ' : ''}--help` : '';
    const message = unknownOption(error) ?? flagNames(errorMessage(error));
    io.stderr.write(`cloudforet-export: ${message}${hint} [${code}]\n`);
    return usageLike || parseError ? 2 : 1;
  }
}

function commandOf(positionals: readonly string[]): CommandName | undefined {
  const [name, ...extra] = positionals;
  if (name === undefined) return undefined;
  if (extra.length > 0 || !commandNames.includes(name as CommandName)) {
    throw usageError(`unknown command '${positionals.join(' ')}'; commands: ${commandNames.join(', ')}`);
  }
  return name as CommandName;
}

/** `--concurrency -1` is a value out of range, not a missing value: parseArgs takes it as `=-1`. */
function negativeNumbersAsValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    const takesValue =
      name !== undefined && (options as Record<string, { type: string }>)[name]?.type === 'string';
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * `-date` is parsed as the short options -d -a -t -e; said as what it is, a long option with one
 * dash. Values (`--data-source -x`) are left alone: only a word naming an option, or nearly.
 */
function rejectSingleDashLongOptions(argv: readonly string[]): void {
  for (const arg of argv) {
    const word = /^-([a-z][a-z-]+)(=.*)?$/i.exec(arg)?.[1];
    if (word === undefined) continue;
    const meant = word in options ? word : closestName(word, Object.keys(options));
    if (meant === undefined) continue;
    throw usageError(`'-${word}' has one dash: write the option --${meant}, with two`);
  }
}

/** A single-value option given twice is refused: silently keeping the last would mislead. */
function rejectRepeatedOptions(tokens: ReadonlyArray<{ kind: string; name?: string }>): void {
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    const option = (options as Record<string, { multiple?: boolean }>)[t.name];
    if (option?.multiple) continue;
    if (seen.has(t.name)) throw usageError(`--${t.name} is given more than once; give it once`);
    seen.add(t.name);
  }
}

function rejectForeignOptions(command: CommandName, values: Values): void {
  const theirs = new Set(Object.values(ownOptions).flat());
  const foreign = [...theirs].filter((n) => !ownOptions[command].includes(n) && values[n] !== undefined);
  if (foreign.length > 0) {
    const list = foreign.map((n) => `--${n}`).join(', ');
    throw usageError(`${list} is not an option of '${command}'; see cloudforet-export ${command} --help`);
  }
}

const EVENT_FIELDS: Record<string, string> = {
  date: '--date',
  from: '--from',
  to: '--to',
  snapshotDate: '--snapshot-date',
  dataSourceIds: '--data-source',
  force: '--force',
  month: '--month',
  currency: '--currency',
  tenant: '--tenant',
  deleteSource: '--delete-source',
};

/** The shared event checks name event fields ("from"); on the command line they are flags. */
/** parseArgs' unknown-option error, shorter, with the option most likely meant. */
function unknownOption(error: unknown): string | undefined {
  if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const given = /Unknown option '(-{1,2}[^']+)'/.exec(errorMessage(error))?.[1];
  if (given === undefined) return undefined;
  const near = closestName(given.replace(/^-+/, ''), Object.keys(options));
  return `unknown option '${given}'${near ? `: did you mean --${near}?` : ''}`;
}

function flagNames(message: string): string {
  return message.replace(
    /"(date|from|to|snapshotDate|dataSourceIds|force|month|currency|tenant|deleteSource)"/g,
    (_, field: string) => EVENT_FIELDS[field]!,
  );
}

function print(io: CliIo, text: string, exit: number): number {
  io.stdout.write(`${text}\n`);
  return exit;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `cloudforet-export ${pkg.version} (Node ${process.versions.node})`;
}
