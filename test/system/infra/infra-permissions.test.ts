// One permission set per function: each role holds what its function does and nothing more,
// and the customer-managed KMS keys of an imported bucket and secret reach exactly those roles.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, idOf, type Json, statementsOfRole, synth } from '../../support/synth-stack.ts';

const EXPORTERS = ['CostExport', 'InventoryExport', 'BackfillPlan', 'BackfillUnit', 'BackfillFinish'];
const KEEP_FOCUS_PARTITIONS = ['CostExport', 'BackfillFinish'];
const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

const roleStatements = (t: Template, prefix: string) =>
  statementsOfRole(t, idOf(t, 'AWS::IAM::Role', `${prefix}Role`));
const sids = (statements: Json[]) => statements.map((s) => s.Sid ?? s.Action);

describe('function roles with the stack’s own bucket and secret', () => {
  let t: Template;
  beforeAll(() => {
    t = synth();
  });

  it('lets each exporter read the one secret and write and list under the one prefix', () => {
    const bucket = idOf(t, 'AWS::S3::Bucket');
    for (const prefix of EXPORTERS) {
      expect(roleStatements(t, prefix)).toEqual([
        {
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Effect: 'Allow',
          Resource: arnOf(idOf(t, 'AWS::SQS::Queue', 'FailedInvocationsQueue')),
        },
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: arnOf(idOf(t, 'AWS::Logs::LogGroup', `${prefix}Logs`)),
        },
        {
          Sid: 'ReadCloudforetSecret',
          Action: 'secretsmanager:GetSecretValue',
          Effect: 'Allow',
          Resource: { Ref: idOf(t, 'AWS::SecretsManager::Secret') },
        },
        {
          Sid: 'WriteExportObjects',
          Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', [arnOf(bucket), '/cloudforet/*']] },
        },
        {
          Sid: 'ListExportPrefix',
          Action: 's3:ListBucket',
          Effect: 'Allow',
          Resource: arnOf(bucket),
          Condition: { StringLike: { 's3:prefix': ['cloudforet/*'] } },
        },
        // The functions that compact keep the focus table's partitions, on that table alone.
        ...(KEEP_FOCUS_PARTITIONS.includes(prefix)
          ? [
              {
                Sid: 'KeepFocusPartitions',
                Action: [
                  'glue:GetTable',
                  'glue:GetPartitions',
                  'glue:BatchCreatePartition',
                  'glue:BatchDeletePartition',
                  'glue:BatchUpdatePartition',
                ],
                Effect: 'Allow',
                Resource: ['catalog', 'database/cloudforet_export', 'table/cloudforet_export/focus'].map(
                  (r) => ({
                    'Fn::Join': [
                      '',
                      [
                        'arn:',
                        { Ref: 'AWS::Partition' },
                        ':glue:',
                        { Ref: 'AWS::Region' },
                        ':',
                        { Ref: 'AWS::AccountId' },
                        `:${r}`,
                      ],
                    ],
                  }),
                ),
              },
            ]
          : []),
      ]);
    }
  });

  it("lets the cost job's summary read the prefix and remove its finished job only: no secret, no write", () => {
    const statements = roleStatements(t, 'BackfillSummary');

    expect(sids(statements)).toEqual([
      ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      'ReadExportObjects',
      'ListExportPrefix',
      'RemoveFinishedJob',
    ]);
    expect(statements[2]!.Action).toBe('s3:GetObject');
    expect(statements[4]).toMatchObject({
      Action: 's3:DeleteObject',
      Resource: { 'Fn::Join': ['', [expect.anything(), '/cloudforet/_runs/costs/*']] },
    });
  });

  it('grants no KMS key when none is given', () => {
    const policies = Object.values(t.findResources('AWS::IAM::Policy'));

    expect(policies.length).toBeGreaterThan(0);
    expect(JSON.stringify(policies)).not.toContain('kms:');
  });
});

describe('function roles with -c bucketKmsKeyArn and -c secretKmsKeyArn', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({
      bucketName: 'my-exports',
      bucketKmsKeyArn: KEY,
      secretName: 'cloudforet/app',
      secretKmsKeyArn: KEY,
    });
  });

  const keyUse = (statements: Json[]) =>
    statements
      .filter((s) => JSON.stringify(s.Action).includes('kms:'))
      .map((s) => ({ Sid: s.Sid, Action: s.Action, Resource: s.Resource }));

  it('lets each exporter decrypt the secret and encrypt and decrypt objects with the keys', () => {
    for (const prefix of EXPORTERS) {
      expect(keyUse(roleStatements(t, prefix))).toEqual([
        { Sid: 'DecryptCloudforetSecret', Action: 'kms:Decrypt', Resource: KEY },
        { Sid: 'UseExportBucketKey', Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Resource: KEY },
      ]);
    }
  });

  it('lets the summary decrypt objects, and encrypt nothing: it writes no object', () => {
    expect(keyUse(roleStatements(t, 'BackfillSummary'))).toEqual([
      { Sid: 'UseExportBucketKey', Action: 'kms:Decrypt', Resource: KEY },
    ]);
  });

  it('lets the state machine read units and write map results through the bucket key', () => {
    const machineRole = idOf(t, 'AWS::IAM::Role', 'BackfillStateMachineRole');

    expect(keyUse(statementsOfRole(t, machineRole))).toEqual([
      { Sid: 'UseExportBucketKey', Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Resource: KEY },
    ]);
  });

  it('allows each key only through its service', () => {
    const statements = EXPORTERS.flatMap((prefix) => roleStatements(t, prefix)).filter((s) =>
      JSON.stringify(s.Action).includes('kms:'),
    );

    expect(new Set(statements.map((s) => JSON.stringify(s.Condition)))).toEqual(
      new Set([
        JSON.stringify({
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
          },
        }),
        JSON.stringify({
          StringEquals: {
            'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
          },
        }),
      ]),
    );
  });
});
