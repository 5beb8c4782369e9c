// Bad input, one row each: a stable error code, a message that says what to do, and no write at
// all. Lambda events, configuration and secrets go through the real handler (simulator, s3rver,
// Secrets Manager on loopback); API answers through runCostExport; CLI usage through main().
// CDK context validation is tested by the infra tests (test/unit/infra-settings.test.ts).
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../cli/main.ts';
import { handler } from '../../../functions/cost-export.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { errorCode, errorMessage } from '../../../functions/lib/errors.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import {
  type CannedAnswer,
  consoleWebPage,
  permissionDenied,
  startCannedApi,
} from '../../../harness/canned-api.ts';
import { BUCKET, type LocalAws, SECRET_ID, startLocalAws } from '../../../harness/local-aws.ts';
import { listKeys, listPendingUploads } from '../../../harness/s3-server.ts';
import { consoleAppJson, makeTestToken } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { expectNoSecret } from '../../support/log-capture.ts';

const TODAY = utcDay(new Date());
const YESTERDAY = addDays(TODAY, -1);
const LAST_WEEK = addDays(TODAY, -7);

interface Outcome {
  readonly code: string;
  readonly message: string;
  /** The CLI's exit code. */
  readonly exit?: number;
}

let local: LocalAws;
let work: string;
let secretFile: string;
const texts: string[] = [];

/** The cost handler with the local AWS environment plus `env` ('' unsets) and the secret's value. */
async function lambda(event: unknown, env: Record<string, string> = {}, secret?: string): Promise<Outcome> {
  const restore = local.applyEnv({ SECRET_TTL_SECONDS: '0', ...env });
  local.secrets.set(SECRET_ID, secret ?? consoleAppJson(local.token));
  try {
    const summary = await handler(event);
    return { code: 'NONE', message: JSON.stringify(summary) };
  } catch (error) {
    return { code: errorCode(error), message: errorMessage(error) };
  } finally {
    restore();
  }
}

/** A run against a server that answers every request the same way, with instant retries. */
async function api(answer: CannedAnswer): Promise<Outcome> {
  const server = await startCannedApi(answer);
  const out = await mkdtemp(join(work, 'api-'));
  const client = new CloudforetClient({
    endpoint: server.url,
    token: local.token,
    dispatcher: new Agent(),
    credentialSource: `secret '${SECRET_ID}'`,
    sleep: async () => {},
  });
  try {
    await runCostExport({ client, sink: dirSink(out) }, { from: YESTERDAY, to: YESTERDAY });
    return { code: 'NONE', message: 'the run succeeded' };
  } catch (error) {
    return { code: errorCode(error), message: errorMessage(error) };
  } finally {
    await server.close();
    expect(await readdir(out)).toEqual([]);
  }
}

/** main() with a destination that must never be created. */
async function cli(...argv: string[]): Promise<Outcome> {
  const io = fakeIo();
  const exit = await main(argv, {}, io);
  const said = io.err() || io.out();
  return { exit, code: /\[([A-Z_]+)\]\s*$/.exec(said)?.[1] ?? 'NONE', message: said };
}

const out = () => join(work, 'never-written');
const endpoint = () => local.simulator.url;
const costs = (...more: string[]) =>
  cli('costs', '--endpoint', endpoint(), '--secret-file', secretFile, '--out', out(), ...more);

interface Row {
  readonly input: string;
  readonly act: () => Promise<Outcome>;
  readonly code: string;
  /** Words of the message that tell the operator what to do. */
  readonly says: RegExp;
  readonly exit?: number;
}

