// Bad input, one table: CLI flags (generated from the CLI's own option lists, cli/main.ts ownOptions
// and cli/command-context.ts options, so a new command or option is in the table without a line
// here), files, endpoints that answer 401, 403, 404, 500, 502, a redirect, nothing, or refuse the
// connection, Lambda events and environment variables for every handler in functions/*.ts (in
// process), and the simulator's own flags (child processes). Every row states its exit code (or,
// for a handler, the code of what it throws) and its first line; and every row alike shows no
// stack trace, no internal error, never exits 0, and ends within its bound.
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { options } from '../../../cli/command-context.ts';
import { main, ownOptions, readsDestinationOnly } from '../../../cli/main.ts';
import { parseDestination } from '../../../functions/lib/storage/sink.ts';
import {
  type CannedAnswer,
  permissionDenied,
  routeNotFound,
  startCannedApi,
} from '../../../harness/canned-api.ts';
import { closedPortUrl, type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type SecretsManagerResponder, startSecretsManager } from '../../../harness/secrets-manager.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson, makeTestToken } from '../../../harness/tokens.ts';
import { envRows, eventRows, invoke } from '../../support/bad-input-lambda.ts';
import { LAST_WEEK, type Row, type Said, YESTERDAY } from '../../support/bad-input-row.ts';
import { simulatorRows } from '../../support/bad-input-simulator.ts';
import { wordRows } from '../../support/bad-input-words.ts';
import { fakeIo } from '../../support/fake-io.ts';

const linux = process.platform === 'linux';
const root = process.getuid?.() === 0;

// Named before the rows are built (at collection time), made before the first row runs.
const dir = join(tmpdir(), `bad-input-matrix-${process.pid}-${Date.now()}`);
const secretFile = join(dir, 'app.json');
const file = (name: string) => join(dir, name);

let sim: Simulator;
let silent: RawServer;
let closed: string;
let busy: Server;
let busyPort = 0;
let s3: S3Server;
let secrets: SecretsManagerResponder;
const canned = new Map<string, { url: string; close: () => Promise<void> }>();

beforeAll(async () => {
  await mkdir(join(dir, 'a-folder'), { recursive: true });
  await writeFile(secretFile, consoleAppJson(makeTestToken()));
  await writeFile(file('empty.json'), '');
  await writeFile(file('large.json'), `{"client_secret": "${'x'.repeat(70_000)}"}`);
  await writeFile(file('a-file'), 'not a folder');
  const app = consoleAppJson(makeTestToken());
  await writeFile(file('array.json'), `[${app}]`);
  await writeFile(file('comment.json'), app.replace('{', '{\n  // the production app\n'));
  await writeFile(file('app.json.gz'), gzipSync(app));
  await writeFile(file('empty-secret.json'), '{"client_id": "c", "client_secret": ""}');
  await writeFile(file('null-secret.json'), '{"client_id": "c", "client_secret": null}');
  await writeFile(file('number-secret.json'), '{"client_id": "c", "client_secret": 12345}');
  await writeFile(file('unreadable.json'), consoleAppJson(makeTestToken()));
  await chmod(file('unreadable.json'), 0o000);
  sim = await startSimulator({ seed: 61, dataSources: 1, from: LAST_WEEK, to: YESTERDAY, rowsPerDay: 2 });
  await writeFile(file('sim-app.json'), consoleAppJson(sim.issueToken()));
  silent = await startSilentServer();
  closed = await closedPortUrl();
  for (const [name, answer] of ANSWERS) canned.set(name, await startCannedApi(answer));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
  s3 = await startS3({ buckets: ['export-bucket'] });
  secrets = await startSecretsManager({ 'cloudforet/app': consoleAppJson(makeTestToken()) });
});
afterAll(async () => {
  await Promise.all([
    sim.close(),
    silent.close(),
    s3.stop(),
    secrets.stop(),
    ...[...canned.values()].map((api) => api.close()),
  ]);
  busy.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * The row's first line: the first that is neither progress (`costs: writing to …`) nor a log line
 * (`warn: cloudforet request retried …`), i.e. the line a user reads as the answer.
 */
function firstLine(text: string): string {
  return answerLines(text)[0] ?? '';
}

function answerLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !/^[a-z-]+: writing to |^(debug|info|warn|error): /.test(line));
}

async function cli(argv: string[]): Promise<Said> {
  const io = fakeIo();
  const exit = await main(argv, {}, io);
  return { exit, text: io.err() || io.out() };
}

