import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { idOf, type Json, synth } from '../../support/synth-stack.ts';

function statementBySid(template: Template, sid: string): Json[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
    .filter((s) => s.Sid === sid);
}

function environments(template: Template): Json[] {
  return Object.values(template.findResources('AWS::Lambda::Function')).map(
    (f) => f.Properties.Environment.Variables,
  );
}

const partitionArn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, rest]] });

describe('an existing secret and bucket, imported by name', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({ secretName: 'cloudforet/app', bucketName: 'my-exports', prefix: 'exports/cf' });
  });

  it('creates neither a secret nor a bucket', () => {
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    t.resourceCountIs('AWS::S3::Bucket', 0);
    t.resourceCountIs('AWS::S3::BucketPolicy', 0);
  });

  it('lets each function but the backfill summary (exporters and the freshness check) read that one secret, whatever 6-character suffix its ARN carries', () => {
    const statements = statementBySid(t, 'ReadCloudforetSecret');

    // Cost, inventory, backfill plan, unit and focus, and the freshness check.
    expect(statements).toHaveLength(6);
    for (const statement of statements) {
      expect(statement.Action).toBe('secretsmanager:GetSecretValue');
      expect(statement.Resource).toEqual({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':secretsmanager:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':secret:cloudforet/app-??????',
          ],
        ],
      });
    }
  });

  it('scopes object access and listing to the prefix in that bucket', () => {
    for (const statement of statementBySid(t, 'WriteExportObjects')) {
      expect(statement.Resource).toEqual(partitionArn(':s3:::my-exports/exports/cf/*'));
    }
    for (const statement of statementBySid(t, 'ListExportPrefix')) {
      expect(statement.Resource).toEqual(partitionArn(':s3:::my-exports'));
      expect(statement.Condition).toEqual({ StringLike: { 's3:prefix': ['exports/cf/*'] } });
    }
  });

  it('passes the names to the functions and the outputs', () => {
    for (const env of environments(t)) {
      expect(env).toMatchObject({
        CLOUDFORET_SECRET_ID: 'cloudforet/app',
        EXPORT_BUCKET: 'my-exports',
        EXPORT_PREFIX: 'exports/cf',
      });
    }
    const outputs = t.findOutputs('*');
    expect(outputs.BucketName!.Value).toBe('my-exports');
    expect(outputs.SecretName!.Value).toBe('cloudforet/app');
    expect(outputs.PutSecretValueCommand!.Value).toEqual({
      'Fn::Join': [
        '',
        [
          'aws secretsmanager put-secret-value --region ',
          { Ref: 'AWS::Region' },
          ' --secret-id cloudforet/app --secret-string file://app.json',
        ],
      ],
    });
  });

  it('keeps Athena results in that bucket, outside the export prefix', () => {
    t.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: { ResultConfiguration: { OutputLocation: 's3://my-exports/athena-results/' } },
    });
  });
});

describe('a secret created by the stack', () => {
  it('is created empty, for the user to fill with put-secret-value', () => {
    const t = synth();

    t.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.absent(),
      SecretString: Match.absent(),
      Description: Match.stringLikeRegexp('Cloudforet app credential'),
    });
    const secretId = Object.keys(t.findResources('AWS::SecretsManager::Secret'))[0]!;
    for (const env of environments(t)) expect(env.CLOUDFORET_SECRET_ID).toEqual({ Ref: secretId });
    for (const statement of statementBySid(t, 'ReadCloudforetSecret')) {
      expect(statement.Resource).toEqual({ Ref: secretId });
    }
  });
});

describe('operational settings', () => {
  it('subscribes the alarm e-mail to the alarm topic', () => {
    const t = synth({ alarmEmail: 'ops@example.com' });

    t.resourceCountIs('AWS::SNS::Subscription', 1);
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') },
    });
  });

  it('applies memory, timeout and tuning, and leaves concurrency unreserved on request', () => {
    const t = synth({
      memoryMb: '2048',
      timeoutSeconds: '600',
      reservedConcurrency: 'none',
      exportConcurrency: '8',
      logLevel: 'debug',
    });

    t.allResourcesProperties('AWS::Lambda::Function', {
      MemorySize: 2048,
      Timeout: 600,
      ReservedConcurrentExecutions: Match.absent(),
    });
    for (const env of environments(t))
      expect(env).toMatchObject({ EXPORT_CONCURRENCY: '8', LOG_LEVEL: 'debug' });
  });
});
