// The CLI cannot mislead: where data goes, which endpoints it talks to, how long it waits, what
// its flags and exit codes mean. One row each, run through main() against loopback servers; a row
// that is refused writes nothing (no S3 object, no output folder, no stray folder named 'S3:').
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { routeNotFound, startCannedApi } from '../../../harness/canned-api.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { closedPortUrl, startPlainServerAsHttps, startSilentServer } from '../../../harness/raw-tcp.ts';
import { listKeys } from '../../../harness/s3-server.ts';
import { startLargeAnswerApi } from '../../../harness/streaming-api.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const YESTERDAY = addDays(utcDay(new Date()), -1);

interface Outcome {
  readonly exit: number;
  readonly code: string;
  readonly said: string;
  readonly ms: number;
}

let local: LocalAws;
let work: string;
let secretFile: string;

async function cli(argv: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const io = fakeIo();
  const started = Date.now();
  const exit = await main(argv, env, io);
  const said = `${io.out()}${io.err()}`;
  return { exit, code: /\[([A-Z_0-9]+)\]\s*$/.exec(said)?.[1] ?? 'NONE', said, ms: Date.now() - started };
}

const out = () => join(work, 'never-written');
/** `costs` against `endpoint` with everything else valid; `more` may override any flag. */
const costsAt = (endpoint: string, ...more: string[]) => {
  const given = new Set(more.filter((a) => a.startsWith('--')));
  const base = [
    ['--endpoint', endpoint],
    ['--secret-file', secretFile],
    ['--out', out()],
    ['--date', YESTERDAY],
  ].filter(([flag]) => !given.has(flag!));
  return cli(['costs', ...base.flat(), ...more]);
};
const costs = (...more: string[]) => costsAt(local.simulator.url, ...more);

/** A loopback server for one row, closed after it. */
async function against<S extends { url: string; close(): Promise<void> }>(
  start: () => Promise<S>,
  run: (server: S) => Promise<Outcome>,
  check?: (server: S) => void,
): Promise<Outcome> {
  const server = await start();
  try {
    const outcome = await run(server);
    check?.(server);
    return outcome;
  } finally {
    await server.close();
  }
}

interface Row {
  readonly input: string;
  readonly act: () => Promise<Outcome>;
  readonly exit: number;
  readonly code: string;
  readonly says: RegExp;
  /** The longest the row may take: failures that no retry can fix end at once. */
  readonly withinMs?: number;
}

