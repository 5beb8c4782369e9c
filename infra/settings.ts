// Stack settings from CDK context (`-c key=value` or cdk.json), checked at synth time.
// Every bad value is reported in one error, so one failed synth shows everything to fix.

import { COMPRESSIONS, DEFAULT_COMPRESSION, parseCompression } from '../functions/lib/codecs.ts';
import { closestName } from '../functions/lib/input/closest-name.ts';
import { type ContextReader, contextReader } from './context-reader.ts';
import {
  GiB,
  isBucketName,
  isHttpsUrl,
  isIsoDate,
  isPrefix,
  isScheduleExpression,
  isTimeZone,
  parseBytes,
} from './setting-values.ts';
import { readTenants, type TenantSettings, tenantProblems } from './tenant-settings.ts';

export interface Settings {
  /** Every tenant's default endpoint when tenants are given ('' when none is). */
  readonly cloudforetEndpoint: string;
  /** Several Cloudforet domains in one stack (tenant-settings.ts); undefined: one, as before. */
  readonly tenants?: readonly TenantSettings[] | undefined;
  /** An existing secret to import by name; undefined: the stack creates an empty one. */
  readonly secretName: string | undefined;
  readonly costSchedule: string;
  readonly inventorySchedule: string;
  readonly scheduleTimeZone: string;
  /** An existing bucket to import; undefined: the stack creates one. */
  readonly bucketName: string | undefined;
  /** The customer-managed KMS key of an imported bucket, granted to the roles that use the bucket. */
  readonly bucketKmsKeyArn: string | undefined;
  /** The customer-managed KMS key of an imported secret, granted to the roles that read it. */
  readonly secretKmsKeyArn: string | undefined;
  readonly prefix: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** undefined: the functions use unreserved account concurrency. */
  readonly reservedConcurrency: number | undefined;
  readonly alarmEmail: string | undefined;
  /** E-mail subscribed to the cost alerts topic (anomalies, budgets); undefined: none. */
  readonly alertEmail: string | undefined;
  /** When the alerts function runs: after the daily cost export. */
  readonly alertsSchedule: string;
  /** When the statements function runs: after the daily cost export. */
  readonly statementsSchedule: string;
  /** A data source with no newer billed day exported, or no Cloudforet sync, for this long alarms. */
  readonly freshnessHours: number;
  readonly projectionStart: string;
  readonly athenaBytesScannedLimit: number;
  readonly databaseName: string;
  readonly workgroupName: string;
  readonly exportConcurrency: number;
  readonly maxInlineDays: number;
  /** Months a cost event without dates ({}, the schedule's) exports, the current one included. */
  readonly costWindowMonths: number;
  readonly cloudforetTimeoutMs: number;
  /** The longest Cloudforet answer body a function takes, in MiB. */
  readonly cloudforetMaxAnswerMb: number;
  readonly secretTtlSeconds: number;
  /** Hours after which a cost sync job still IN_PROGRESS is stale (crashed): export anyway, warn. */
  readonly staleJobHours: number;
  readonly logLevel: string;
  /** Parquet page codec, ZSTD or GZIP (docs/performance.md). */
  readonly parquetCompression: string;
  /** Backfill units exported at once by the state machine: it bounds the load on the Cloudforet API. */
  readonly backfillMaxConcurrency: number;
  /**
   * With tenants: units of one tenant's cost job exported at once (the Map's concurrency), under
   * backfillMaxConcurrency, which the unit function reserves across every tenant. Unset: the same.
   */
  readonly tenantMaxConcurrency?: number | undefined;
  /**
   * With tenants: units exported at once from one Cloudforet endpoint by the daily run across
   * tenants, under backfillMaxConcurrency. Unset: the same.
   */
  readonly endpointMaxConcurrency?: number | undefined;
}

