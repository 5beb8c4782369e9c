// Rows of test/system/cli/bad-input-matrix.test.ts: bad events and environment variables for every Lambda
// handler in functions/*.ts, invoked in process. Each fails in readConfig or the event's parse,
// before any connection: the environment names nothing reachable, so a row that got further
// fails on its code instead.
import { addDays } from '../../functions/lib/dates.ts';
import { errorCode, errorMessage } from '../../functions/lib/errors.ts';
import { LAST_WEEK, type Row, type Said, TODAY, YESTERDAY } from './bad-input-row.ts';
import { monthEnd, monthsBack } from './months.ts';

type Handler = (event: unknown) => Promise<unknown>;
export const FUNCTIONS = [
  'alerts',
  'backfill-finish',
  'backfill-plan',
  'backfill-summary',
  'backfill-unit',
  'cost-export',
  'focus-export',
  'freshness-check',
  'inventory-export',
  'statements',
] as const;
/** The daily run across tenants' own states: they serve no one tenant, so they take no `tenant`. */
export const ACROSS_TENANTS = ['tenants-lanes', 'tenants-summary'] as const;
type FunctionName = (typeof FUNCTIONS)[number] | (typeof ACROSS_TENANTS)[number];

/** Enough for readConfig; nothing reachable, so a row that got past its check fails on its code. */
const LAMBDA_ENV: Record<string, string> = {
  CLOUDFORET_ENDPOINT: 'https://console.example.invalid',
  CLOUDFORET_SECRET_ID: 'cloudforet/app',
  EXPORT_BUCKET: 'export-bucket',
  ALERTS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:alerts',
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
};

