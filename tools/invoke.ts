// npm run invoke -- <function> <event.json>: runs one Lambda handler on this machine against the
// simulator, s3rver as S3 and the Secrets Manager responder (harness/local-aws.ts), with
// the environment Lambda would set, and prints what the Lambda console would.
import { readdirSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Context } from 'aws-lambda';
import { addDays, utcDay } from '../functions/lib/dates.ts';
import { startLocalAws } from '../harness/local-aws.ts';
import { type SnsResponder, startSns } from '../harness/sns-responder.ts';
import { parseEnvPairs, readEvent } from './invoke-input.ts';
import { runStateMachine } from './state-machine.ts';

/** Not a function: the cost state machine, its states' handlers chained as its definition chains them. */
const STATE_MACHINE = 'state-machine';

const FUNCTIONS_DIR = new URL('../functions/', import.meta.url);
const TIMEOUT_MS = 15 * 60_000;

/** The handlers in functions/, by file name: every one can be invoked, and --help lists them all. */
function functionNames(): string[] {
  return readdirSync(FUNCTIONS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

export const invokeUsage = (functions: readonly string[] = functionNames()) =>
  `Usage: npm run invoke -- FUNCTION EVENT.json [--keep DIR] [--env NAME=VALUE]...
Runs functions/FUNCTION.ts's handler with the event in EVENT.json (events/ holds examples; '-'
reads stdin) against a local simulator (a seeded domain with 13 months of costs up to
yesterday, UTC; its data sources are ${SIMULATOR_IDS}), s3rver as the bucket and a Secrets
Manager responder holding the app's secret, and prints what the Lambda console would: the
function's log lines, then the response (or the error, with exit 1). Nothing leaves this machine.
Functions: ${functions.join(', ')}
or ${STATE_MACHINE}: the cost state machine (what the daily schedule starts with {}), its states
Plan, ExportUnits (one unit per invocation), Finish and Summary chained as its definition chains
them; prints each state's result and the execution's outcome
(alerts publishes to a loopback SNS and lists the messages, unless --env ALERTS_TOPIC_ARN=… is given)
Options:
  --keep DIR         keep the bucket in DIR between invokes (created if absent; default: a
                     temporary bucket, emptied when the function returns). Export costs first,
                     then focus-export, statements and alerts have exported days to work on.
  --env NAME=VALUE   set a variable for the function, e.g. --env LOG_LEVEL=debug (repeatable)
  -h, --help         this text`;

/** The simulator's data source ids for the seed below: the ids events/ name. */
const SIMULATOR_IDS = 'ds-5a1df8ad9464, ds-5ffec95a98d4 and ds-dae54f56ec85';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      env: { type: 'string', multiple: true },
      keep: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const functions = functionNames();
  if (values.help) return say(invokeUsage(functions), 0);
  const [name, eventFile, ...extra] = positionals;
  const known = name !== undefined && (functions.includes(name) || name === STATE_MACHINE);
  if (name === undefined || eventFile === undefined || extra.length > 0 || !known) {
    return fail(
      `give a function (${functions.join(', ')}) or ${STATE_MACHINE}, and an event file; see npm run invoke -- --help`,
    );
  }
  // Everything that can be refused is, before any server starts.
  const event = await readEvent(eventFile, (file) => (file === '-' ? readStdin() : readFile(file, 'utf8')));
  const env = parseEnvPairs(values.env ?? []);
  const handler =
    name === STATE_MACHINE
      ? undefined
      : (
          (await import(new URL(`${name}.ts`, FUNCTIONS_DIR).href)) as {
            handler: (event: unknown, context: Context) => Promise<unknown>;
          }
        ).handler;
  const keep = values.keep === undefined ? undefined : resolve(values.keep);
  if (keep !== undefined) await mkdir(keep, { recursive: true });
  const to = addDays(utcDay(new Date()), -1);
  const started = performance.now();
  note('starting the simulator (13 months of costs), s3rver and Secrets Manager on loopback …');
  const waiting = { on: 'starting the local services' };
  const ticking = heartbeat(waiting, started);
  const local = await startLocalAws(
    { seed: 7, dataSources: 3, from: addDays(to, -395), to, rowsPerDay: 20 },
    keep,
  ).catch((error: unknown) => {
    clearInterval(ticking);
    throw error;
  });
  let sns: SnsResponder | undefined;
  let restore = () => {};
  const logs = captureStdout();
  // Ctrl-C or SIGTERM while the function runs: the local services stop too (s3rver is a child
  // process, which a SIGTERM to this one alone would leave running), then the process ends by it.
  const stopOn = (signal: NodeJS.Signals) => {
    clearInterval(ticking);
    logs.stop();
    note(`stopped by ${signal}; stopping the local services`);
    void Promise.all([local.stop(), sns?.stop()]).finally(() =>
      process.exit(signal === 'SIGINT' ? 130 : 143),
    );
  };
  process.once('SIGINT', stopOn);
  process.once('SIGTERM', stopOn);
  // From here every way out, a throw included, stops what was started: nothing is left running.
  try {
    unknownIds(event, local.simulator.dataSourceIds());
    // alerts publishes to SNS: a loopback SNS takes the messages unless a topic was given.
    sns = name === 'alerts' && env.ALERTS_TOPIC_ARN === undefined ? await startSns() : undefined;
    const snsEnv: Record<string, string> = sns
      ? { ALERTS_TOPIC_ARN: sns.topicArn, AWS_ENDPOINT_URL_SNS: sns.endpoint }
      : {};
    restore = local.applyEnv({ ...snsEnv, ...env });
    note(`local services ready in ${seconds(started)}; running ${name} …`);
    waiting.on = `running ${name}`;
    if (!handler) {
      const run = await runStateMachine(local.s3.client, event as object, {
        runId: `local-${Date.now()}`,
        context: (id) => ({ ...lambdaContext(STATE_MACHINE), awsRequestId: id }) as Context,
      });
      logs.stop();
      const states = run.states
        .filter((x) => x.state !== 'ExportUnits')
        .map((x) => `${x.state}: ${x.error ? `FAILED ${x.error.name}: ${x.error.message}` : 'ok'}`);
      const units = run.states.filter((x) => x.state === 'ExportUnits');
      const unitsFailed = units.filter((x) => x.error).length;
      const result =
        run.result instanceof Error
          ? { errorType: run.result.name, errorMessage: run.result.message }
          : run.result;
      // One invocation per unit: the warnings and errors of all of them, not every metrics line.
      const notable = logs
        .text()
        .split('\n')
        .filter((line) => /"level":"(warn|error)"/i.test(line));
      say(
        `Warnings and errors of the states' functions (${notable.length}):\n${notable.join('\n')}\n` +
          `States:\n${states.join('\n')}\nExportUnits: ${units.length} invocations, ${unitsFailed} failed\n` +
          `Execution ${run.failed ? 'FAILED' : 'SUCCEEDED'}:\n${JSON.stringify(result, null, 2)}`,
        0,
      );
      return run.failed ? 1 : 0;
    }
    const response = await handler(event, lambdaContext(name));
    logs.stop();
    say(`Function Logs:\n${logs.text()}\nResponse:\n${JSON.stringify(response, null, 2)}`, 0);
    if (sns) say(publishedOn(sns), 0);
    return 0;
  } catch (error) {
    logs.stop();
    const e = error as Error & { code?: string };
    const response = { errorType: e.name, errorCode: e.code, errorMessage: e.message };
    return say(`Function Logs:\n${logs.text()}\nResponse:\n${JSON.stringify(response, null, 2)}`, 1);
  } finally {
    process.off('SIGINT', stopOn);
    process.off('SIGTERM', stopOn);
    clearInterval(ticking);
    logs.stop();
    restore();
    await Promise.all([local.stop(), sns?.stop()]);
    if (keep !== undefined) process.stderr.write(`invoke: the bucket stays in ${keep} (--keep)\n`);
  }
}

/** What the loopback SNS took, counted by the receiving end rather than by the function. */
function publishedOn(sns: SnsResponder): string {
  return `SNS (loopback, ${sns.topicArn}): ${sns.published.length} messages published`;
}

/** An event naming data sources the simulator lacks fails in the function; say which exist. */
function unknownIds(event: unknown, known: readonly string[]): void {
  const ids = (event as { dataSourceIds?: unknown }).dataSourceIds;
  if (!Array.isArray(ids)) return;
  const unknown = ids.filter((id) => !known.includes(String(id)));
  if (unknown.length > 0) {
    process.stderr.write(
      `invoke: the simulator has no data source ${unknown.join(', ')}; its data sources are ${known.join(', ')}\n`,
    );
  }
}

/** A line on stderr while the function runs, so a long run is never silent (stdout is its logs). */
function heartbeat(waiting: { readonly on: string }, started: number): NodeJS.Timeout {
  const timer = setInterval(() => note(`still ${waiting.on} (${seconds(started)} since the start)`), 5_000);
  timer.unref();
  return timer;
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function note(line: string): void {
  process.stderr.write(`invoke: ${line}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The function's stdout (its JSON log lines and metric lines), held to print as the console does. */
function captureStdout(): { text(): string; stop(): void } {
  const chunks: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown) => chunks.push(String(chunk)) > 0) as typeof process.stdout.write;
  return {
    text: () => chunks.join(''),
    stop: () => {
      process.stdout.write = write;
    },
  };
}

function lambdaContext(name: string): Context {
  const deadline = Date.now() + TIMEOUT_MS;
  return {
    awsRequestId: `local-${Date.now().toString(36)}`,
    functionName: name,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as Context;
}

function say(text: string, code: number): number {
  process.stdout.write(`${text}\n`);
  return code;
}

function fail(message: string): number {
  process.stderr.write(`invoke: ${message}\n`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) =>
  fail(error instanceof Error ? error.message : String(error)),
);