/** Every context key this stack reads, with its default ('' when it has none). */
export const settingDefaults = {
  cloudforetEndpoint: '',
  secretName: '',
  costSchedule: 'cron(0 6 * * ? *)',
  inventorySchedule: 'cron(0 7 * * ? *)',
  scheduleTimeZone: 'UTC',
  bucketName: '',
  bucketKmsKeyArn: '',
  secretKmsKeyArn: '',
  prefix: 'cloudforet',
  memoryMb: 1024,
  timeoutSeconds: 900,
  reservedConcurrency: 2,
  alarmEmail: '',
  alertEmail: '',
  alertsSchedule: 'cron(0 9 * * ? *)',
  statementsSchedule: 'cron(30 9 * * ? *)',
  freshnessHours: 36,
  projectionStart: '2025-01-01',
  athenaBytesScannedLimit: 10 * GiB,
  databaseName: 'cloudforet_export',
  workgroupName: 'cloudforet_export',
  exportConcurrency: 4,
  maxInlineDays: 62,
  costWindowMonths: 2,
  cloudforetTimeoutMs: 60_000,
  cloudforetMaxAnswerMb: 64,
  secretTtlSeconds: 300,
  staleJobHours: 4,
  logLevel: 'info',
  parquetCompression: DEFAULT_COMPRESSION,
  backfillMaxConcurrency: 4,
  tenantMaxConcurrency: '',
  endpointMaxConcurrency: '',
  tenants: '',
} as const;

export type SettingKey = keyof typeof settingDefaults;
type Reader = ContextReader<SettingKey>;
export const settingKeys = Object.keys(settingDefaults) as SettingKey[];