export async function invoke(
  name: FunctionName,
  event: unknown,
  env: Record<string, string> = {},
): Promise<Said> {
  const { handler } = (await import(`../../functions/${name}.ts`)) as { handler: Handler };
  const values = { ...LAMBDA_ENV, ...env };
  const previous = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(values)) {
    if (v === '') delete process.env[k];
    else process.env[k] = v;
  }
  try {
    await handler(event);
    return { code: 'NONE', text: 'the handler returned' };
  } catch (error) {
    return { code: errorCode(error), text: errorMessage(error) };
  } finally {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const PAST_RETENTION_FROM = monthsBack(14);
const PAST_RETENTION_TO = monthEnd(14);

export function eventRows(): Row[] {
  const rows: Array<[FunctionName, string, unknown, string, RegExp]> = [];
  for (const name of FUNCTIONS) {
    // The state machine's shapes, below.
    if (name === 'backfill-summary' || name === 'backfill-unit' || name === 'backfill-finish') continue;
    rows.push([name, 'a number', 42, 'EVENT_NOT_OBJECT', /^event must be a JSON object such as \{\}/]);
    rows.push([name, 'an array', [], 'EVENT_NOT_OBJECT', /^event must be a JSON object such as \{\}/]);
    rows.push([
      name,
      'an unknown key',
      { nope: 1 },
      'EVENT_UNKNOWN_KEYS',
      /^event has unknown key\(s\): nope; allowed: /,
    ]);
  }
  const days = (label: string, name: FunctionName) => {
    rows.push([
      name,
      `${label}: a bad date`,
      { date: '2026-02-30' },
      'EVENT_BAD_DATE',
      /^"date" must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got "2026-02-30"\)/,
    ]);
    rows.push([
      name,
      `${label}: a date as a number`,
      { date: 20260101 },
      'EVENT_BAD_DATE',
      /^"date" must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got 20260101\)/,
    ]);
    rows.push([
      name,
      `${label}: "to" as a number`,
      { from: LAST_WEEK, to: 5 },
      'EVENT_BAD_DATE',
      /^"to" must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got 5\)/,
    ]);
    rows.push([
      name,
      `${label}: a reversed range`,
      { from: YESTERDAY, to: LAST_WEEK },
      'EVENT_RANGE_REVERSED',
      /is after "to" .*: swap them/,
    ]);
    rows.push([
      name,
      `${label}: "to" without "from"`,
      { to: YESTERDAY },
      'EVENT_RANGE_INCOMPLETE',
      /give both "from" and "to"/,
    ]);
    rows.push([
      name,
      `${label}: a day after today`,
      { date: addDays(TODAY, 3) },
      'EVENT_DATE_IN_FUTURE',
      /ask for today or earlier/,
    ]);
    rows.push([
      name,
      `${label}: force as 1`,
      { force: 1 },
      'EVENT_BAD_FORCE',
      /"force" must be true or false/,
    ]);
    rows.push([
      name,
      `${label}: dataSourceIds of numbers`,
      { dataSourceIds: [1, 2] },
      'EVENT_BAD_DATA_SOURCE_IDS',
      /non-empty list of data source ids/,
    ]);
    rows.push([
      name,
      `${label}: a misspelt key`,
      { dataSourceId: 'ds-1' },
      'EVENT_UNKNOWN_KEYS',
      /dataSourceId \(did you mean dataSourceIds\?\)/,
    ]);
  };
  days('focus', 'focus-export');
  days('backfill', 'backfill-plan');
  rows.push([
    'backfill-plan',
    'a range wholly past retention',
    { from: PAST_RETENTION_FROM, to: PAST_RETENTION_TO },
    'EVENT_BEYOND_RETENTION',
    /is wholly before \d{4}-\d\d-01: Cloudforet keeps daily costs for 12 months/,
  ]);
  rows.push([
    'backfill-plan',
    'more than 400 days',
    { from: addDays(TODAY, -401), to: TODAY },
    'EVENT_RANGE_TOO_LONG',
    /event asks for 402 days .* at most 400/,
  ]);
  rows.push([
    'cost-export',
    '"from" as a number',
    { from: 20260101, to: YESTERDAY },
    'EVENT_BAD_DATE',
    /^"from" must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got 20260101\)/,
  ]);
  rows.push([
    'cost-export',
    'an EventBridge envelope',
    {
      version: '0',
      id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: `${YESTERDAY}T06:00:00Z`,
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/daily'],
      detail: {},
    },
    'EVENT_UNKNOWN_KEYS',
    /^event is an EventBridge envelope \("detail-type", "source", "detail", …\), not this function's event: its schedule passes \{\}; give \{\}/,
  ]);
  rows.push([
    'cost-export',
    'force as null',
    { force: null },
    'EVENT_BAD_FORCE',
    /"force" must be true or false/,
  ]);
  rows.push([
    'cost-export',
    'a month past retention',
    { from: PAST_RETENTION_FROM, to: PAST_RETENTION_TO },
    'EVENT_BEYOND_RETENTION',
    /keeps daily costs for 12 months/,
  ]);
  rows.push([
    'inventory-export',
    'a bad snapshotDate',
    { snapshotDate: '2026-13-01' },
    'EVENT_BAD_DATE',
    /^"snapshotDate" must be a date as YYYY-MM-DD/,
  ]);
  rows.push([
    'inventory-export',
    'a snapshotDate after today',
    { snapshotDate: addDays(TODAY, 2) },
    'EVENT_DATE_IN_FUTURE',
    /^"snapshotDate" .* is after today/,
  ]);
  rows.push([
    'inventory-export',
    'a snapshotDate before today',
    { snapshotDate: YESTERDAY },
    'EVENT_SNAPSHOT_NOT_TODAY',
    /^"snapshotDate" \d{4}-\d\d-\d\d is not today \(.*\): Cloudforet lists its inventory only as it is now/,
  ]);
  rows.push([
    'inventory-export',
    'includeInactive as "yes"',
    { includeInactive: 'yes' },
    'EVENT_BAD_INCLUDE_INACTIVE',
    /must be true or false \(got "yes"\)/,
  ]);
  rows.push([
    'inventory-export',
    'a misspelt key',
    { snapshotdate: YESTERDAY },
    'EVENT_UNKNOWN_KEYS',
    /snapshotdate \(did you mean snapshotDate\?\)/,
  ]);
  rows.push([
    'statements',
    'month 2026-13',
    { month: '2026-13' },
    'EVENT_BAD_MONTH',
    /^"month" must be a past month as "YYYY-MM", or "this-month"/,
  ]);
  rows.push([
    'statements',
    'this month',
    { month: TODAY.slice(0, 7) },
    'EVENT_BAD_MONTH',
    /the current month is never confirmed/,
  ]);
  rows.push([
    'statements',
    'month 2026-1, without its leading zero',
    { month: '2026-1' },
    'EVENT_BAD_MONTH',
    /^"month" must be a past month as "YYYY-MM", or "this-month" or "this-month-N" \(N months before this one, UTC\), two digits for the month \(got "2026-1"\)$/,
  ]);
  rows.push([
    'cost-export',
    'February 29 of a common year',
    { date: '2025-02-29' },
    'EVENT_BAD_DATE',
    /^"date" must be a day as "YYYY-MM-DD", or "today" or "today-N" \(N days before today, UTC\) \(got "2025-02-29"\): not a date of the calendar, February 2025 has 28 days$/,
  ]);
  rows.push([
    'cost-export',
    'a data source named twice',
    { date: YESTERDAY, dataSourceIds: ['ds-1', 'ds-1'] },
    'EVENT_BAD_DATA_SOURCE_IDS',
    /^"dataSourceIds" names ds-1 more than once: name each data source once$/,
  ]);
  rows.push(['statements', 'month as a number', { month: 202601 }, 'EVENT_BAD_MONTH', /\(got 202601\)/]);
  rows.push([
    'statements',
    'currency EUR',
    { currency: 'EUR' },
    'EVENT_BAD_CURRENCY',
    /must be one of KRW, USD, JPY \(got "EUR"\)/,
  ]);
  rows.push([
    'statements',
    'currency in lower case',
    { currency: 'usd' },
    'EVENT_BAD_CURRENCY',
    /\(got "usd"\)/,
  ]);
  rows.push([
    'alerts',
    '"from" after today',
    { from: addDays(TODAY, 1) },
    'EVENT_BAD_DATE',
    /^"from" must be a past day as "YYYY-MM-DD"/,
  ]);
  rows.push(['alerts', '"from" not a date', { from: 'last week' }, 'EVENT_BAD_DATE', /\(got "last week"\)/]);
  rows.push([
    'alerts',
    'a range',
    { from: LAST_WEEK, to: YESTERDAY },
    'EVENT_UNKNOWN_KEYS',
    /unknown key\(s\): to; allowed: from$/,
  ]);
  rows.push([
    'freshness-check',
    'any key',
    { date: YESTERDAY },
    'EVENT_UNKNOWN_KEYS',
    /^event has unknown key\(s\): date; allowed: none \(give \{\}\)$/,
  ]);
  const plan =
    /^the cost job's states take the Plan state's output \(\{"runId", "bucket", "jobObjectKey", "unitsObjectKey", "units"\}\)/;
  for (const state of ['backfill-summary', 'backfill-finish'] as const) {
    rows.push([state, 'no event', null, 'EVENT_BAD_PLAN', plan]);
    rows.push([state, 'a reference without unitsObjectKey', { runId: 'r' }, 'EVENT_BAD_PLAN', plan]);
    rows.push([state, "the plan step's event instead", { date: YESTERDAY }, 'EVENT_BAD_PLAN', plan]);
  }
  const unit = /^a backfill unit is \{"runId", "dataSourceId", "date": "YYYY-MM-DD"\}/;
  rows.push(['backfill-unit', 'no event', null, 'EVENT_BAD_UNIT', unit]);
  rows.push([
    'backfill-unit',
    'a unit without runId',
    { dataSourceId: 'ds-1', date: YESTERDAY },
    'EVENT_BAD_UNIT',
    unit,
  ]);
  rows.push([
    'backfill-unit',
    'a unit with a bad date',
    { runId: 'r', dataSourceId: 'ds-1', date: '2026-02-30' },
    'EVENT_BAD_UNIT',
    unit,
  ]);
  // The daily run across tenants' shared states, in a stack of tenants.
  const lanes =
    /^the Lanes state takes \{"runId", "planned": \[each tenant's Plan output\], "caps": \{"overall", "perEndpoint", "perTenant"\}\}/;
  rows.push(['tenants-lanes', 'no event', null, 'EVENT_BAD_PLAN', lanes]);
  rows.push(['tenants-lanes', 'no caps', { runId: 'r', planned: [] }, 'EVENT_BAD_PLAN', lanes]);
  rows.push([
    'tenants-lanes',
    'a cap of 0',
    { runId: 'r', planned: [], caps: { overall: 0, perEndpoint: 1, perTenant: 1 } },
    'EVENT_BAD_PLAN',
    lanes,
  ]);
  const outcomes =
    /^the last state of the daily run across tenants takes \{"runId", "outcomes": \[each tenant's outcome\]\}/;
  rows.push(['tenants-summary', 'no event', null, 'EVENT_BAD_PLAN', outcomes]);
  rows.push([
    'tenants-summary',
    "a tenant's Summary output instead",
    { runId: 'r', written: 3 },
    'EVENT_BAD_PLAN',
    outcomes,
  ]);
  const tenantsEnv = {
    EXPORT_TENANTS: JSON.stringify({
      endpoints: ['https://cf.example.invalid'],
      tenants: { acme: [0, 'cloudforet/acme'] },
    }),
  };
  return rows.map(([name, label, event, code, first]) => ({
    kind: 'event',
    name: `${name}: event ${label}`,
    act: () => invoke(name, event, (ACROSS_TENANTS as readonly string[]).includes(name) ? tenantsEnv : {}),
    expected: code,
    first,
    within: 5,
  }));
}

export function envRows(): Row[] {
  const rows: Array<[FunctionName, string, Record<string, string>, RegExp]> = [
    [
      'tenants-lanes',
      'in a stack without tenants',
      {},
      /EXPORT_TENANTS is not set: tenants-lanes serves the daily run/,
    ],
    [
      'tenants-summary',
      'without EXPORT_BUCKET',
      { EXPORT_BUCKET: '', EXPORT_TENANTS: '{"endpoints":["https://x.invalid"],"tenants":{"a":[0,"s"]}}' },
      /EXPORT_BUCKET is not set/,
    ],
    [
      'tenants-lanes',
      'EXPORT_BUCKET as an s3:// URL, EXPORT_PREFIX with ..',
      {
        EXPORT_BUCKET: 's3://exports/cf',
        EXPORT_PREFIX: 'cf/../other',
        EXPORT_TENANTS: '{"endpoints":["https://x.invalid"],"tenants":{"a":[0,"s"]}}',
      },
      /EXPORT_BUCKET takes the bucket's name alone, not a URL or an ARN .*; EXPORT_PREFIX must not hold '\.' or '\.\.' segments/,
    ],
    ['statements', 'without EXPORT_BUCKET', { EXPORT_BUCKET: '' }, /EXPORT_BUCKET is not set/],
    ['alerts', 'without EXPORT_BUCKET', { EXPORT_BUCKET: '' }, /EXPORT_BUCKET is not set/],
    [
      'inventory-export',
      'without CLOUDFORET_SECRET_ID',
      { CLOUDFORET_SECRET_ID: '' },
      /CLOUDFORET_SECRET_ID is not set/,
    ],
    [
      'cost-export',
      'EXPORT_CONCURRENCY 1.5',
      { EXPORT_CONCURRENCY: '1.5' },
      /EXPORT_CONCURRENCY must be a whole number from 1 to 64 \(got '1\.5'\)/,
    ],
    [
      'cost-export',
      'MAX_INLINE_DAYS 401',
      { MAX_INLINE_DAYS: '401' },
      /MAX_INLINE_DAYS must be a whole number from 1 to 400/,
    ],
    [
      'focus-export',
      'EXPORT_WINDOW_MONTHS 13',
      { EXPORT_WINDOW_MONTHS: '13' },
      /EXPORT_WINDOW_MONTHS must be a whole number from 1 to 12 \(got '13'\)/,
    ],
    [
      'backfill-plan',
      'STALE_JOB_HOURS 0',
      { STALE_JOB_HOURS: '0' },
      /STALE_JOB_HOURS must be a whole number from 1 to 168/,
    ],
    [
      'freshness-check',
      'FRESHNESS_HOURS "a day"',
      { FRESHNESS_HOURS: 'a day' },
      /FRESHNESS_HOURS must be a whole number from 1 to 720 \(got 'a day'\)/,
    ],
    [
      'backfill-unit',
      'SECRET_TTL_SECONDS -1',
      { SECRET_TTL_SECONDS: '-1' },
      /SECRET_TTL_SECONDS must be a whole number from 0 to 86400/,
    ],
    [
      'cost-export',
      'CLOUDFORET_TIMEOUT_MS 0x10',
      { CLOUDFORET_TIMEOUT_MS: '0x10' },
      /CLOUDFORET_TIMEOUT_MS must be a whole number/,
    ],
    [
      'cost-export',
      'PARQUET_COMPRESSION snappy',
      { PARQUET_COMPRESSION: 'snappy' },
      /PARQUET_COMPRESSION must be ZSTD or GZIP \(got 'snappy'\)/,
    ],
    [
      'statements',
      'LOG_LEVEL trace',
      { LOG_LEVEL: 'trace' },
      /LOG_LEVEL must be one of debug, info, warn, error/,
    ],
    [
      'focus-export',
      'CLOUDFORET_ENDPOINT ftp://…',
      { CLOUDFORET_ENDPOINT: 'ftp://console.example.com' },
      /CLOUDFORET_ENDPOINT must be an http\(s\) URL/,
    ],
    [
      'cost-export',
      'EXPORT_BUCKET as an s3:// URL',
      { EXPORT_BUCKET: 's3://exports/cf' },
      /EXPORT_BUCKET takes the bucket's name alone, not a URL or an ARN \(got 's3:\/\/exports\/cf'\): set EXPORT_BUCKET=exports, and a prefix in EXPORT_PREFIX/,
    ],
    [
      'inventory-export',
      'EXPORT_BUCKET as an ARN',
      { EXPORT_BUCKET: 'arn:aws:s3:::exports' },
      /EXPORT_BUCKET takes the bucket's name alone, not a URL or an ARN \(got 'arn:aws:s3:::exports'\): set EXPORT_BUCKET=exports/,
    ],
    [
      'alerts',
      'ALERTS_TOPIC_ARN not an ARN',
      { ALERTS_TOPIC_ARN: 'alerts' },
      /ALERTS_TOPIC_ARN must be an SNS topic ARN .*\(got 'alerts'\)/,
    ],
    [
      'alerts',
      'without ALERTS_TOPIC_ARN',
      { ALERTS_TOPIC_ARN: '' },
      /ALERTS_TOPIC_ARN must be an SNS topic ARN .*\(got ''\)/,
    ],
  ];
  return rows.map(([name, label, env, words]) => ({
    kind: 'env',
    name: `${name}: environment ${label}`,
    act: () => invoke(name, {}, env),
    expected: 'CONFIG_INVALID',
    first: new RegExp(`^configuration: .*${words.source}`),
    within: 5,
  }));
}
