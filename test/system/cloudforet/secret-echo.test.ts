// An error body that echoes the client_secret, in each encoding the red team tried, fed to every
// CLI command (text and --json) and every Lambda entry: nothing any of them prints, returns,
// throws (however serialized), stores at the destination or publishes carries the token back.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../cli/main.ts';
import { handler as alerts } from '../../../functions/alerts.ts';
import { handler as backfillPlan } from '../../../functions/backfill-plan.ts';
import { handler as backfillSummary } from '../../../functions/backfill-summary.ts';
import { handler as backfillUnit } from '../../../functions/backfill-unit.ts';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { handler as focusExport } from '../../../functions/focus-export.ts';
import { handler as freshnessCheck } from '../../../functions/freshness-check.ts';
import { handler as inventoryExport } from '../../../functions/inventory-export.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { handler as statements } from '../../../functions/statements.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { ECHO_ENCODINGS, type EchoEncoding } from '../../../harness/simulator/index.ts';
import { type SnsResponder, startSns } from '../../../harness/sns-responder.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { expectNoEcho, findLeak, leakPieces } from '../../support/echo-leaks.ts';
import { fakeIo } from '../../support/fake-io.ts';

const YESTERDAY = addDays(utcDay(new Date()), -1);
const FROM = addDays(YESTERDAY, -1);
const COST_LIST = '/cost-analysis/cost/list';

let local: LocalAws;
let sns: SnsResponder;
let work: string;
let secretDir: string;
let secretFile: string;
let pieces: Set<string>;
let restoreEnv: () => void;
const stdout: string[] = [];

/** Every way an error gets written down: JSON, util.inspect (cause chain, hidden fields), String, stack. */
function renderings(error: unknown): string {
  const e = error as Error & { cause?: unknown };
  return [
    JSON.stringify(error),
    JSON.stringify({ ...e, message: e.message, cause: inspect(e.cause, { depth: 8 }) }),
    inspect(error, { depth: 8, showHidden: true }),
    String(error),
    e.stack ?? '',
  ].join('\n');
}

const CLI_RUNS: ReadonlyArray<readonly string[]> = [
  ['costs', '--from', FROM, '--to', YESTERDAY, '--force'],
  ['costs', '--from', FROM, '--to', YESTERDAY, '--force', '--json'],
  ['inventory'],
  ['inventory', '--json'],
  ['check'],
  ['statements'],
  ['statements', '--json'],
  ['anomalies'],
  ['anomalies', '--json'],
];

async function cli(argv: readonly string[]): Promise<Record<string, string>> {
  const io = fakeIo();
  const connection = ['--endpoint', local.simulator.url, '--secret-file', secretFile];
  const reads = argv[0] === 'statements' || argv[0] === 'anomalies';
  const exit = await main([...argv, ...(reads ? [] : connection), '--out', work], {}, io);
  return {
    [`cli ${argv.join(' ')} stdout`]: io.out(),
    [`cli ${argv.join(' ')} stderr`]: `exit ${exit}\n${io.err()}`,
  };
}

const context = (id: string) => ({ awsRequestId: id, functionName: 'echo' }) as Context;
const LAMBDAS: ReadonlyArray<
  readonly [string, (event: unknown, context?: Context) => Promise<unknown>, unknown]
> = [
  ['cost-export', costExport, { from: FROM, to: YESTERDAY, force: true }],
  ['inventory-export', inventoryExport, {}],
  ['focus-export', focusExport, { from: FROM, to: YESTERDAY }],
  ['freshness-check', freshnessCheck, {}],
  ['backfill-plan', backfillPlan, { from: FROM, to: YESTERDAY }],
  ['backfill-unit', backfillUnit, { runId: 'echo-run', dataSourceId: 'ds-echo', date: YESTERDAY }],
  [
    'backfill-summary',
    backfillSummary,
    { plan: { unitsKey: '_backfill/echo/units.json', runId: 'echo-run' } },
  ],
  ['statements', statements, {}],
  ['alerts', alerts, {}],
];

