import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../functions/lib/config.ts';
import { focusCatalogEnvironment, functionEnvironment } from '../../../infra/export-function.ts';
import { readSettings } from '../../../infra/settings.ts';
import { arnOf, idOf, type Json, statementsOfRole, synth } from '../../support/synth-stack.ts';

describe('CloudforetExportStack with defaults', () => {
  let t: Template;
  let ids: Record<
    | 'bucket'
    | 'secret'
    | 'cost'
    | 'inventory'
    | 'freshness'
    | 'alerts'
    | 'statements'
    | 'backfill'
    | 'failed'
    | 'dlq',
    string
  >;
  beforeAll(() => {
    t = synth();
    ids = {
      backfill: idOf(t, 'AWS::StepFunctions::StateMachine'),
      bucket: idOf(t, 'AWS::S3::Bucket'),
      secret: idOf(t, 'AWS::SecretsManager::Secret'),
      cost: idOf(t, 'AWS::Lambda::Function', 'CostExportFunction'),
      inventory: idOf(t, 'AWS::Lambda::Function', 'InventoryExportFunction'),
      freshness: idOf(t, 'AWS::Lambda::Function', 'FreshnessCheckFunction'),
      alerts: idOf(t, 'AWS::Lambda::Function', 'ReportsAlertsFunction'),
      statements: idOf(t, 'AWS::Lambda::Function', 'ReportsStatementsFunction'),
      failed: idOf(t, 'AWS::SQS::Queue', 'FailedInvocationsQueue'),
      dlq: idOf(t, 'AWS::SQS::Queue', 'SchedulerDeadLetterQueue'),
    };
  });

  it('runs every function on Node 24, arm64, with memory, timeout and concurrency from settings', () => {
    for (const prefix of [
      'CostExport',
      'InventoryExport',
      'BackfillPlan',
      'BackfillFinish',
      'BackfillSummary',
    ]) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: Match.absent(),
        Role: arnOf(idOf(t, 'AWS::IAM::Role', `${prefix}Role`)),
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 1024,
        Timeout: 900,
        ReservedConcurrentExecutions: 2,
        LoggingConfig: { LogGroup: { Ref: idOf(t, 'AWS::Logs::LogGroup', `${prefix}Logs`) } },
      });
    }
    // The freshness check, the alerts and the statements reserve one each: never two runs at once.
    for (const prefix of ['FreshnessCheck', 'ReportsAlerts', 'ReportsStatements']) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        Role: arnOf(idOf(t, 'AWS::IAM::Role', `${prefix}Role`)),
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        ReservedConcurrentExecutions: 1,
      });
    }
    t.resourceCountIs('AWS::Lambda::Function', 9);
    t.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('gives the functions the configuration readConfig expects', () => {
    const env = t.findResources('AWS::Lambda::Function')[ids.cost]!.Properties.Environment.Variables;

    expect(env).toEqual({
      CLOUDFORET_ENDPOINT: 'https://cf.example.com',
      CLOUDFORET_SECRET_ID: { Ref: ids.secret },
      EXPORT_BUCKET: { Ref: ids.bucket },
      EXPORT_PREFIX: 'cloudforet',
      EXPORT_CONCURRENCY: '4',
      MAX_INLINE_DAYS: '62',
      EXPORT_WINDOW_MONTHS: '2',
      CLOUDFORET_TIMEOUT_MS: '60000',
      CLOUDFORET_MAX_ANSWER_MB: '64',
      SECRET_TTL_SECONDS: '300',
      STALE_JOB_HOURS: '4',
      LOG_LEVEL: 'info',
      PARQUET_COMPRESSION: 'ZSTD',
      FRESHNESS_HOURS: '36',
      NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=16',
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      // Its run ends with compaction, which keeps the focus table's partitions.
      FOCUS_GLUE_DATABASE: 'cloudforet_export',
    });
  });

  it('retries a failed async invocation once, then sends it to the failed-invocations queue', () => {
    for (const fn of [ids.cost, ids.inventory]) {
      t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fn },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 1,
        MaximumEventAgeInSeconds: 21_600,
        DestinationConfig: { OnFailure: { Destination: arnOf(ids.failed) } },
      });
    }
  });

  it('schedules the backfill state machine, the inventory export, the alerts and the statements daily, the freshness check hourly, in UTC with {} as input, retries and a DLQ', () => {
    const role = arnOf(idOf(t, 'AWS::IAM::Role', 'SchedulesRole'));
    for (const [target, expression] of [
      [{ Ref: ids.backfill }, 'cron(0 6 * * ? *)'],
      [arnOf(ids.inventory), 'cron(0 7 * * ? *)'],
      [arnOf(ids.freshness), 'rate(1 hour)'],
      [arnOf(ids.alerts), 'cron(0 9 * * ? *)'],
      [arnOf(ids.statements), 'cron(30 9 * * ? *)'],
    ] as const) {
      t.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        ScheduleExpressionTimezone: 'UTC',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: target,
          RoleArn: role,
          Input: '{}',
          RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 },
          DeadLetterConfig: { Arn: arnOf(ids.dlq) },
        },
      });
    }
    t.resourceCountIs('AWS::Scheduler::Schedule', 5);
  });

  it('lets only EventBridge Scheduler of this account assume the scheduler role, to start exactly the state machine and the scheduled functions', () => {
    const roleId = idOf(t, 'AWS::IAM::Role', 'SchedulesRole');
    t.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      },
    });
    const invoke = (fn: string) => ({
      Action: 'lambda:InvokeFunction',
      Effect: 'Allow',
      Resource: [arnOf(fn), { 'Fn::Join': ['', [arnOf(fn), ':*']] }],
    });

    expect(statementsOfRole(t, roleId)).toEqual([
      { Action: 'states:StartExecution', Effect: 'Allow', Resource: { Ref: ids.backfill } },
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(ids.dlq) },
      invoke(ids.inventory),
      invoke(ids.alerts),
      invoke(ids.statements),
      invoke(ids.freshness),
    ]);
  });

  it('grants nothing on Resource "*" but log delivery, and attaches no managed policies', () => {
    const documents = [
      ...Object.values(t.findResources('AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument),
      ...Object.values(t.findResources('AWS::IAM::Role')).flatMap((r) =>
        (r.Properties.Policies ?? []).map((p: Json) => p.PolicyDocument),
      ),
    ];
    const allows = documents.flatMap((d) => d.Statement as Json[]).filter((s) => s.Effect === 'Allow');

    expect(allows.length).toBeGreaterThan(0);
    const onEverything = allows.filter((s) => [s.Resource].flat().includes('*'));

    // Step Functions logging: these CloudWatch Logs actions take no resource-level permissions.
    expect(onEverything).toEqual([
      {
        Action: [
          'logs:CreateLogDelivery',
          'logs:GetLogDelivery',
          'logs:UpdateLogDelivery',
          'logs:DeleteLogDelivery',
          'logs:ListLogDeliveries',
          'logs:PutResourcePolicy',
          'logs:DescribeResourcePolicies',
          'logs:DescribeLogGroups',
        ],
        Effect: 'Allow',
        Resource: '*',
      },
    ]);
    t.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    t.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });
});

