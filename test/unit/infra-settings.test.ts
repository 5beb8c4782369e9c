import { describe, expect, it } from 'vitest';
import { isScheduleExpression } from '../../infra/setting-values.ts';
import { readSettings, SettingsError } from '../../infra/settings.ts';

const endpoint = { cloudforetEndpoint: 'https://console-v2.api.example.com' };

function problemsOf(context: Record<string, unknown>): readonly string[] {
  try {
    readSettings(context);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).problems;
  }
  throw new Error('readSettings accepted the context');
}

describe('readSettings', () => {
  it('fills every default when only the endpoint is given', () => {
    const settings = readSettings(endpoint);

    expect(settings).toEqual({
      cloudforetEndpoint: 'https://console-v2.api.example.com',
      secretName: undefined,
      costSchedule: 'cron(0 6 * * ? *)',
      inventorySchedule: 'cron(0 7 * * ? *)',
      alertsSchedule: 'cron(0 9 * * ? *)',
      statementsSchedule: 'cron(30 9 * * ? *)',
      scheduleTimeZone: 'UTC',
      bucketName: undefined,
      bucketKmsKeyArn: undefined,
      secretKmsKeyArn: undefined,
      prefix: 'cloudforet',
      memoryMb: 1024,
      timeoutSeconds: 900,
      reservedConcurrency: 2,
      alarmEmail: undefined,
      alertEmail: undefined,
      freshnessHours: 36,
      projectionStart: '2025-01-01',
      athenaBytesScannedLimit: 10_737_418_240,
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
      parquetCompression: 'ZSTD',
      backfillMaxConcurrency: 4,
    });
  });

  it('reads -c values, which arrive as strings, and trims the prefix slashes', () => {
    const settings = readSettings({
      ...endpoint,
      memoryMb: '2048',
      timeoutSeconds: '600',
      prefix: '/exports/cloudforet/',
      athenaBytesScannedLimit: '500MB',
      reservedConcurrency: 'none',
      secretName: 'cloudforet/app',
      bucketName: 'my-exports',
      alarmEmail: 'ops@example.com',
      scheduleTimeZone: 'Asia/Seoul',
      costSchedule: 'rate(1 day)',
    });

    expect(settings.memoryMb).toBe(2048);
    expect(settings.timeoutSeconds).toBe(600);
    expect(settings.prefix).toBe('exports/cloudforet');
    expect(settings.athenaBytesScannedLimit).toBe(500_000_000);
    expect(settings.reservedConcurrency).toBeUndefined();
    expect(settings.secretName).toBe('cloudforet/app');
    expect(settings.bucketName).toBe('my-exports');
    expect(settings.alarmEmail).toBe('ops@example.com');
    expect(settings.scheduleTimeZone).toBe('Asia/Seoul');
    expect(settings.costSchedule).toBe('rate(1 day)');
  });

  it('accepts numbers from cdk.json as they are', () => {
    const settings = readSettings({ ...endpoint, memoryMb: 512, athenaBytesScannedLimit: 20_000_000 });

    expect(settings.memoryMb).toBe(512);
    expect(settings.athenaBytesScannedLimit).toBe(20_000_000);
  });

  it('requires the endpoint and says how to give it', () => {
    const problems = problemsOf({});

    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('cloudforetEndpoint is required');
    expect(problems[0]).toContain('-c cloudforetEndpoint=https://');
  });

  it('names every bad value in one error', () => {
    const context = {
      cloudforetEndpoint: 'ftp://cloudforet.example.com',
      costSchedule: 'cron(0 6 * * *)',
      projectionStart: '2025-13-01',
      memoryMb: '64',
    };

    const problems = problemsOf(context);

    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(
      /^cloudforetEndpoint must be an https:\/\/ URL.*"ftp:\/\/cloudforet.example.com"/,
    );
    expect(problems[1]).toMatch(
      /^costSchedule must be an EventBridge Scheduler expression.*"cron\(0 6 \* \* \*\)"/,
    );
    expect(problems[2]).toMatch(/^memoryMb must be a whole number from 128 to 10240.*"64"/);
    expect(problems[3]).toMatch(/^projectionStart must be a date as YYYY-MM-DD.*"2025-13-01"/);
  });

  it('puts every problem in the error message, one per line', () => {
    const error = (() => {
      try {
        readSettings({ memoryMb: 'lots', scheduleTimeZone: 'Mars/Olympus' });
      } catch (e) {
        return e as SettingsError;
      }
    })();

    expect(error?.code).toBe('SETTINGS_INVALID');
    expect(error?.message.split('\n')).toEqual([
      'invalid CDK context for the Cloudforet export stack (set with -c key=value or in cdk.json):',
      expect.stringContaining('  - cloudforetEndpoint is required'),
      expect.stringContaining('  - scheduleTimeZone must be an IANA time zone'),
      expect.stringContaining('  - memoryMb must be a whole number'),
    ]);
  });

  it.each([
    ['cloudforetEndpoint', 'http://console-v2.api.example.com'],
    ['inventorySchedule', 'cron(0 7 * * * *)'],
    ['scheduleTimeZone', 'Mars/Olympus'],
    ['bucketName', 'My_Bucket'],
    ['prefix', '/'],
    ['prefix', 'athena-results/x'],
    ['prefix', 'a/../b'],
    ['projectionStart', '2025-02-30'],
    ['projectionStart', '1 Jan 2025'],
    ['timeoutSeconds', '901'],
    ['reservedConcurrency', '0'],
    ['alarmEmail', 'ops-at-example.com'],
    ['secretName', 'bad secret'],
    ['athenaBytesScannedLimit', '1KB'],
    ['athenaBytesScannedLimit', '1000'],
    ['databaseName', 'Cloudforet-Export'],
    ['logLevel', 'verbose'],
    ['parquetCompression', 'SNAPPY'],
    ['exportConcurrency', '0'],
    ['backfillMaxConcurrency', '0'],
    ['backfillMaxConcurrency', '1001'],
    ['backfillMaxConcurrency', '2.5'],
    ['cloudforetMaxAnswerMb', '0'],
    ['cloudforetMaxAnswerMb', '1025'],
  ])('rejects %s = %j', (key, value) => {
    const problems = problemsOf({ ...endpoint, [key]: value });

    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${key} `);
    expect(problems[0]).toContain(JSON.stringify(value));
  });

  it('reads the backfill concurrency from 1 to 1000 and names it when out of range', () => {
    expect(readSettings({ ...endpoint, backfillMaxConcurrency: '1' }).backfillMaxConcurrency).toBe(1);
    expect(readSettings({ ...endpoint, backfillMaxConcurrency: 1000 }).backfillMaxConcurrency).toBe(1000);

    expect(problemsOf({ ...endpoint, backfillMaxConcurrency: '0' })).toEqual([
      'backfillMaxConcurrency must be a whole number from 1 to 1000 (got "0")',
    ]);
  });

  it('reads the largest Cloudforet answer from 1 to 1024 MiB and names it when out of range', () => {
    expect(readSettings({ ...endpoint, cloudforetMaxAnswerMb: '1' }).cloudforetMaxAnswerMb).toBe(1);
    expect(readSettings({ ...endpoint, cloudforetMaxAnswerMb: 1024 }).cloudforetMaxAnswerMb).toBe(1024);

    expect(problemsOf({ ...endpoint, cloudforetMaxAnswerMb: '2048' })).toEqual([
      'cloudforetMaxAnswerMb must be a whole number from 1 to 1024 (got "2048")',
    ]);
  });

  it('refuses a Cloudforet request timeout the function would not outlive', () => {
    const problems = problemsOf({ ...endpoint, timeoutSeconds: '60', cloudforetTimeoutMs: '60000' });

    expect(problems).toEqual([
      expect.stringMatching(/^cloudforetTimeoutMs \(60000\) must be below timeoutSeconds \(60\)/),
    ]);
  });

  it('refuses a default cost window longer than one invocation may export', () => {
    const problems = problemsOf({ ...endpoint, costWindowMonths: '3' });

    expect(problems).toEqual([
      expect.stringMatching(/^maxInlineDays \(62\) must be at least 31 × costWindowMonths \(93\)/),
    ]);
  });

  it.each([
    ['memorymb', '2048', 'memoryMb'],
    ['alarmemail', 'ops@example.com', 'alarmEmail'],
    ['bucketname', 'my-exports', 'bucketName'],
    ['timeoutSecond', '600', 'timeoutSeconds'],
  ])('refuses the misspelt key %s (= %s) with the closest name, %s', (key, value, meant) => {
    const problems = problemsOf({ ...endpoint, [key]: value });

    expect(problems).toEqual([`${key} is not a setting of this stack; did you mean ${meant}?`]);
  });

  it('lists the settings for an unknown key near none of them', () => {
    const problems = problemsOf({ ...endpoint, colour: 'blue' });

    expect(problems).toEqual([
      expect.stringMatching(
        /^colour is not a setting of this stack; the settings are: cloudforetEndpoint, secretName, /,
      ),
    ]);
  });

  it("leaves the CDK's own context keys and feature flags alone", () => {
    const settings = readSettings({
      ...endpoint,
      'aws:cdk:bundling-stacks': [],
      '@aws-cdk/aws-lambda:recognizeLayerVersion': true,
      'acknowledged-issue-numbers': [1234],
    });

    expect(settings.memoryMb).toBe(1024);
  });

  it('reads KMS key ARNs for an imported bucket and secret', () => {
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

    const settings = readSettings({
      ...endpoint,
      bucketName: 'my-exports',
      bucketKmsKeyArn: key,
      secretName: 'cloudforet/app',
      secretKmsKeyArn: key,
    });

    expect([settings.bucketKmsKeyArn, settings.secretKmsKeyArn]).toEqual([key, key]);
  });

  it('refuses a KMS key ARN that is not one, or without the import it is for', () => {
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

    const problems = problemsOf({
      ...endpoint,
      bucketName: 'my-exports',
      bucketKmsKeyArn: 'alias/exports',
      secretKmsKeyArn: key,
    });

    expect(problems).toEqual([
      expect.stringMatching(/^bucketKmsKeyArn must be a KMS key ARN .*"alias\/exports"/),
      expect.stringMatching(/^secretKmsKeyArn is for an imported secret: give secretName too/),
    ]);
  });
});

describe('isScheduleExpression', () => {
  it.each([
    'cron(0 6 * * ? *)',
    'cron(15 2 ? * MON-FRI *)',
    'cron(0 0 1 * ? *)',
    'rate(12 hours)',
    'rate(1 day)',
  ])('accepts %s', (expression) => {
    expect(isScheduleExpression(expression)).toBe(true);
  });

  it.each([
    'cron(0 6 * * *)',
    'cron(0 6 ? * ? *)',
    'cron(0 6 1 * MON *)',
    'rate(0 days)',
    'rate(1 week)',
    '0 6 * * *',
  ])('rejects %s', (expression) => {
    expect(isScheduleExpression(expression)).toBe(false);
  });
});