export class SettingsError extends Error {
  readonly code = 'SETTINGS_INVALID';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `invalid CDK context for the Cloudforet export stack (set with -c key=value or in cdk.json):\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
    this.name = 'SettingsError';
    this.problems = problems;
  }
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];

/** Settings from a context lookup; throws one SettingsError naming every bad value. */
export function readSettings(context: Readonly<Record<string, unknown>>): Settings {
  const r = contextReader(context, settingDefaults);
  r.problems.push(...unknownKeyProblems(context));
  const tenantsGiven = ![undefined, null, ''].includes(context.tenants as never);
  const connection = readConnection(r, tenantsGiven);
  const tenants = readTenants(context.tenants, connection.cloudforetEndpoint || undefined, r.problems);
  const settings: Settings = {
    ...connection,
    ...(tenants && { tenants }),
    ...readSchedules(r),
    ...readStorage(r),
    ...readFunctionTuning(r),
    ...readAthena(r),
    alarmEmail: r.optional('alarmEmail', EMAIL, 'must be an e-mail address'),
    alertEmail: r.optional('alertEmail', EMAIL, 'must be an e-mail address'),
    freshnessHours: r.integer('freshnessHours', 1, 720),
  };
  r.problems.push(...crossProblems(settings));
  if (r.problems.length > 0) throw new SettingsError(r.problems);
  return settings;
}

/**
 * Keys that are none of ours: a misspelt setting would otherwise be ignored and its default
 * deployed. Keys with ':' or '@' belong to the CDK and its feature flags.
 */
function unknownKeyProblems(context: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(context)
    .filter((key) => !(key in settingDefaults) && !CDK_KEY.test(key) && key !== 'acknowledged-issue-numbers')
    .map((key) => {
      const near = closestName(key, settingKeys);
      const hint =
        near === undefined ? `; the settings are: ${settingKeys.join(', ')}` : `; did you mean ${near}?`;
      return `${key} is not a setting of this stack${hint}`;
    });
}

const CDK_KEY = /[:@]/;

/** Values that are each valid but do not work together. */
function crossProblems(s: Settings): string[] {
  const problems: string[] = [];
  if (s.cloudforetTimeoutMs >= s.timeoutSeconds * 1000) {
    problems.push(
      `cloudforetTimeoutMs (${s.cloudforetTimeoutMs}) must be below timeoutSeconds (${s.timeoutSeconds}) × 1000, ` +
        'or one slow request outlives the function',
    );
  }
  if (s.maxInlineDays < 31 * s.costWindowMonths) {
    problems.push(
      `maxInlineDays (${s.maxInlineDays}) must be at least 31 × costWindowMonths (${31 * s.costWindowMonths}), ` +
        'or the scheduled cost export ({}: the current and previous months) is refused on long months',
    );
  }
  if (s.bucketKmsKeyArn !== undefined && s.bucketName === undefined) {
    problems.push(
      "bucketKmsKeyArn is for an imported bucket: give bucketName too (the stack's own bucket uses S3-managed keys)",
    );
  }
  if (s.secretKmsKeyArn !== undefined && s.secretName === undefined) {
    problems.push(
      "secretKmsKeyArn is for an imported secret: give secretName too (the stack's own secret uses the AWS-managed key)",
    );
  }
  if (s.tenantMaxConcurrency !== undefined && s.tenants === undefined) {
    problems.push(
      "tenantMaxConcurrency caps one tenant's units at once: give tenants too (without them, backfillMaxConcurrency is the cap)",
    );
  } else if (s.tenantMaxConcurrency !== undefined && s.tenantMaxConcurrency > s.backfillMaxConcurrency) {
    problems.push(
      `tenantMaxConcurrency (${s.tenantMaxConcurrency}) must be at most backfillMaxConcurrency (${s.backfillMaxConcurrency}), ` +
        "the units at once across every tenant (the unit function's reserved concurrency)",
    );
  }
  if (s.endpointMaxConcurrency !== undefined && s.tenants === undefined) {
    problems.push(
      'endpointMaxConcurrency caps the units at once from one Cloudforet endpoint in the daily run across tenants: give tenants too (without them, backfillMaxConcurrency is the cap)',
    );
  } else if (s.endpointMaxConcurrency !== undefined && s.endpointMaxConcurrency > s.backfillMaxConcurrency) {
    problems.push(
      `endpointMaxConcurrency (${s.endpointMaxConcurrency}) must be at most backfillMaxConcurrency (${s.backfillMaxConcurrency}), ` +
        "the units at once across every tenant (the unit function's reserved concurrency)",
    );
  }
  problems.push(...tenantProblems(s));
  return problems;
}

function readConnection(r: Reader, tenantsGiven: boolean) {
  const cloudforetEndpoint = r.text('cloudforetEndpoint') ?? '';
  if (cloudforetEndpoint === '') {
    // With tenants, each tenant names its endpoint.
    if (!tenantsGiven)
      r.problems.push(
        'cloudforetEndpoint is required: the Cloudforet API endpoint, ' +
          'e.g. -c cloudforetEndpoint=https://console-v2.api.example.com',
      );
  } else {
    r.check(
      'cloudforetEndpoint',
      isHttpsUrl(cloudforetEndpoint),
      'must be an https:// URL such as https://console-v2.api.example.com (over http the client secret would cross the network in clear text)',
    );
  }
  return {
    cloudforetEndpoint: cloudforetEndpoint.replace(/\/+$/, ''),
    secretName: r.optional(
      'secretName',
      /^[A-Za-z0-9/_+=.@-]{1,512}$/,
      'must be a Secrets Manager secret name (letters, digits and /_+=.@-)',
    ),
    secretKmsKeyArn: r.optional('secretKmsKeyArn', KMS_KEY_ARN, KMS_KEY_HINT),
  };
}

function readSchedules(r: Reader) {
  const costSchedule = r.orDefault('costSchedule');
  r.check('costSchedule', isScheduleExpression(costSchedule), SCHEDULE_HINT);
  const inventorySchedule = r.orDefault('inventorySchedule');
  r.check('inventorySchedule', isScheduleExpression(inventorySchedule), SCHEDULE_HINT);
  const alertsSchedule = r.orDefault('alertsSchedule');
  r.check('alertsSchedule', isScheduleExpression(alertsSchedule), SCHEDULE_HINT);
  const statementsSchedule = r.orDefault('statementsSchedule');
  r.check('statementsSchedule', isScheduleExpression(statementsSchedule), SCHEDULE_HINT);
  const scheduleTimeZone = r.orDefault('scheduleTimeZone');
  r.check(
    'scheduleTimeZone',
    isTimeZone(scheduleTimeZone),
    'must be an IANA time zone such as UTC or Asia/Seoul',
  );
  return { costSchedule, inventorySchedule, alertsSchedule, statementsSchedule, scheduleTimeZone };
}

function readStorage(r: Reader) {
  const bucketName = r.text('bucketName');
  if (bucketName !== undefined) {
    r.check(
      'bucketName',
      isBucketName(bucketName),
      'must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)',
    );
  }
  const prefix = r.orDefault('prefix').replace(/^\/+|\/+$/g, '');
  r.check(
    'prefix',
    isPrefix(prefix),
    'must be a non-empty key prefix of letters, digits and _.- separated by /, not under athena-results/',
  );
  const bucketKmsKeyArn = r.optional('bucketKmsKeyArn', KMS_KEY_ARN, KMS_KEY_HINT);
  return { bucketName, bucketKmsKeyArn, prefix };
}

function readFunctionTuning(r: Reader) {
  const logLevel = r.orDefault('logLevel');
  r.check('logLevel', LOG_LEVELS.includes(logLevel), `must be one of ${LOG_LEVELS.join(', ')}`);
  const parquetCompression = r.orDefault('parquetCompression');
  r.check(
    'parquetCompression',
    parseCompression(parquetCompression) !== undefined,
    `must be ${COMPRESSIONS.join(' or ')}`,
  );
  return {
    memoryMb: r.integer('memoryMb', 128, 10_240),
    timeoutSeconds: r.integer('timeoutSeconds', 30, 900),
    reservedConcurrency:
      r.orDefault('reservedConcurrency') === 'none' ? undefined : r.integer('reservedConcurrency', 1, 1000),
    exportConcurrency: r.integer('exportConcurrency', 1, 64),
    maxInlineDays: r.integer('maxInlineDays', 1, 400),
    costWindowMonths: r.integer('costWindowMonths', 1, 12),
    cloudforetTimeoutMs: r.integer('cloudforetTimeoutMs', 1_000, 600_000),
    cloudforetMaxAnswerMb: r.integer('cloudforetMaxAnswerMb', 1, 1024),
    secretTtlSeconds: r.integer('secretTtlSeconds', 0, 86_400),
    staleJobHours: r.integer('staleJobHours', 1, 168),
    logLevel,
    parquetCompression,
    backfillMaxConcurrency: r.integer('backfillMaxConcurrency', 1, 1000),
    tenantMaxConcurrency:
      r.orDefault('tenantMaxConcurrency') === '' ? undefined : r.integer('tenantMaxConcurrency', 1, 1000),
    endpointMaxConcurrency:
      r.orDefault('endpointMaxConcurrency') === '' ? undefined : r.integer('endpointMaxConcurrency', 1, 1000),
  };
}

function readAthena(r: Reader) {
  const projectionStart = r.orDefault('projectionStart');
  r.check('projectionStart', isIsoDate(projectionStart), 'must be a date as YYYY-MM-DD');
  const athenaBytesScannedLimit = parseBytes(r.orDefault('athenaBytesScannedLimit'));
  r.check(
    'athenaBytesScannedLimit',
    Number.isSafeInteger(athenaBytesScannedLimit) && athenaBytesScannedLimit >= 10_000_000,
    'must be a byte count of at least 10000000 (the Athena minimum), optionally with a unit: 10GiB, 500MB',
  );
  const databaseName = r.orDefault('databaseName');
  r.check(
    'databaseName',
    /^[a-z0-9_]{1,255}$/.test(databaseName),
    'must be lower-case letters, digits and _',
  );
  const workgroupName = r.orDefault('workgroupName');
  r.check(
    'workgroupName',
    /^[A-Za-z0-9._-]{1,128}$/.test(workgroupName),
    'must be 1-128 letters, digits and ._-',
  );
  return { projectionStart, athenaBytesScannedLimit, databaseName, workgroupName };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;
const KMS_KEY_HINT =
  'must be a KMS key ARN such as arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

const SCHEDULE_HINT =
  'must be an EventBridge Scheduler expression: cron(minutes hours day-of-month month day-of-week year) ' +
  'with ? in day-of-month or day-of-week, e.g. cron(0 6 * * ? *), or rate(1 day)';
