// Rows of test/system/cli/bad-input-matrix.test.ts: what a newcomer typed or pasted that the CLI once answered
// with misleading or unclear words (issue 48): each row names what is wrong and what to do.
import { symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LAST_WEEK, type Row, type Said, TODAY, YESTERDAY } from './bad-input-row.ts';

export interface WordsContext {
  cli(argv: string[]): Promise<Said>;
  /** A path in the table's own folder. */
  file(name: string): string;
  /** A closed port: a row that got as far as a request fails with CLOUDFORET_NETWORK instead. */
  closed(): string;
  simulatorUrl(): string;
  /** A socket that accepts and never answers. */
  silent(): string;
  /** An app file for the simulator, and one for nobody. */
  readonly simulatorApp: string;
  readonly secretFile: string;
}

const ends = (code: string) => new RegExp(`\\[${code}\\]$`);

export function wordRows(ctx: WordsContext): Row[] {
  const noRequest =
    (command: string, ...more: string[]) =>
    () =>
      ctx.cli([
        command,
        '--endpoint',
        ctx.closed(),
        '--secret-file',
        ctx.secretFile,
        '--out',
        ctx.file('out'),
        ...more,
      ]);
  const rows: Array<Omit<Row, 'within'> & { within?: number }> = [
    {
      kind: 'flag',
      name: 'inventory: --snapshot-date yesterday (Cloudforet only knows now)',
      act: noRequest('inventory', '--snapshot-date', YESTERDAY),
      expected: 2,
      first: new RegExp(
        `^cloudforet-export: --snapshot-date ${YESTERDAY} is not today \\(${TODAY}, UTC\\): Cloudforet lists its inventory only as it is now.*${ends('EVENT_SNAPSHOT_NOT_TODAY').source}`,
      ),
      alone: true,
    },
    {
      kind: 'flag',
      name: 'costs: --data-source X --data-source X',
      act: noRequest('costs', '--date', YESTERDAY, '--data-source', 'ds-1', '--data-source', 'ds-1'),
      expected: 2,
      first:
        /^cloudforet-export: --data-source names ds-1 more than once: name each data source once \[EVENT_BAD_DATA_SOURCE_IDS\]$/,
      alone: true,
    },
    {
      kind: 'flag',
      name: 'costs: --date 2025-02-29, not a day of the calendar',
      act: noRequest('costs', '--date', '2025-02-29'),
      expected: 2,
      first:
        /^cloudforet-export: --date must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got "2025-02-29"\): not a date of the calendar, February 2025 has 28 days \[EVENT_BAD_DATE\]$/,
      alone: true,
    },
    {
      kind: 'flag',
      name: 'statements: no --month',
      act: () => ctx.cli(['statements', '--out', ctx.file('out')]),
      expected: 2,
      first:
        /^cloudforet-export: --month is required: give the month as "YYYY-MM", or "this-month" or "this-month-N" \(N months before this one, UTC\) \[EVENT_BAD_MONTH\]$/,
      alone: true,
    },
    {
      kind: 'flag',
      name: 'as-of: --from yesterday, a word the days do not take',
      act: () =>
        ctx.cli([
          'as-of',
          '--out',
          ctx.file('out'),
          '--table',
          'costs',
          '--at',
          '2026-10-03T00:00:00Z',
          '--from',
          'yesterday',
        ]),
      expected: 2,
      first:
        /^cloudforet-export: --from must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got "yesterday"\) \[EVENT_BAD_DATE\]$/,
      alone: true,
    },
    {
      kind: 'flag',
      name: 'costs: -date, one dash (not -d -a -t -e)',
      act: noRequest('costs', '-date', YESTERDAY),
      expected: 2,
      first: /^cloudforet-export: '-date' has one dash: write the option --date, with two \[CLI_USAGE\]$/,
      alone: true,
    },
    {
      kind: 'file',
      name: "anomalies: --out '~/…' in quotes is the home folder, not a folder named ~",
      act: () => ctx.cli(['anomalies', '--out', `~/bad-input-nothing-${process.pid}`]),
      expected: 2,
      first: new RegExp(
        `^cloudforet-export: no cost day exported under ${join(homedir(), `bad-input-nothing-${process.pid}`).replace(/[.]/g, '\\.')}:`,
      ),
      alone: true,
    },
    {
      kind: 'file',
      name: "costs: --out '~user/…', not expanded here",
      act: () =>
        ctx.cli(['costs', '--endpoint', ctx.closed(), '--secret-file', ctx.secretFile, '--out', '~nobody/x']),
      expected: 2,
      first:
        /^cloudforet-export: --out '~nobody\/x' starts with '~user', which is not expanded here: give the folder's full path/,
      alone: true,
    },
    {
      kind: 'endpoint',
      name: 'check: an endpoint with user:password@ is never echoed with its password',
      act: () =>
        ctx.cli([
          'check',
          '--endpoint',
          ctx.silent().replace('://', '://admin:hunter2pass@'),
          '--secret-file',
          ctx.secretFile,
          '--out',
          ctx.file('out'),
          '--timeout',
          '1',
        ]),
      expected: 1,
      first:
        /^(?!.*hunter2pass)cloudforet-export: endpoint http:\/\/admin:\[REDACTED\]@127\.0\.0\.1:\d+ did not answer/,
      within: 10,
    },
  ];
  rows.push({
    kind: 'env',
    name: 'check: --out s3://… with no AWS region anywhere',
    act: () =>
      withoutRegion(() =>
        ctx.cli([
          'check',
          '--endpoint',
          ctx.simulatorUrl(),
          '--secret-file',
          ctx.simulatorApp,
          '--out',
          's3://export-bucket/cf',
        ]),
      ),
    expected: 2,
    first:
      /^cloudforet-export: .*no AWS region is set: set AWS_REGION to the bucket's region \(e\.g\. AWS_REGION=us-east-1\)/,
    within: 15,
  });
  rows.push({
    kind: 'env',
    name: 'check: --secret-id with no AWS region anywhere',
    act: () =>
      withoutRegion(() =>
        ctx.cli([
          'check',
          '--endpoint',
          ctx.closed(),
          '--secret-id',
          'cloudforet/app',
          '--out',
          ctx.file('out'),
        ]),
      ),
    expected: 2,
    first:
      /^cloudforet-export: cannot read secret 'cloudforet\/app' from Secrets Manager \(Error\): no AWS region is set: set AWS_REGION to the secret's region/,
    within: 15,
    alone: true,
  });
  // The table's own app file is of a domain the simulator does not have (makeTestToken's).
  for (const command of ['check', 'costs', 'inventory'] as const) {
    rows.push({
      kind: 'endpoint',
      name: `${command}: an app file of another domain`,
      act: () =>
        ctx.cli([
          command,
          '--endpoint',
          ctx.simulatorUrl(),
          '--secret-file',
          ctx.secretFile,
          '--out',
          ctx.file('out'),
        ]),
      expected: 2,
      first:
        /^cloudforet-export: cloudforet: 404 ERROR_NOT_FOUND for \S+ — the client_secret in file '.*app\.json' is of domain domain-\w+, which http:\/\/127\.0\.0\.1:\d+ does not know: it is an app of another Cloudforet or another domain/,
      within: 15,
      alone: command === 'inventory',
    });
  }
  for (const command of ['costs', 'inventory'] as const) {
    rows.push({
      kind: 'file',
      name: `${command}: --out a symbolic link to a folder that does not exist`,
      act: () => {
        const link = ctx.file(`dangling-${command}`);
        try {
          symlinkSync(ctx.file('nowhere/at/all'), link);
        } catch {}
        const day = command === 'costs' ? ['--from', LAST_WEEK, '--to', YESTERDAY] : [];
        return ctx.cli([
          command,
          '--endpoint',
          ctx.simulatorUrl(),
          '--secret-file',
          ctx.simulatorApp,
          '--out',
          link,
          ...day,
        ]);
      },
      expected: 2,
      first:
        /^cloudforet-export: .*is a symbolic link to '.*nowhere\/at\/all', which does not exist: create that folder, or give another --out.*\[SINK_LOCAL_FAILED\]$/,
      within: 15,
    });
  }
  return rows.map((row) => ({ within: 5, ...row }));
}

/** Runs `act` with no region in the environment or an AWS profile, as on a fresh machine. */
async function withoutRegion(act: () => Promise<Said>): Promise<Said> {
  const names = ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_CONFIG_FILE', 'AWS_PROFILE'];
  const before = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  for (const n of names) delete process.env[n];
  process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
  try {
    return await act();
  } finally {
    for (const [n, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  }
}
