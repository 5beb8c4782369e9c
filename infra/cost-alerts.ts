// What reaches people: the cost alerts topic (anomalies and budget burn rates, apart from the
// operational alarm topic), its optional e-mail subscription, the alerts function that publishes
// to it and the statements function that archives monthly statements. Both read the export and
// write only their own prefix; neither holds the Cloudforet secret.
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALERTS_DIR, MANIFESTS_DIR, STATEMENTS } from '../functions/lib/destination/layout.ts';
import { bucketKeyStatements, dataRoot, ExportFunction, type FunctionSecrets } from './export-function.ts';
import type { Settings } from './settings.ts';

export interface CostAlertsProps {
  readonly settings: Settings;
  readonly bucket: IBucket;
  readonly secret: FunctionSecrets;
  readonly failureQueue: IQueue;
}

export class CostAlerts extends Construct {
  readonly topic: Topic;
  readonly alerts: ExportFunction;
  readonly statements: ExportFunction;

  constructor(scope: Construct, id: string, props: CostAlertsProps) {
    super(scope, id);
    const { settings, bucket } = props;
    // SSE with the AWS-managed SNS key: the function publishes through SNS, subscribers get plain text.
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Cloudforet cost alerts',
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'TopicKey', 'alias/aws/sns'),
    });
    if (settings.alertEmail !== undefined)
      this.topic.addSubscription(new EmailSubscription(settings.alertEmail));
    // A tenant's own recipients get its alerts alone: each message carries the attribute `tenant`.
    for (const tenant of settings.tenants ?? []) {
      if (tenant.alertEmail === undefined) continue;
      this.topic.addSubscription(
        new EmailSubscription(tenant.alertEmail, {
          filterPolicy: { tenant: SubscriptionFilter.stringFilter({ allowlist: [tenant.id] }) },
        }),
      );
    }
    const common = {
      ...props,
      access: 'read' as const,
      reservedConcurrency: settings.reservedConcurrency === undefined ? undefined : 1,
    };
    this.alerts = new ExportFunction(this, 'Alerts', {
      ...common,
      entry: 'functions/alerts.ts',
      description:
        'Daily: new cost anomalies and budgets on pace to pass a threshold, once each, to the alerts topic',
      environment: { ALERTS_TOPIC_ARN: this.topic.topicArn },
    });
    this.statements = new ExportFunction(this, 'Statements', {
      ...common,
      entry: 'functions/statements.ts',
      description: 'Daily: archive the statements of confirmed months, and revisions of restated ones',
    });
    const objects = (under: string) => bucket.arnForObjects(`${dataRoot(settings)}/${under}*`);
    // The sent-alerts ledger: claims are created, confirmed, and released when SNS refuses them.
    this.alerts.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'WriteAlertLedger',
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [objects(`${ALERTS_DIR}/`)],
      }),
    );
    this.alerts.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'PublishAlerts',
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
      }),
    );
    this.statements.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'WriteStatements',
        actions: ['s3:PutObject'],
        resources: [objects(`${STATEMENTS.name}/`), objects(`${MANIFESTS_DIR}/${STATEMENTS.name}/`)],
      }),
    );
    const region = Stack.of(this).region;
    for (const fn of [this.alerts, this.statements]) {
      for (const statement of bucketKeyStatements(
        settings.bucketKmsKeyArn,
        true,
        region,
        'WriteWithBucketKey',
      )) {
        fn.role.addToPrincipalPolicy(statement);
      }
    }
  }
}