// --- CLI flags, generated ---------------------------------------------------------------------

type Command = keyof typeof ownOptions;
const COMMANDS = Object.keys(ownOptions) as Command[];
/** Options every command that talks to Cloudforet takes. */
const CONNECTION = [
  'endpoint',
  'secret-file',
  'secret-id',
  'out',
  'timeout',
  'give-up-after',
  'max-answer-mb',
];
const isString = (name: string) => (options as Record<string, { type: string }>)[name]?.type === 'string';
/** Values no string option accepts. */
const GARBAGE: Record<string, readonly string[]> = {
  date: ['2026-13-45', 'yesterday', ''],
  from: ['2026-02-30', '20260101'],
  to: ['2026-00-10', 'now'],
  'snapshot-date': ['2026-99-01', 'today'],
  month: ['2026-13', '26-01', ''],
  currency: ['EUR', 'usd', ''],
  concurrency: ['0', '-3', '1.5', 'many', '1e309'],
  timeout: ['0', '-1', 'ten', '1e309'],
  'give-up-after': ['0', '-5', 'soon'],
  'max-answer-mb': ['0', '-1', 'big'],
  'data-source': [''],
  endpoint: ['', 'ftp://127.0.0.1:9', 'http://'],
};

/** A well-formed command line for the command: what each row then breaks in one place. */
function base(command: Command): string[] {
  const out = ['--out', join(dir, 'out')];
  return readsDestinationOnly.has(command)
    ? [command, ...out]
    : [command, '--endpoint', 'http://127.0.0.1:9', '--secret-file', secretFile, ...out];
}

/** Refused before any request: the endpoint is a closed port, so a row that slipped through would
 * fail with another code (CLOUDFORET_NETWORK). */
const USAGE_LINE = /^cloudforet-export: (?!.*CLOUDFORET_NETWORK).*\[[A-Z][A-Z0-9_]+\]$/;

function flagRows(): Row[] {
  const table: Array<[string, string[]]> = [];
  for (const command of COMMANDS) {
    const own = ownOptions[command] as readonly string[];
    const takes = readsDestinationOnly.has(command) ? [...own, 'out'] : [...own, ...CONNECTION];
    table.push([`${command}: an unknown option`, [...base(command), '--nope']]);
    table.push([`${command}: a stray argument`, [...base(command), 'stray']]);
    table.push([`${command}: a misspelt option`, [...base(command), `--${takes[0] ?? 'out'}x`, '1']]);
    for (const name of takes.filter(isString)) {
      table.push([`${command}: --${name} with no value`, [...base(command), `--${name}`]]);
      for (const value of GARBAGE[name] ?? [])
        table.push([`${command}: --${name} '${value}'`, [...base(command), `--${name}=${value}`]]);
    }
    for (const name of takes.filter((n) => !isString(n)))
      table.push([`${command}: --${name} given a value`, [...base(command), `--${name}=yes`]]);
    // Connection options are every command's (see --help); an option of another command is not.
    const foreign = Object.values(ownOptions)
      .flat()
      .find((n) => !own.includes(n) && isString(n));
    if (foreign)
      table.push([
        `${command}: --${foreign}, an option of another command`,
        [...base(command), `--${foreign}`, 'x'],
      ]);
  }
  table.push(['an unknown command', ['export', '--out', dir]]);
  const rows: Row[] = table.map(([name, argv]) => ({
    kind: 'flag',
    name,
    act: () => cli(argv),
    expected: 2,
    first: USAGE_LINE,
    within: 5,
  }));
  rows.push({
    kind: 'flag',
    name: 'no command at all: the usage',
    act: () => cli(['--out', dir]),
    expected: 2,
    first: /^Usage: cloudforet-export COMMAND \[options\]/,
    within: 5,
  });
  return rows;
}

// --- Files ------------------------------------------------------------------------------------