describe('CloudforetExportStack with schedule settings', () => {
  it('uses the expressions and time zone given', () => {
    const t = synth({
      costSchedule: 'cron(30 2 * * ? *)',
      inventorySchedule: 'rate(12 hours)',
      scheduleTimeZone: 'Asia/Seoul',
    });

    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(30 2 * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Seoul',
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(12 hours)',
      ScheduleExpressionTimezone: 'Asia/Seoul',
    });
  });
});

describe('the function environment against readConfig', () => {
  it('sets every variable readConfig reads, with values it accepts unchanged', () => {
    const settings = readSettings({ cloudforetEndpoint: 'https://cf.example.com', logLevel: 'debug' });
    // The shared variables, and the one of the functions that keep the focus table's partitions.
    const env = {
      ...functionEnvironment(settings, 'my-exports', 'cloudforet/app'),
      ...focusCatalogEnvironment(settings),
    };
    const read = new Set<string>();
    const recording = new Proxy(env, {
      get: (target, key: string) => {
        read.add(key);
        return target[key];
      },
    });

    const config = readConfig(recording);

    expect([...read].filter((key) => !(key in env))).toEqual([]);
    expect(config).toMatchObject({
      endpoint: 'https://cf.example.com',
      secretId: 'cloudforet/app',
      bucket: 'my-exports',
      prefix: 'cloudforet',
      concurrency: settings.exportConcurrency,
      maxInlineDays: settings.maxInlineDays,
      windowMonths: settings.costWindowMonths,
      requestTimeoutMs: settings.cloudforetTimeoutMs,
      maxAnswerBytes: settings.cloudforetMaxAnswerMb * 1024 * 1024,
      secretTtlMs: settings.secretTtlSeconds * 1000,
      staleJobAfterMs: settings.staleJobHours * 3_600_000,
      logLevel: 'debug',
      compression: 'ZSTD',
      freshnessHours: settings.freshnessHours,
      focusGlueDatabase: settings.databaseName,
    });
  });
  it('gives the functions the largest Cloudforet answer in MiB, which readConfig takes as bytes', () => {
    const env = functionEnvironment(
      readSettings({ cloudforetEndpoint: 'https://cf.example.com', cloudforetMaxAnswerMb: '256' }),
      'my-exports',
      'cloudforet/app',
    );

    expect(env.CLOUDFORET_MAX_ANSWER_MB).toBe('256');
    expect(readConfig(env).maxAnswerBytes).toBe(268_435_456);
  });

  it('takes GZIP from parquetCompression, and names a codec it cannot write', () => {
    const env = functionEnvironment(
      readSettings({ cloudforetEndpoint: 'https://cf.example.com', parquetCompression: 'GZIP' }),
      'my-exports',
      'cloudforet/app',
    );

    expect(readConfig(env).compression).toBe('GZIP');
    expect(() => readConfig({ ...env, PARQUET_COMPRESSION: 'snappy' })).toThrow(
      /PARQUET_COMPRESSION must be ZSTD or GZIP \(got 'snappy'\)/,
    );
  });
});
