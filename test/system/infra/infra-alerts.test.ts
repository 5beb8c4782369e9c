// The cost alerts topic and the two functions that reach people: the alerts (SNS) and the
// statements (S3), each reading the export and writing only its own prefix, neither with the secret.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../infra/settings.ts';
import { arnOf, idOf, type Json, statementsOfRole, synth } from '../../support/synth-stack.ts';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const roleStatements = (t: Template, prefix: string) =>
  statementsOfRole(t, idOf(t, 'AWS::IAM::Role', `${prefix}Role`));
const objects = (t: Template, under: string) => ({
  'Fn::Join': ['', [arnOf(idOf(t, 'AWS::S3::Bucket')), `/cloudforet/${under}*`]],
});

describe('the cost alerts topic and functions, by default', () => {
  let t: Template;
  let topic: Json;
  beforeAll(() => {
    t = synth();
    topic = { Ref: idOf(t, 'AWS::SNS::Topic', 'ReportsTopic') };
  });

  it('has a TLS-only topic encrypted with the AWS-managed SNS key, and no subscription', () => {
    t.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'Cloudforet cost alerts',
      KmsMasterKeyId: Match.objectLike({
        'Fn::Join': Match.arrayWith([Match.arrayWith([':alias/aws/sns'])]),
      }),
    });
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topic],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ],
      },
    });
    t.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('gives the alerts function the topic ARN, and the statements function nothing extra', () => {
    const env = (prefix: string) =>
      t.findResources('AWS::Lambda::Function')[idOf(t, 'AWS::Lambda::Function', `${prefix}Function`)]!
        .Properties.Environment.Variables;

    expect(env('ReportsAlerts').ALERTS_TOPIC_ARN).toEqual(topic);
    expect(env('ReportsStatements').ALERTS_TOPIC_ARN).toBeUndefined();
  });

  it('lets the alerts function read the export, write its ledger and publish to the one topic: no secret', () => {
    expect(roleStatements(t, 'ReportsAlerts').slice(2)).toEqual([
      { Sid: 'ReadExportObjects', Action: 's3:GetObject', Effect: 'Allow', Resource: objects(t, '') },
      {
        Sid: 'ListExportPrefix',
        Action: 's3:ListBucket',
        Effect: 'Allow',
        Resource: arnOf(idOf(t, 'AWS::S3::Bucket')),
        Condition: { StringLike: { 's3:prefix': ['cloudforet/*'] } },
      },
      {
        Sid: 'WriteAlertLedger',
        Action: ['s3:PutObject', 's3:DeleteObject'],
        Effect: 'Allow',
        Resource: objects(t, '_alerts/'),
      },
      { Sid: 'PublishAlerts', Action: 'sns:Publish', Effect: 'Allow', Resource: topic },
    ]);
  });

  it('lets the statements function read the export and write statements and their records only', () => {
    const statements = roleStatements(t, 'ReportsStatements');

    expect(statements.map((s) => s.Sid ?? s.Action)).toEqual([
      ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      'ReadExportObjects',
      'ListExportPrefix',
      'WriteStatements',
    ]);
    expect(statements[4]).toEqual({
      Sid: 'WriteStatements',
      Action: 's3:PutObject',
      Effect: 'Allow',
      Resource: [objects(t, 'statements/'), objects(t, '_manifests/statements/')],
    });
  });

  it('runs both daily after the cost export (06:00), and alarms when either fails', () => {
    for (const [prefix, expression] of [
      ['ReportsAlerts', 'cron(0 9 * * ? *)'],
      ['ReportsStatements', 'cron(30 9 * * ? *)'],
    ] as const) {
      const fn = idOf(t, 'AWS::Lambda::Function', `${prefix}Function`);
      t.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        Target: Match.objectLike({ Arn: arnOf(fn), Input: '{}' }),
      });
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
        AlarmActions: [{ Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') }],
      });
    }
  });
});

describe('the cost alerts settings', () => {
  it('subscribes -c alertEmail to the alerts topic, apart from the alarm topic', () => {
    const t = synth({ alertEmail: 'finops@example.com', alarmEmail: 'ops@example.com' });

    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'finops@example.com',
      TopicArn: { Ref: idOf(t, 'AWS::SNS::Topic', 'ReportsTopic') },
    });
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') },
    });
  });

  it('uses -c alertsSchedule and -c statementsSchedule', () => {
    const t = synth({ alertsSchedule: 'cron(15 10 * * ? *)', statementsSchedule: 'cron(0 12 16 * ? *)' });

    t.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(15 10 * * ? *)' });
    t.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(0 12 16 * ? *)' });
  });

  it('refuses a bad e-mail and bad schedules, naming each', () => {
    const read = () =>
      readSettings({
        cloudforetEndpoint: 'https://cf.example.com',
        alertEmail: 'finops',
        alertsSchedule: 'daily',
        statementsSchedule: 'cron(0 9 * * * *)',
      });

    expect(read).toThrow(SettingsError);
    expect(read).toThrow(/alertEmail.*must be an e-mail address/);
    expect(read).toThrow(/alertsSchedule.*EventBridge Scheduler expression/);
    expect(read).toThrow(/statementsSchedule.*EventBridge Scheduler expression/);
  });

  it('lets both encrypt through the key of an imported bucket, via S3 only', () => {
    const t = synth({ bucketName: 'my-exports', bucketKmsKeyArn: KEY });

    for (const prefix of ['ReportsAlerts', 'ReportsStatements']) {
      expect(roleStatements(t, prefix).filter((s) => JSON.stringify(s.Action).includes('kms:'))).toEqual([
        expect.objectContaining({ Sid: 'UseExportBucketKey', Action: 'kms:Decrypt', Resource: KEY }),
        expect.objectContaining({
          Sid: 'WriteWithBucketKey',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: KEY,
        }),
      ]);
    }
  });
});