async function lambda(
  name: string,
  handler: (event: unknown, context?: Context) => Promise<unknown>,
  event: unknown,
): Promise<Record<string, string>> {
  stdout.length = 0;
  const outcome = await handler(event, context(`echo-${name}`)).then(
    (result) => `returned ${JSON.stringify(result)}\n${inspect(result, { depth: 12 })}`,
    (error: unknown) => `threw ${renderings(error)}`,
  );
  return { [`lambda ${name} outcome`]: outcome, [`lambda ${name} log`]: stdout.join('') };
}

/** Runs every command and entry with the echo fault on `path` (all paths when undefined). */
async function everyOutput(echo: EchoEncoding, path?: string): Promise<Record<string, string>> {
  local.simulator.clearFaults();
  local.simulator.injectFault({ kind: '401', echo, times: 1_000_000, ...(path && { path }) });
  const texts: Record<string, string> = {};
  for (const argv of CLI_RUNS) Object.assign(texts, await cli(argv));
  for (const [name, handler, event] of LAMBDAS) Object.assign(texts, await lambda(name, handler, event));
  local.simulator.clearFaults();
  return texts;
}

beforeAll(async () => {
  local = await startLocalAws({ seed: 63, dataSources: 1, from: FROM, to: YESTERDAY, rowsPerDay: 40 });
  sns = await startSns();
  pieces = leakPieces(local.token);
  work = await mkdtemp(join(tmpdir(), 'secret-echo-'));
  secretDir = await mkdtemp(join(tmpdir(), 'secret-echo-app-'));
  secretFile = join(secretDir, 'app.json');
  await writeFile(secretFile, consoleAppJson(local.token));
  restoreEnv = local.applyEnv({ ALERTS_TOPIC_ARN: sns.topicArn, AWS_ENDPOINT_URL_SNS: sns.endpoint });
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
  // Something at both destinations first, so the ledgers, statements and anomalies have content.
  expect(await costExport({ from: FROM, to: YESTERDAY }, context('echo-clean'))).toMatchObject({ failed: 0 });
  expect(
    await main(
      [
        'costs',
        '--from',
        FROM,
        '--to',
        YESTERDAY,
        '--endpoint',
        local.simulator.url,
        '--secret-file',
        secretFile,
        '--out',
        work,
      ],
      {},
      fakeIo(),
    ),
  ).toBe(0);
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  restoreEnv();
  await sns.stop();
  await local.stop();
  await rm(work, { recursive: true, force: true });
  await rm(secretDir, { recursive: true, force: true });
});

describe('a 401 body that echoes the client_secret', () => {
  it.each(ECHO_ENCODINGS)(
    'echoed as %s, leaves no trace in any output',
    async (echo) => {
      const units = await everyOutput(echo, COST_LIST);
      const everything = await everyOutput(echo);

      expectNoEcho({ ...units, ...everything }, pieces);
      // The echo reached the product: the redactor, not luck, kept it out.
      const summary = units[`cli costs --from ${FROM} --to ${YESTERDAY} --force --json stdout`];
      expect(summary).toContain('ERROR_AUTHENTICATE_FAILURE');
      expect(summary).toContain('[REDACTED]');
      expect(units['lambda cost-export outcome']).toMatch(/^threw .*RunFailedError/s);
      expect(units['lambda cost-export outcome']).toContain('[REDACTED]');
    },
    120_000,
  );

  it('leaves no trace in anything stored at either destination or published to SNS', async () => {
    const stored: Record<string, string> = {};
    for (const key of await listKeys(local.s3.client, BUCKET))
      stored[`s3 ${key}`] = Buffer.from(await getObjectBytes(local.s3.client, BUCKET, key)).toString(
        'latin1',
      );
    for (const file of await readdir(work, { recursive: true }))
      stored[`dir ${file}`] = await readFile(join(work, file), 'latin1').catch(() => '');
    for (const m of sns.published) stored[`sns ${m.subject}`] = `${m.subject}\n${m.message}\n${m.https}`;

    expect(Object.keys(stored).some((k) => k.includes('_ledger') || k.includes('ledger'))).toBe(true);
    expect(findLeak(stored, pieces)).toBeUndefined();
  });
});