const rows: Row[] = [
  // Lambda events
  {
    input: 'event date 2026-13-01',
    act: () => lambda({ date: '2026-13-01' }),
    code: 'EVENT_BAD_DATE',
    says: /must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\)/,
  },
  {
    input: 'event date 2026-02-30',
    act: () => lambda({ date: '2026-02-30' }),
    code: 'EVENT_BAD_DATE',
    says: /today-N" \(N days before today, UTC\) \(got "2026-02-30"\)/,
  },
  {
    input: 'event date as a number',
    act: () => lambda({ date: 20261001 }),
    code: 'EVENT_BAD_DATE',
    says: /today-N" \(N days before today, UTC\) \(got 20261001\)/,
  },
  {
    input: 'event from after to',
    act: () => lambda({ from: YESTERDAY, to: LAST_WEEK }),
    code: 'EVENT_RANGE_REVERSED',
    says: /swap them/,
  },
  {
    input: 'event range longer than an inline run',
    act: () => lambda({ from: addDays(TODAY, -100), to: TODAY }),
    code: 'EVENT_RANGE_TOO_LONG',
    says: /backfill state machine|CLI|split the range/,
  },
  {
    input: 'event from without to',
    act: () => lambda({ from: LAST_WEEK }),
    code: 'EVENT_RANGE_INCOMPLETE',
    says: /give both "from" and "to"/,
  },
  {
    input: 'event date and from together',
    act: () => lambda({ date: YESTERDAY, from: LAST_WEEK }),
    code: 'EVENT_DATE_AND_RANGE',
    says: /either "date" or "from"\/"to"/,
  },
  {
    input: 'event date in the future',
    act: () => lambda({ date: addDays(TODAY, 2) }),
    code: 'EVENT_DATE_IN_FUTURE',
    says: /ask for today or earlier/,
  },
  {
    input: 'event with an unknown key',
    act: () => lambda({ day: YESTERDAY }),
    code: 'EVENT_UNKNOWN_KEYS',
    says: /unknown key\(s\): day; allowed: date, from, to/,
  },
  {
    input: 'event with a misspelt key',
    act: () => lambda({ form: YESTERDAY, to: YESTERDAY }),
    code: 'EVENT_UNKNOWN_KEYS',
    says: /unknown key\(s\): form \(did you mean from\?\); allowed: date, from, to/,
  },
  {
    input: 'event dataSourceIds as a string',
    act: () => lambda({ dataSourceIds: 'ds-1' }),
    code: 'EVENT_BAD_DATA_SOURCE_IDS',
    says: /non-empty list of data source ids/,
  },
  {
    input: 'event dataSourceIds empty',
    act: () => lambda({ dataSourceIds: [] }),
    code: 'EVENT_BAD_DATA_SOURCE_IDS',
    says: /non-empty list/,
  },
  {
    input: 'event force as a string',
    act: () => lambda({ force: 'yes' }),
    code: 'EVENT_BAD_FORCE',
    says: /true or false/,
  },
  {
    input: 'event that is an array',
    act: () => lambda([YESTERDAY]),
    code: 'EVENT_NOT_OBJECT',
    says: /a JSON object such as \{\}/,
  },
  {
    input: 'event that is a string',
    act: () => lambda(YESTERDAY),
    code: 'EVENT_NOT_OBJECT',
    says: /a JSON object/,
  },
  {
    input: 'event range wholly past the 12-month retention',
    act: () => lambda({ from: '2020-01-01', to: '2020-01-31' }),
    code: 'EVENT_BEYOND_RETENTION',
    says: /2020-01-01\.\.2020-01-31 is wholly before \d{4}-\d\d-01: Cloudforet keeps daily costs for 12 months/,
  },
  {
    input: 'event date wholly past the 12-month retention',
    act: () => lambda({ date: '2020-01-15' }),
    code: 'EVENT_BEYOND_RETENTION',
    says: /ask for \d{4}-\d\d-01 or later/,
  },
  {
    input: 'event naming an unknown data source',
    act: () => lambda({ date: YESTERDAY, dataSourceIds: ['ds-000000000000'] }),
    code: 'UNKNOWN_DATA_SOURCE',
    says: /ds-000000000000; this app sees: ds-/,
  },
  // Configuration
  {
    input: 'environment without endpoint, secret id and bucket',
    act: () => lambda({}, { CLOUDFORET_ENDPOINT: '', CLOUDFORET_SECRET_ID: '', EXPORT_BUCKET: '' }),
    code: 'CONFIG_INVALID',
    says: /CLOUDFORET_ENDPOINT is not set; CLOUDFORET_SECRET_ID is not set; EXPORT_BUCKET is not set/,
  },
  {
    input: 'environment with four malformed values',
    act: () =>
      lambda(
        {},
        {
          CLOUDFORET_ENDPOINT: 'console.example.com',
          EXPORT_CONCURRENCY: '0',
          MAX_INLINE_DAYS: 'many',
          LOG_LEVEL: 'verbose',
        },
      ),
    code: 'CONFIG_INVALID',
    says: /http\(s\) URL.*EXPORT_CONCURRENCY must be a whole number from 1 to 64.*MAX_INLINE_DAYS.*LOG_LEVEL must be one of debug, info, warn, error/,
  },
  {
    input: 'environment with a plain-http endpoint off this machine (the CLI refuses it too)',
    act: () => lambda({}, { CLOUDFORET_ENDPOINT: 'http://cloudforet.example.com' }),
    code: 'CONFIG_INVALID',
    says: /CLOUDFORET_ENDPOINT 'http:\/\/cloudforet.example.com' is plain http: the token would cross the network in clear text; use https:\/\//,
  },
  {
    input: "environment with EXPORT_PREFIX '../x'",
    act: () => lambda({}, { EXPORT_PREFIX: '../x' }),
    code: 'CONFIG_INVALID',
    says: /EXPORT_PREFIX must not hold '\.' or '\.\.' segments \(got '\.\.\/x'\)/,
  },
  {
    input: 'environment with a timeout below 1 s',
    act: () => lambda({}, { CLOUDFORET_TIMEOUT_MS: '500' }),
    code: 'CONFIG_INVALID',
    says: /CLOUDFORET_TIMEOUT_MS must be a whole number from 1000/,
  },
  {
    input: 'environment with an answer limit above 1 GiB',
    act: () => lambda({}, { CLOUDFORET_MAX_ANSWER_MB: '2048' }),
    code: 'CONFIG_INVALID',
    says: /CLOUDFORET_MAX_ANSWER_MB must be a whole number from 1 to 1024 \(got '2048'\)/,
  },
  // Secrets
  {
    input: 'secret empty',
    act: () => lambda({ date: YESTERDAY }, {}, ''),
    code: 'SECRET_EMPTY',
    says: /store the Cloudforet app's client_secret/,
  },
  {
    input: 'secret not a JWT',
    act: () => lambda({ date: YESTERDAY }, {}, 'my-password-123'),
    code: 'SECRET_NOT_A_JWT',
    says: /expected a JWT/,
  },
  {
    input: 'secret expired',
    act: () => lambda({ date: YESTERDAY }, {}, makeTestToken({ exp: 1_700_000_000 })),
    code: 'SECRET_EXPIRED',
    says: /create a new app or a new client secret/,
  },
  {
    input: 'secret JSON without client_secret',
    act: () => lambda({ date: YESTERDAY }, {}, '{"name": "athena-export", "client_id": "client-1"}'),
    code: 'SECRET_JSON_NO_CLIENT_SECRET',
    says: /paste the whole 'Download JSON' file/,
  },
  {
    input: 'secret JSON that does not parse',
    act: () => lambda({ date: YESTERDAY }, {}, '{"client_secret": '),
    code: 'SECRET_INVALID_JSON',
    says: /unedited/,
  },
  {
    input: 'secret created by the stack, still without a value',
    act: () => lambda({ date: YESTERDAY }, { CLOUDFORET_SECRET_ID: 'cloudforet/unset' }),
    code: 'SECRET_EMPTY',
    says: /exists but has no value yet: put .*put-secret-value --secret-id cloudforet\/unset/,
  },
  {
    input: 'secret id that does not exist',
    act: () => lambda({ date: YESTERDAY }, { CLOUDFORET_SECRET_ID: 'cloudforet/missing' }),
    code: 'SECRET_FETCH_FAILED',
    says: /create it or set CLOUDFORET_SECRET_ID/,
  },
  {
    input: 'secret with a bad signature',
    act: () =>
      lambda({ date: YESTERDAY }, {}, consoleAppJson(local.simulator.issueToken({ badSignature: true }))),
    code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE',
    says: /create a new client secret for the app in Cloudforet and update secret 'cloudforet\/app'/,
  },
  // API answers
  {
    input: 'API answering HTML (the console web address)',
    act: () => api(consoleWebPage),
    code: 'CLOUDFORET_NOT_AN_ANSWER',
    says: /not the console's web address/,
  },
  {
    input: 'API refusing the app (403)',
    act: () => api(permissionDenied),
    code: 'CLOUDFORET_ERROR_PERMISSION_DENIED',
    says: /give the app a role with access/,
  },
  // CLI usage
  { input: 'CLI without a command', act: () => cli(), code: 'NONE', says: /Usage:/, exit: 2 },
  {
    input: 'CLI with an unknown command',
    act: () => cli('export'),
    code: 'CLI_USAGE',
    says: /commands: costs, inventory/,
    exit: 2,
  },
  {
    input: 'CLI with an unknown option',
    act: () => costs('--frm', YESTERDAY),
    code: 'CLI_USAGE',
    says: /unknown option '--frm': did you mean --from\?; see cloudforet-export costs --help/,
    exit: 2,
  },
  {
    input: 'CLI with two letters of an option swapped',
    act: () => costs('--form', YESTERDAY),
    code: 'CLI_USAGE',
    says: /unknown option '--form': did you mean --from\?/,
    exit: 2,
  },
  {
    input: 'CLI without --endpoint',
    act: () => cli('costs', '--secret-file', secretFile, '--out', out()),
    code: 'CLI_USAGE',
    says: /missing --endpoint \(or CLOUDFORET_ENDPOINT\)/,
    exit: 2,
  },
  {
    input: 'CLI without a secret',
    act: () => cli('costs', '--endpoint', endpoint(), '--out', out()),
    code: 'CLI_USAGE',
    says: /missing --secret-file PATH or --secret-id ID/,
    exit: 2,
  },
  {
    input: 'CLI with two secrets',
    act: () => costs('--secret-id', SECRET_ID),
    code: 'CLI_USAGE',
    says: /give --secret-file or --secret-id, not both/,
    exit: 2,
  },
  {
    input: 'CLI with a query string on the endpoint',
    act: () => cli('costs', '--endpoint', `${endpoint()}/?v=2`, '--secret-file', secretFile, '--out', out()),
    code: 'CLI_USAGE',
    says: /has a query string \(\?v=2\)/,
    exit: 2,
  },
  {
    input: 'CLI with --give-up-after 0',
    act: () => costs('--give-up-after', '0'),
    code: 'CLI_USAGE',
    says: /--give-up-after must be a whole number from 1 to 86400/,
    exit: 2,
  },
  {
    input: 'CLI with --concurrency 0',
    act: () => costs('--concurrency', '0'),
    code: 'CLI_USAGE',
    says: /whole number from 1 to 64/,
    exit: 2,
  },
  {
    input: "CLI costs with inventory's --snapshot-date",
    act: () => costs('--snapshot-date', YESTERDAY),
    code: 'CLI_USAGE',
    says: /--snapshot-date is not an option of 'costs'/,
    exit: 2,
  },
  {
    input: 'CLI --date 2026-02-30 (bad usage: exit 2, named as the flag)',
    act: () => costs('--date', '2026-02-30'),
    code: 'EVENT_BAD_DATE',
    says: /--date must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\)/,
    exit: 2,
  },
];