function fileRows(): Row[] {
  const rows: Row[] = [];
  const secretCases: Array<[string, string, RegExp, boolean?]> = [
    [
      'a secret file that does not exist',
      file('none.json'),
      /\(ENOENT\): check the path and its permissions/,
    ],
    ['a folder as the secret file', file('a-folder'), /\(EISDIR\): check the path/],
    ['an empty secret file', file('empty.json'), /is empty: store the Cloudforet app's client_secret/],
    [
      'a secret file over 64 KiB',
      file('large.json'),
      /is longer than 64 KiB \(a device or the wrong file\?\)/,
    ],
    ['/dev/zero as the secret file', '/dev/zero', /'\/dev\/zero' is longer than 64 KiB/, linux],
    ['/dev/urandom as the secret file', '/dev/urandom', /'\/dev\/urandom' is longer than 64 KiB/, linux],
    ['/dev/null as the secret file', '/dev/null', /'\/dev\/null' is empty/, linux],
    ['a JSON array of apps', file('array.json'), /holds a JSON array \(1 item\(s\)\), not one app/],
    ['a // comment in the JSON', file('comment.json'), /has a line starting with '\/\/', a comment/],
    ['a gzip-compressed app file', file('app.json.gz'), /is gzip-compressed \(gunzip it first\)/],
    ['an empty client_secret', file('empty-secret.json'), /the client_secret field in .* is empty:/],
    ['a null client_secret', file('null-secret.json'), /the client_secret field in .* is null:/],
    [
      'a numeric client_secret',
      file('number-secret.json'),
      /the client_secret field in .* is a number, not text:/,
    ],
    [
      '/proc/self/mem as the secret file',
      '/proc/self/mem',
      /'\/proc\/self\/mem' \(EIO\): check the path/,
      linux,
    ],
  ];
  // Root reads a file of mode 000: the row would test nothing there.
  if (!root)
    secretCases.push(['an unreadable secret file', file('unreadable.json'), /\(EACCES\): check the path/]);
  for (const command of ['check', 'costs', 'inventory'] as const) {
    for (const [name, path, words, runs = true] of secretCases) {
      if (!runs) continue;
      rows.push({
        kind: 'file',
        name: `${command}: ${name}`,
        act: () => cli([command, '--endpoint', sim.url, '--secret-file', path, '--out', file('out')]),
        expected: 2,
        first: new RegExp(`^cloudforet-export: .*${words.source}.*\\[SECRET_[A-Z_]+\\]$`),
        within: 15,
      });
    }
    const outCases: Array<[string, string, RegExp, boolean?]> = [
      [
        '--out a file',
        file('a-file'),
        /a file stands where a folder must be: remove it or choose another --out/,
      ],
      ['--out under a file', join(file('a-file'), 'below'), /ENOTDIR .*a file stands where a folder must be/],
    ];
    for (const [name, out, words, runs = true] of outCases) {
      if (!runs) continue;
      rows.push({
        kind: 'file',
        name: `${command}: ${name}`,
        act: () => cli([command, '--endpoint', sim.url, '--secret-file', file('sim-app.json'), '--out', out]),
        expected: 2,
        first: new RegExp(`^cloudforet-export: .*${words.source}.*\\[SINK_LOCAL_FAILED\\]$`),
        within: 15,
      });
    }
    // Refused before any request: the endpoint is a closed port, which would answer
    // CLOUDFORET_NETWORK had the command connected (as it did for /sys and /dev).
    const pseudoCases: Array<[string, string, string]> = [
      ['--out under /proc', '/proc/nope/deeper', 'proc'],
      ['--out /proc/self/…', '/proc/self/export', 'proc'],
      ['--out under /sys', '/sys/nope', 'sys'],
      ['--out /sys/kernel/…', '/sys/kernel/export', 'sys'],
      ['--out under /dev', '/dev/cloudforet-export', 'dev'],
      ['--out /dev itself', '/dev', 'dev'],
      ['--out reaching /proc through ..', '/tmp/../proc/export', 'proc'],
    ];
    for (const [name, out, tree] of pseudoCases) {
      rows.push({
        kind: 'file',
        name: `${command}: ${name}`,
        act: () => cli([command, '--endpoint', closed, '--secret-file', secretFile, '--out', out]),
        expected: 2,
        first: new RegExp(
          `^cloudforet-export: '${out.replace(/[.]/g, '\\.')}' is under /${tree} \\(.*\\), where no export can be kept: choose another --out .*\\[DESTINATION_INVALID\\]$`,
        ),
        within: 5,
        alone: true,
      });
    }
  }
  return rows;
}

// --- Endpoints ----------------------------------------------------------------------------------

const json = (status: number, detail: unknown): CannedAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify({ detail }),
});
const html = (status: number, title: string): CannedAnswer => ({
  status,
  contentType: 'text/html',
  body: `<html><head><title>${title}</title></head><body><h1>${title}</h1><hr>nginx</body></html>\n`,
});
const ANSWERS: ReadonlyArray<[string, CannedAnswer]> = [
  [
    '401 with Cloudforet error body',
    json(401, { code: 'ERROR_AUTHENTICATE_FAILURE', message: 'Token is invalid.' }),
  ],
  ['401 without a body', { status: 401, contentType: 'text/plain', body: '' }],
  ['403', permissionDenied],
  ['404 route', routeNotFound],
  ['404 HTML page', html(404, '404 Not Found')],
  ['500', { status: 500, contentType: 'text/plain', body: 'oops' }],
  ['502 proxy error page', html(502, '502 Bad Gateway')],
  ['302 redirect', { status: 302, contentType: 'text/html', body: '' }],
];
/** What each answer must be called, with the exit code: 2 for what the user must fix, 1 for
 * what may pass by itself. */
