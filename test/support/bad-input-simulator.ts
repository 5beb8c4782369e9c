// Rows of test/bad-input-matrix.test.ts: the simulator's own bad flags, each in a child process
// (tools/simulator-alone.ts and harness/simulator/cli.ts): one line, exit 2, never a server.
import { execFile } from 'node:child_process';
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

/** `busyPort`: a port something listens on, known once the test's setup ran. */
export function simulatorRows(busyPort: () => number): Row[] {
  const ALONE = 'tools/simulator-alone.ts';
  const BARE = 'harness/simulator/cli.ts';
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