describe('bad input is refused with a code, a remedy and no write', () => {
  beforeAll(async () => {
    local = await startLocalAws({ seed: 51, dataSources: 2, from: LAST_WEEK, to: YESTERDAY, rowsPerDay: 20 });
    work = await mkdtemp(join(tmpdir(), 'bad-input-'));
    secretFile = join(work, 'app.json');
    local.secrets.createEmpty('cloudforet/unset');
    await writeFile(secretFile, consoleAppJson(local.token));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => texts.push(String(chunk)) > 0);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await local.stop();
    await rm(work, { recursive: true, force: true });
  });

  it.each(rows)('$input -> $code', async (row) => {
    const outcome = await row.act();
    texts.push(outcome.message);

    expect(outcome.code).toBe(row.code);
    expect(outcome.message).toMatch(row.says);
    if (row.exit !== undefined) expect(outcome.exit).toBe(row.exit);
    expect(await listKeys(local.s3.client, BUCKET)).toEqual([]);
    expect(await listPendingUploads(local.s3.dir, BUCKET)).toEqual([]);
    expect(await readdir(out()).catch(() => 'absent')).toBe('absent');
  });

  it('has at least 25 rows and never shows the token', () => {
    expect(rows.length).toBeGreaterThanOrEqual(25);
    expectNoSecret(texts, local.token);
  });
});
