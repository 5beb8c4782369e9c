// The Cloudforet export stack: a bucket, the secret, the cost and inventory functions, the cost
// backfill state machine and the inventory function on daily schedules, Glue tables with
// partition projection, the run ledger's tables, an Athena workgroup, alarms, an hourly freshness
// check with its alarms and a dashboard, and the cost alerts topic with the alerts and statements
// functions, daily after the cost export. With tenants (settings.tenants) the same functions serve
// every tenant, and each tenant gets its own database, workgroup, reader role and schedules in a
// nested stack (tenant-lake.ts) instead of the stack's one.
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { TableDef } from '../functions/lib/parquet/columns.ts';
import { exportTables } from '../functions/lib/tables/all-tables.ts';
import { ExportAlarms } from './alarms.ts';
import { BackfillStateMachine } from './backfill-state-machine.ts';
import { cloudforetSecret } from './cloudforet-secret.ts';
import { CostAlerts } from './cost-alerts.ts';
import { exportBucket } from './export-bucket.ts';
import { ExportFunction } from './export-function.ts';
import { ExportMonitoring } from './monitoring.ts';
import { PortfolioLake } from './portfolio-lake.ts';
import { COST_DAILY, scheduledRuns } from './scheduled-runs.ts';
import { ExportSchedules } from './schedules.ts';
import type { Settings } from './settings.ts';
import { singleLake } from './single-lake.ts';
import { TenantLake, tenantSecrets } from './tenant-lake.ts';
import { TenantsRunStateMachine } from './tenants-run.ts';

export interface CloudforetExportStackProps extends StackProps {
  readonly settings: Settings;
  /** Defaults to every table the functions write. */
  readonly tables?: ReadonlyArray<TableDef<never, never>>;
}