const rows: Row[] = [
  // --out
  {
    input: '--out s3:/exports/cf',
    act: () => costs('--out', 's3:/exports/cf'),
    exit: 2,
    code: 'DESTINATION_INVALID',
    says: /neither s3:\/\/bucket\/prefix nor a local directory/,
  },
  {
    input: '--out s3://',
    act: () => costs('--out', 's3://'),
    exit: 2,
    code: 'DESTINATION_INVALID',
    says: /names no S3 bucket/,
  },
  {
    input: '--out S3:exports',
    act: () => costs('--out', 'S3:exports'),
    exit: 2,
    code: 'DESTINATION_INVALID',
    says: /write S3 destinations as s3:\/\/bucket\/prefix/,
  },
  {
    input: '--out https://…',
    act: () => costs('--out', 'https://exports.s3.amazonaws.com/cf'),
    exit: 2,
    code: 'DESTINATION_INVALID',
    says: /neither s3:\/\/bucket\/prefix/,
  },
  // Endpoints
  {
    input: 'ftp:// endpoint',
    act: () => costsAt('ftp://cloudforet.example.com'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--endpoint must be an https:\/\/ URL/,
  },
  {
    input: 'http:// endpoint off this machine',
    act: () => costsAt('http://cloudforet.example.com'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /clear text; use https:\/\/, or add --allow-insecure-http/,
  },
  {
    input: 'endpoint that is not a URL',
    act: () => costsAt('console.example.com'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--endpoint 'console.example.com' is not a URL/,
  },
  {
    input: 'https:// to a plain-HTTP port (one attempt, no retry)',
    act: () =>
      against(
        startPlainServerAsHttps,
        (s) => costsAt(s.url),
        (s) => expect(s.connections).toBe(1),
      ),
    exit: 2,
    code: 'CLOUDFORET_NETWORK',
    says: /does not speak TLS on that port .*check the endpoint's scheme and port/,
    withinMs: 2_000,
  },
  {
    input: 'connection refused (no retry)',
    act: async () => costsAt(await closedPortUrl()),
    exit: 2,
    code: 'CLOUDFORET_NETWORK',
    says: /nothing listens on that host and port.*\(ECONNREFUSED\)/,
    withinMs: 2_000,
  },
  {
    input: 'a wrong base path (404 from the route)',
    act: () =>
      against(
        () => startCannedApi(routeNotFound),
        (s) => costsAt(`${s.url}/api`),
      ),
    exit: 2,
    code: 'CLOUDFORET_HTTP_404',
    says: /has no such API route.*check the endpoint/,
  },
  {
    input: '--timeout 1 against an endpoint that never answers',
    act: () => against(startSilentServer, (s) => costsAt(s.url, '--timeout', '1')),
    exit: 1,
    code: 'CLOUDFORET_DEADLINE',
    says: /^(?![\s\S]*\{")[\s\S]*warn: cloudforet request retried \(path=\S+ attempt=1 [\s\S]*no answer for \/cost-analysis\/data-source\/list within 1 s .*--timeout or CLOUDFORET_TIMEOUT_MS/,
    withinMs: 15_000,
  },
  {
    input: 'CLOUDFORET_TIMEOUT_MS=1000 against an endpoint that never answers',
    act: () =>
      against(startSilentServer, (s) =>
        cli(['costs', '--endpoint', s.url, '--secret-file', secretFile, '--out', out()], {
          CLOUDFORET_TIMEOUT_MS: '1000',
        }),
      ),
    exit: 1,
    code: 'CLOUDFORET_DEADLINE',
    says: /within 1 s/,
    withinMs: 15_000,
  },
  {
    input: '--max-answer-mb 1 against an endpoint answering 5 MiB',
    act: () =>
      against(
        () => startLargeAnswerApi(5 * 1024 * 1024, { declareLength: true }),
        (s) => costsAt(s.url, '--max-answer-mb', '1'),
      ),
    exit: 1,
    code: 'CLOUDFORET_ANSWER_TOO_LARGE',
    says: /\/cost-analysis\/data-source\/list exceeded 1 MiB \(its content-length is 5242880 bytes\).*--max-answer-mb/,
    withinMs: 15_000,
  },
  // Numbers, dates and flag names
  {
    input: '--concurrency 0x10',
    act: () => costs('--concurrency', '0x10'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--concurrency must be a whole number from 1 to 64 \(got '0x10'\)/,
  },
  {
    input: '--timeout 1e3',
    act: () => costs('--timeout', '1e3'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--timeout must be a whole number from 1 to 600/,
  },
  {
    input: '--max-answer-mb 0',
    act: () => costs('--max-answer-mb', '0'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--max-answer-mb must be a whole number from 1 to 1024 \(got '0'\)/,
  },
  {
    input: 'CLOUDFORET_MAX_ANSWER_MB=64MB',
    act: () =>
      cli(['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', out()], {
        CLOUDFORET_MAX_ANSWER_MB: '64MB',
      }),
    exit: 2,
    code: 'CLI_USAGE',
    says: /CLOUDFORET_MAX_ANSWER_MB must be a whole number from 1 to 1024 \(got '64MB'\)/,
  },
  {
    input: 'CLOUDFORET_TIMEOUT_MS=fast',
    act: () =>
      cli(['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', out()], {
        CLOUDFORET_TIMEOUT_MS: 'fast',
      }),
    exit: 2,
    code: 'CLI_USAGE',
    says: /CLOUDFORET_TIMEOUT_MS must be a whole number from 1000/,
  },
  {
    input: '--from after --to',
    act: () =>
      cli([
        ...['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', out()],
        ...['--from', YESTERDAY, '--to', addDays(YESTERDAY, -3), '--date', YESTERDAY],
      ]),
    exit: 2,
    code: 'EVENT_DATE_AND_RANGE',
    says: /either --date or --from\/--to/,
  },
  {
    input: '--from without --to',
    act: () =>
      cli([
        'costs',
        '--endpoint',
        local.simulator.url,
        '--secret-file',
        secretFile,
        '--out',
        out(),
        '--from',
        YESTERDAY,
      ]),
    exit: 2,
    code: 'EVENT_RANGE_INCOMPLETE',
    says: /give both --from and --to/,
  },
  {
    input: '--date given twice',
    act: () => costs('--date', YESTERDAY, '--date', addDays(YESTERDAY, -1)),
    exit: 2,
    code: 'CLI_USAGE',
    says: /--date is given more than once; give it once/,
  },
  {
    input: '--concurrency -1',
    act: () => costs('--concurrency', '-1'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /^cloudforet-export: --concurrency must be a whole number from 1 to 64 \(got '-1'\)/,
  },
  {
    input: 'LOG_LEVEL=verbose (the Lambda refuses it too)',
    act: () =>
      cli(['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', out()], {
        LOG_LEVEL: 'verbose',
      }),
    exit: 2,
    code: 'CLI_USAGE',
    says: /LOG_LEVEL must be one of debug, info, warn, error \(got 'verbose'\)/,
  },
  {
    input: 'LOG_FORMAT=yaml',
    act: () =>
      cli(['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', out()], {
        LOG_FORMAT: 'yaml',
      }),
    exit: 2,
    code: 'CLI_USAGE',
    says: /LOG_FORMAT must be text or json \(got 'yaml'\)/,
  },
  {
    input: 'an error prints no usage text',
    act: () => costs('--concurrency', '0'),
    exit: 2,
    code: 'CLI_USAGE',
    says: /^(?![\s\S]*Usage:)[\s\S]*whole number/,
  },
  // Help and version
  {
    input: 'costs --help',
    act: () => cli(['costs', '--help']),
    exit: 0,
    code: 'NONE',
    says: /^Usage: cloudforet-export costs (?![\s\S]*cloudforet-export inventory)[\s\S]*--data-source[\s\S]*Exit codes: 0/,
  },
  {
    input: 'check --help',
    act: () => cli(['check', '--help']),
    exit: 0,
    code: 'NONE',
    says: /^Usage: cloudforet-export check [\s\S]*without exporting/,
  },
  {
    input: '--help',
    act: () => cli(['--help']),
    exit: 0,
    code: 'NONE',
    says: /Commands:[\s\S]*check[\s\S]*2 bad usage or configuration/,
  },
  {
    input: '--version',
    act: () => cli(['--version']),
    exit: 0,
    code: 'NONE',
    // The version package.json names.
    says: new RegExp(`^cloudforet-export ${VERSION.replaceAll('.', '\\.')} \\(Node 24\\.`),
  },
];

describe('the CLI says what it does and refuses what would mislead', () => {
  beforeAll(async () => {
    local = await startLocalAws({ seed: 18, dataSources: 2, from: YESTERDAY, to: YESTERDAY, rowsPerDay: 5 });
    work = await mkdtemp(join(tmpdir(), 'cli-usage-'));
    secretFile = join(work, 'app.json');
    await writeFile(secretFile, consoleAppJson(local.token));
  });
  afterAll(async () => {
    await local.stop();
    await rm(work, { recursive: true, force: true });
  });

  it.each(rows)('$input -> exit $exit, $code', async (row) => {
    const outcome = await row.act();

    expect(outcome.said).toMatch(row.says);
    expect(outcome.code).toBe(row.code);
    expect(outcome.exit).toBe(row.exit);
    if (row.withinMs !== undefined) expect(outcome.ms).toBeLessThan(row.withinMs);
    expect(await readdir(out()).catch(() => 'absent')).toBe('absent');
    expect(await listKeys(local.s3.client, BUCKET)).toEqual([]);
    expect(existsSync('S3:') || existsSync('s3:')).toBe(false);
  });
});
