import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, idOf, synth } from '../../support/synth-stack.ts';

describe('CloudforetExportStack storage and operations', () => {
  let t: Template;
  let ids: Record<'bucket' | 'secret' | 'cost' | 'inventory' | 'failed' | 'dlq', string>;
  beforeAll(() => {
    t = synth();
    ids = {
      bucket: idOf(t, 'AWS::S3::Bucket'),
      secret: idOf(t, 'AWS::SecretsManager::Secret'),
      cost: idOf(t, 'AWS::Lambda::Function', 'CostExportFunction'),
      inventory: idOf(t, 'AWS::Lambda::Function', 'InventoryExportFunction'),
      failed: idOf(t, 'AWS::SQS::Queue', 'FailedInvocationsQueue'),
      dlq: idOf(t, 'AWS::SQS::Queue', 'SchedulerDeadLetterQueue'),
    };
  });

  it('creates a private, TLS-only, encrypted, versioned bucket that is retained', () => {
    t.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: [
            {
              Id: 'abort-incomplete-multipart-uploads',
              Status: 'Enabled',
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            },
            {
              Id: 'expire-noncurrent-versions',
              Status: 'Enabled',
              NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            },
            {
              Id: 'expire-athena-results',
              Status: 'Enabled',
              Prefix: 'athena-results/',
              ExpirationInDays: 30,
            },
            {
              Id: 'expire-backfill-runs',
              Status: 'Enabled',
              Prefix: 'cloudforet/_runs/',
              ExpirationInDays: 30,
            },
          ],
        },
      },
    });
    t.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ids.bucket },
      PolicyDocument: {
        Statement: [
          {
            Action: 's3:*',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: [arnOf(ids.bucket), { 'Fn::Join': ['', [arnOf(ids.bucket), '/*']] }],
          },
        ],
      },
    });
  });

  it('keeps both dead-letter queues encrypted, TLS-only, for 14 days', () => {
    t.resourceCountIs('AWS::SQS::Queue', 2);
    t.allResourcesProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
    });
    t.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
      2,
    );
  });

  it('alarms on each exporter’s errors and on any message in either queue, notifying one topic', () => {
    const topic = { Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') };
    for (const fn of [ids.cost, ids.inventory]) {
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topic],
      });
    }
    for (const queue of [ids.failed, ids.dlq]) {
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [topic],
      });
    }
    // 6 here, the freshness check's errors and its two freshness alarms (test/system/infra/infra-monitoring.test.ts),
    // the alerts' and the statements' errors (test/system/infra/infra-alerts.test.ts).
    t.resourceCountIs('AWS::CloudWatch::Alarm', 11);
    t.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('lets CloudWatch alarms of this account publish to the TLS-only topic', () => {
    const topic = { Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') };

    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topic],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          {
            Sid: 'CloudWatchAlarmsPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: topic,
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':cloudwatch:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':alarm:*',
                    ],
                  ],
                },
              },
            },
          },
        ]),
      },
    });
  });

  it('outputs what an operator needs, including the exact put-secret-value command', () => {
    const outputs = t.findOutputs('*');

    expect(Object.keys(outputs).sort()).toEqual([
      'AlertsTopicArn',
      'AthenaWorkgroup',
      'BackfillStateMachineArn',
      'BucketName',
      'CostFunctionName',
      'Dashboard',
      'ExportPrefix',
      'GlueDatabase',
      'InventoryFunctionName',
      'PutSecretValueCommand',
      'SecretName',
      'StartBackfillCommand',
    ]);
    expect(outputs.PutSecretValueCommand!.Value).toEqual({
      'Fn::Join': [
        '',
        [
          'aws secretsmanager put-secret-value --region ',
          { Ref: 'AWS::Region' },
          ' --secret-id ',
          { Ref: ids.secret },
          ' --secret-string file://app.json',
        ],
      ],
    });
    expect(outputs.BucketName!.Value).toEqual({ Ref: ids.bucket });
    expect(outputs.CostFunctionName!.Value).toEqual({ Ref: ids.cost });
    expect(outputs.InventoryFunctionName!.Value).toEqual({ Ref: ids.inventory });
  });
});
