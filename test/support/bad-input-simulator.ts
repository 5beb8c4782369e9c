// Rows of test/system/cli/bad-input-matrix.test.ts: the local tools' own bad input, each in a child process
// (tools/simulator-alone.ts, harness/simulator/cli.ts and tools/invoke.ts): one line, exit 2,
// never a server.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAST_WEEK, type Row, type Said, YESTERDAY } from './bad-input-row.ts';

const ROOT = new URL('../..', import.meta.url);

function simulator(script: string, args: () => string[]): () => Promise<Said> {
  return () =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', script, ...args()],
        { cwd: ROOT, timeout: 30_000 },
        (error, _stdout, stderr) => {
          const e = error as (Error & { code?: number | string }) | null;
          resolve({ exit: typeof e?.code === 'number' ? e.code : e ? -1 : 0, text: stderr });
        },
      );
    });
}

/** A file holding `text`, written when the row runs (rows are built at collection time). */
function eventFile(name: string, text: string | Uint8Array): string {
  const dir = join(tmpdir(), `bad-input-invoke-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

/** `busyPort`: a port something listens on, known once the test's setup ran. */
export function simulatorRows(busyPort: () => number): Row[] {
  const ALONE = 'tools/simulator-alone.ts';
  const BARE = 'harness/simulator/cli.ts';
  const INVOKE = 'tools/invoke.ts';
  const rows: Array<[string, string, () => string[], RegExp]> = [
    [
      ALONE,
      'an unknown option',
      () => ['--prot', '0'],
      /^simulator: Unknown option '--prot'; see npm run simulator -- --help$/,
    ],
    [
      ALONE,
      'a value out of range',
      () => ['--days', '0'],
      /^simulator: --days must be a whole number from 1 to 365 \(got '0'\)$/,
    ],
    [
      ALONE,
      'a bad seed',
      () => ['--port', '0', '--seed', 'x'],
      /^simulator: --seed must be a whole number from 0 to \d+ \(got 'x'\)$/,
    ],
    [
      ALONE,
      'a busy port',
      () => ['--port', String(busyPort())],
      /^simulator: port \d+ is in use \(another simulator still running\?\): stop it, or give --port N/,
    ],
    [
      ALONE,
      'an app file in a missing folder',
      () => ['--port', '0', '--secret-file', '/nonexistent-folder/app.json'],
      /^simulator: cannot write the app file '\/nonexistent-folder\/app\.json' \(ENOENT\): its folder must exist/,
    ],
    [
      ALONE,
      'a stray argument',
      () => ['--port', '0', 'stray'],
      /^simulator: Unexpected argument 'stray'.*; see npm run simulator -- --help$/,
    ],
    [
      BARE,
      'an unknown option',
      () => ['--sede', '1'],
      /^simulator: Unknown option '--sede'; see tsx harness\/simulator\/cli\.ts --help$/,
    ],
    [BARE, 'a busy port', () => ['--port', String(busyPort())], /^simulator: port \d+ is in use/],
    [
      BARE,
      'a seed of 1.5',
      () => ['--port', '0', '--seed', '1.5'],
      /^simulator: --seed must be a whole number from 0 to \d+ \(got '1\.5'\)$/,
    ],
    [
      BARE,
      'a negative seed',
      () => ['--port', '0', '--seed', '-1'],
      /^simulator: --seed takes no value starting with '-'; see tsx harness\/simulator\/cli\.ts --help$/,
    ],
    [
      BARE,
      'port 99999',
      () => ['--port', '99999'],
      /^simulator: --port must be a whole number from 0 to 65535 \(got '99999'\)$/,
    ],
    [
      BARE,
      'a billion workspaces',
      () => ['--port', '0', '--workspaces', '1e9'],
      /^simulator: --workspaces must be a whole number from 1 to 100 \(got '1e9'\)$/,
    ],
    [
      BARE,
      'no data source',
      () => ['--port', '0', '--data-sources', '0'],
      /^simulator: --data-sources must be a whole number from 1 to 50/,
    ],
    [
      BARE,
      'a bad --from',
      () => ['--port', '0', '--from', '2026-13-01'],
      /^simulator: option from must be YYYY-MM-DD, got 2026-13-01$/,
    ],
    [
      INVOKE,
      'an event file holding null',
      () => ['cost-export', eventFile('null.json', 'null\n')],
      /^invoke: the event in '.*null\.json' is null: an event is a JSON object, \{\} for the function's default/,
    ],
    [
      INVOKE,
      'an event file holding an array',
      () => ['inventory-export', eventFile('array.json', '[{}]')],
      /^invoke: the event in '.*array\.json' is an array: an event is a JSON object/,
    ],
    [
      INVOKE,
      'an event file with a UTF-8 byte order mark (read as JSON: here null, refused as such)',
      () => ['cost-export', eventFile('bom.json', '\uFEFFnull')],
      /^invoke: the event in '.*bom\.json' is null:/,
    ],
    [
      INVOKE,
      '--env LOG_LEVEL without a value',
      () => ['cost-export', 'events/costs-one-day.json', '--env', 'LOG_LEVEL'],
      /^invoke: --env LOG_LEVEL has no value: give NAME=VALUE, e.g\. --env LOG_LEVEL=debug$/,
    ],
    [
      BARE,
      'a reversed range',
      () => ['--port', '0', '--from', YESTERDAY, '--to', LAST_WEEK],
      /^simulator: from \S+ is after to \S+$/,
    ],
  ];
  return rows.map(([script, label, args, first]) => ({
    kind: 'simulator',
    name: `${script}: ${label}`,
    act: simulator(script, args),
    expected: 2,
    first,
    within: 30,
  }));
}