const NAMED: Record<string, [number, RegExp]> = {
  '401 with Cloudforet error body': [
    2,
    /401 ERROR_AUTHENTICATE_FAILURE .* the client_secret in file '.*app\.json' is invalid or expired: create a new client secret/,
  ],
  '401 without a body': [2, /401 for .* is invalid or expired/],
  '403': [2, /403 ERROR_PERMISSION_DENIED .* the app's role cannot use this API/],
  '404 route': [2, /404 for .* has no such API route .*with no path after it/],
  '404 HTML page': [2, /404 for .* answered with an HTML page titled '404 Not Found', not the API's JSON/],
  '500': [1, /500 for .* the API failed on its side/],
  '502 proxy error page': [
    1,
    /502 for .* an HTML page titled '502 Bad Gateway' came from a proxy or gateway in front of the API/,
  ],
  '302 redirect': [2, /302 for .* redirects: .*console web address/],
};

function endpointRows(): Row[] {
  const rows: Row[] = [];
  // inventory as costs: a broken endpoint is one line, not one failure per table.
  for (const command of ['check', 'costs', 'inventory'] as const) {
    const run =
      (endpoint: () => string, ...more: string[]) =>
      () =>
        cli([command, '--endpoint', endpoint(), '--secret-file', secretFile, '--out', file('out'), ...more]);
    for (const [name] of ANSWERS) {
      const [exit, words] = NAMED[name]!;
      rows.push({
        kind: 'endpoint',
        name: `${command}: an endpoint answering ${name}`,
        act: run(() => canned.get(name)!.url),
        expected: exit,
        first: new RegExp(`^cloudforet-export: cloudforet: ${words.source}`),
        // inventory: stopped at the first answers, not after every table's retries (26 s for a 500).
        within: command === 'inventory' ? 8 : 20,
        alone: command === 'inventory',
      });
    }
    rows.push({
      kind: 'endpoint',
      name: `${command}: a closed port`,
      act: run(() => closed),
      expected: 2,
      first:
        /^cloudforet-export: cloudforet: cannot reach the endpoint .*nothing listens on that host and port.*\[CLOUDFORET_NETWORK\]$/,
      within: 10,
      alone: command === 'inventory',
    });
    // The default bounds (60 s of silence) are silent-endpoint.test.ts's: here, short ones.
    rows.push({
      kind: 'endpoint',
      name: `${command}: a silent socket (--timeout 1 --give-up-after 2)`,
      act: run(() => silent.url, '--timeout', '1', '--give-up-after', '2'),
      expected: 1,
      first:
        command === 'check'
          ? /^cloudforet-export: endpoint http:\/\/127\.0\.0\.1:\d+ did not answer: no answer for \/cost-analysis\/data-source\/list within 1 s/
          : /^cloudforet-export: cloudforet: http:\/\/127\.0\.0\.1:\d+ answered nothing for \d+\.\d s .*\[CLOUDFORET_SILENT\]$/,
      within: 10,
      alone: command === 'inventory',
    });
  }
  return rows;
}

/**
 * The inventory function against the same endpoints (S3 and Secrets Manager on loopback): one
 * named error, the CLI's line, not a RUN_FAILED listing a failure per table.
 */
function lambdaEndpointRows(): Row[] {
  const env = (endpoint: string) => ({
    CLOUDFORET_ENDPOINT: endpoint,
    CLOUDFORET_TIMEOUT_MS: '1000',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    LOG_LEVEL: 'error',
  });
  const rows: Row[] = ANSWERS.map(([name]) => ({
    kind: 'event',
    name: `inventory-export: an endpoint answering ${name}`,
    act: () => invoke('inventory-export', {}, env(canned.get(name)!.url)),
    expected: CODES[name]!,
    first: new RegExp(
      `^cloudforet: ${NAMED[name]![1].source.replace("file '.*app\\.json'", "secret 'cloudforet/app'")}`,
    ),
    within: 8,
  }));
  rows.push({
    kind: 'event',
    name: 'inventory-export: a closed port',
    act: () => invoke('inventory-export', {}, env(closed)),
    expected: 'CLOUDFORET_NETWORK',
    first: /^cloudforet: cannot reach the endpoint .*nothing listens on that host and port/,
    within: 8,
  });
  // No silence budget in a function: each request's own deadline (1 s here) and its retries.
  rows.push({
    kind: 'event',
    name: 'inventory-export: a silent socket (CLOUDFORET_TIMEOUT_MS 1000)',
    act: () => invoke('inventory-export', {}, env(silent.url)),
    expected: 'CLOUDFORET_DEADLINE',
    first: /^cloudforet: no answer for \/\S+ within 1 s \(the deadline for the whole request/,
    within: 20,
  });
  return rows;
}
/** What each endpoint answer throws in a handler. */
const CODES: Record<string, string> = {
  '401 with Cloudforet error body': 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE',
  '401 without a body': 'CLOUDFORET_HTTP_401',
  '403': 'CLOUDFORET_ERROR_PERMISSION_DENIED',
  '404 route': 'CLOUDFORET_HTTP_404',
  '404 HTML page': 'CLOUDFORET_HTTP_404',
  '500': 'CLOUDFORET_HTTP_500',
  '502 proxy error page': 'CLOUDFORET_HTTP_502',
  '302 redirect': 'CLOUDFORET_HTTP_302',
};

const table: Row[] = [
  ...flagRows(),
  ...fileRows(),
  ...endpointRows(),
  ...eventRows(),
  ...lambdaEndpointRows(),
  ...envRows(),
  ...simulatorRows(() => busyPort),
  ...wordRows({
    cli,
    file,
    closed: () => closed,
    simulatorUrl: () => sim.url,
    silent: () => silent.url,
    simulatorApp: file('sim-app.json'),
    secretFile,
  }),
];

async function check(row: Row): Promise<void> {
  const started = performance.now();
  const said = await row.act();
  const seconds = (performance.now() - started) / 1000;

  if (typeof row.expected === 'number') {
    expect(said.exit).toBe(row.expected);
  } else {
    expect(said.code).toBe(row.expected);
  }
  expect(said.exit ?? 1).not.toBe(0);
  expect(firstLine(said.text)).toMatch(row.first);
  expect(said.text).not.toMatch(/^\s+at .+[:(]\d+/m);
  expect(said.text).not.toMatch(/UNEXPECTED/);
  expect(said.text).not.toMatch(/internal error|Cannot read properties|is not a function/i);
  if (row.kind === 'simulator') expect(said.text.trimEnd().split('\n')).toHaveLength(1);
  if (row.alone) expect(answerLines(said.text)).toHaveLength(1);
  expect(seconds).toBeLessThan(row.within);
}

describe('bad input, one table', () => {
  it('holds at least 150 rows, of every kind', () => {
    const counts: Record<string, number> = {};
    for (const row of table) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
    console.log(`bad-input matrix: ${table.length} rows ${JSON.stringify(counts)}`);
    expect(table.length).toBeGreaterThanOrEqual(150);
    expect(Object.keys(counts).sort()).toEqual(['endpoint', 'env', 'event', 'file', 'flag', 'simulator']);
  });

  it('refuses only the kernel trees as --out: /dev/shm and look-alike names are folders', () => {
    for (const path of ['/dev/shm/export', '/devices/x', '/system/x', '/process', 'proc/x', 'sys']) {
      expect(parseDestination(path)).toEqual({ kind: 'dir', path });
    }
    expect(() => parseDestination('/sys')).toThrow(/is under \/sys/);
  });

  it('has an event row for every handler in functions/', async () => {
    const shipped = (await readdir(new URL('../../../functions/', import.meta.url)))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    const covered = new Set(table.filter((r) => r.kind === 'event').map((r) => r.name.split(':')[0]));
    expect([...covered].sort()).toEqual(shipped);
  });

  // In process, one at a time: the Lambda rows set process.env.
  it.each(table.filter((r) => r.kind !== 'simulator'))('$kind | $name', check, 30_000);

  // Child processes: a few at a time (vitest's maxConcurrency).
  it.concurrent.each(table.filter((r) => r.kind === 'simulator'))('$kind | $name', check, 60_000);
});