export class CloudforetExportStack extends Stack {
  constructor(scope: Construct, id: string, props: CloudforetExportStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const tenants = settings.tenants;
    const bucket = exportBucket(
      this,
      settings.bucketName,
      settings.prefix,
      tenants?.map((t) => t.id),
    );
    const secret = tenants ? undefined : cloudforetSecret(this, settings.secretName);
    const failedInvocations = deadLetterQueue(this, 'FailedInvocationsQueue');
    const schedulerDlq = deadLetterQueue(this, 'SchedulerDeadLetterQueue');
    const secrets = secret
      ? { secretId: secret.secretId, policyArns: [secret.policyArn] }
      : tenantSecrets(this, tenants ?? []);
    const common = { settings, bucket, secret: secrets, failureQueue: failedInvocations };
    const cost = new ExportFunction(this, 'CostExport', {
      ...common,
      entry: 'functions/cost-export.ts',
      // Its run ends with compaction, which keeps the focus table's Glue partitions.
      focusCatalog: true,
      description:
        'Cloudforet cost days to Parquet: {} for what changed in the default window, {"date"} or {"from","to"}',
    });
    const inventory = new ExportFunction(this, 'InventoryExport', {
      ...common,
      entry: 'functions/inventory-export.ts',
      description: 'Cloudforet inventory snapshot to Parquet: {} for today, or {"snapshotDate"}',
    });
    const backfill = new BackfillStateMachine(this, 'Backfill', common);
    const freshness = new ExportFunction(this, 'FreshnessCheck', {
      ...common,
      entry: 'functions/freshness-check.ts',
      description: 'Hourly: age of each data source newest exported billed day and last sync, as metrics',
      access: 'observe',
      reservedConcurrency: settings.reservedConcurrency === undefined ? undefined : 1,
    });
    const costAlerts = new CostAlerts(this, 'Reports', common);
    const runs = scheduledRuns(settings, {
      cost: backfill.stateMachine,
      inventory: inventory.function,
      alerts: costAlerts.alerts.function,
      statements: costAlerts.statements.function,
      freshness: freshness.function,
    });
    // With tenants the cost export is one daily run across them all; their other runs are their own.
    const daily = tenants
      ? new TenantsRunStateMachine(this, 'TenantsRun', { ...common, backfill })
      : undefined;
    const alarms = new ExportAlarms(this, 'Alarms', {
      email: settings.alarmEmail,
      functions: [
        { id: 'CostExport', function: cost.function },
        { id: 'InventoryExport', function: inventory.function },
        { id: 'FreshnessCheck', function: freshness.function },
        { id: 'Alerts', function: costAlerts.alerts.function },
        { id: 'Statements', function: costAlerts.statements.function },
      ],
      stateMachines: [
        { id: 'Backfill', stateMachine: backfill.stateMachine },
        ...(daily ? [{ id: 'TenantsRun', stateMachine: daily.stateMachine }] : []),
      ],
      queues: [
        { id: 'FailedInvocationsQueue', queue: failedInvocations },
        { id: 'SchedulerDeadLetterQueue', queue: schedulerDlq },
      ],
    });
    const tables = props.tables ?? exportTables;
    const lakes = (tenants ?? []).map(
      (tenant) =>
        new TenantLake(this, `Tenant-${tenant.id}`, {
          tenant,
          settings,
          bucket,
          tables,
          runs: runs.filter((r) => r.id !== COST_DAILY),
          schedulerDeadLetterQueue: schedulerDlq,
          alarmTopic: alarms.topic,
        }),
    );
    if (daily && tenants) {
      new ExportSchedules(this, 'TenantsSchedules', {
        timeZone: settings.scheduleTimeZone,
        deadLetterQueue: schedulerDlq,
        runs: runs
          .filter((r) => r.id === COST_DAILY)
          .map((r) => ({
            ...r,
            description: 'Daily cost export of every tenant: one run across them, its units in shared lanes',
            target: { stateMachine: daily.stateMachine },
          })),
        input: { tenants: tenants.map((t) => t.id) },
      });
    }
    const portfolio = tenants
      ? new PortfolioLake(this, 'Portfolio', {
          settings,
          tenantIds: tenants.map((t) => t.id),
          bucket,
          tables,
        })
      : undefined;
    if (!tenants) {
      new ExportSchedules(this, 'Schedules', {
        timeZone: settings.scheduleTimeZone,
        deadLetterQueue: schedulerDlq,
        runs,
      });
      singleLake(this, settings, bucket.bucketName, tables);
    }
    const monitoring = new ExportMonitoring(this, 'Monitoring', {
      freshnessHours: settings.freshnessHours,
      alarmAction: new SnsAction(alarms.topic),
      freshnessLogGroup: freshness.function.logGroup,
    });

    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('BucketName', bucket.bucketName, 'Bucket the Parquet files are written to');
    output('ExportPrefix', settings.prefix, 'Key prefix of every exported object');
    output(
      'CostFunctionName',
      cost.function.functionName,
      'Cost export function (test event: events/costs-*.json)',
    );
    output(
      'InventoryFunctionName',
      inventory.function.functionName,
      'Inventory export function (test event: events/inventory-*.json)',
    );
    output(
      'BackfillStateMachineArn',
      backfill.stateMachine.stateMachineArn,
      tenants
        ? 'Cost backfill state machine; each tenant\'s daily schedule starts it with {"tenant": "<id>"}'
        : 'Cost backfill state machine; the daily schedule starts it with {} (test event: events/backfill-*.json)',
    );
    if (daily && tenants) {
      output(
        'DailyRunStateMachineArn',
        daily.stateMachine.stateMachineArn,
        'The daily cost run across every tenant; the daily schedule starts it with {"tenants": [every id]}',
      );
    }
    output(
      'StartBackfillCommand',
      backfill.startExecutionCommand({
        ...(tenants && { tenant: tenants[0]!.id }),
        from: '2026-01-01',
        to: '2026-03-31',
      }),
      'Backfill a range of up to 400 days (edit the dates; add "force": true to re-export unchanged days)',
    );
    output(
      'Dashboard',
      monitoring.dashboard.dashboardName,
      'CloudWatch dashboard: freshness and export metrics',
    );
    output(
      'AlertsTopicArn',
      costAlerts.topic.topicArn,
      'Cost alerts (anomalies, budgets): subscribe e-mail (-c alertEmail) or AWS Chatbot for Slack',
    );
    if (secret) {
      output('SecretName', secret.secretName, 'Secret the functions read the Cloudforet credential from');
      output(
        'PutSecretValueCommand',
        secret.putValueCommand,
        "Store the Cloudforet app credential (the console's 'Download JSON' file saved as app.json)",
      );
    }
    if (portfolio) {
      output(
        'PortfolioOutput',
        `database ${portfolio.databaseName}, workgroup ${portfolio.workgroupName}, reader role ${portfolio.reader.roleArn}`,
        "The provider's view across tenants: every tenant's tables with a tenant column",
      );
    }
    for (const lake of lakes) {
      // Output ids keep letters and digits only: X (never in an id) stands for '-', so no two collide.
      output(
        `Tenant${lake.tenant.replaceAll('-', 'X')}`,
        `database ${lake.databaseName}, workgroup ${lake.workgroupName}, reader role ${lake.reader.roleArn}`,
        `Tenant ${lake.tenant}: its Glue database, Athena workgroup and reader role`,
      );
    }
  }
}

function deadLetterQueue(scope: Construct, id: string): Queue {
  return new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
}
