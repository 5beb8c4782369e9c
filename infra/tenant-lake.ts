// One tenant's part of a shared lake, as a nested stack (so the parent counts it as one resource
// of CloudFormation's 500): a Glue database holding the tenant's tables, with every LOCATION under
// its folder `<prefix>/tenants/<id>/`; an Athena workgroup with the saved queries and its own
// results folder; a reader role that can read that folder, that database and that workgroup and
// nothing of another tenant; and the tenant's schedules, each starting the shared functions with
// {"tenant": "<id>"}.
import { Duration, NestedStack, type Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { TENANTS_RUN_STATES } from '../functions/lib/costs/job/states.ts';
import {
  FUNCTION_DIMENSION,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  RUN_METRICS,
  TENANT_DIMENSION,
} from '../functions/lib/lambda/metric-names.ts';
import type { TableDef } from '../functions/lib/parquet/columns.ts';
import { focusTable } from '../functions/lib/tables/focus.ts';
import { tenantDatabaseName, tenantPrefix } from '../functions/lib/tenant.ts';
import { AthenaTables } from './athena-tables.ts';
import { AthenaWorkgroup } from './athena-workgroup.ts';
import { cloudforetSecret } from './cloudforet-secret.ts';
import { CompactionStateTable } from './compaction-state-table.ts';
import { ATHENA_RESULTS_PREFIX } from './export-bucket.ts';
import { bucketKeyStatements, type FunctionSecrets } from './export-function.ts';
import { LedgerTables } from './ledger-tables.ts';
import { ExportSchedules, type ScheduledRun } from './schedules.ts';
import type { Settings } from './settings.ts';
import type { TenantSettings } from './tenant-settings.ts';

export interface TenantLakeProps {
  readonly tenant: TenantSettings;
  readonly settings: Settings;
  readonly bucket: IBucket;
  readonly tables: ReadonlyArray<TableDef<never, never>>;
  /** The shared functions and state machine the tenant's schedules start. */
  readonly runs: readonly ScheduledRun[];
  readonly schedulerDeadLetterQueue: IQueue;
  /** The stack's alarm topic: the tenant's own alarm notifies it. */
  readonly alarmTopic: ITopic;
}

/** The tenant's Glue database (functions/lib/tenant.ts: the functions name it too). */
export { tenantDatabaseName };

export function tenantWorkgroupName(workgroupName: string, id: string): string {
  return `${workgroupName}-${id}`;
}

/** Every tenant's secret, imported by name: what the shared functions may read. */
export function tenantSecrets(scope: Construct, tenants: readonly TenantSettings[]): FunctionSecrets {
  return {
    secretId: undefined,
    policyArns: tenants.map((t) => cloudforetSecret(scope, t.secretName, `TenantSecret-${t.id}`).policyArn),
  };
}

export class TenantLake extends NestedStack {
  readonly tenant: string;
  readonly databaseName: string;
  readonly workgroupName: string;
  readonly reader: Role;

  constructor(scope: Construct, id: string, props: TenantLakeProps) {
    super(scope, id, { description: `Cloudforet export: tenant ${props.tenant.id}` });
    const { tenant, settings, bucket } = props;
    this.tenant = tenant.id;
    const prefix = `${settings.prefix}/${tenantPrefix(tenant.id)}`;
    const resultsPrefix = `${ATHENA_RESULTS_PREFIX}${tenantPrefix(tenant.id)}`;
    this.databaseName = tenantDatabaseName(settings.databaseName, tenant.id);
    const location = { bucketName: bucket.bucketName, prefix, databaseName: this.databaseName };
    const tables = new AthenaTables(this, 'Tables', {
      ...location,
      tables: props.tables,
      projectionStart: settings.projectionStart,
      // The focus table's partitions are registered by the cost run (the portfolio's keeps projection).
      registered: [focusTable.name],
    });
    new LedgerTables(this, 'Ledger', {
      ...location,
      database: tables.database,
      projectionStart: settings.projectionStart,
    });
    new CompactionStateTable(this, 'CompactionState', { ...location, database: tables.database });
    this.workgroupName = tenantWorkgroupName(settings.workgroupName, tenant.id);
    const athena = new AthenaWorkgroup(this, 'Athena', {
      name: this.workgroupName,
      databaseName: this.databaseName,
      resultsLocation: `s3://${bucket.bucketName}/${resultsPrefix}/`,
      bytesScannedCutoffPerQuery: settings.athenaBytesScannedLimit,
    });
    athena.node.addDependency(tables);
    this.reader = new Role(this, 'Reader', {
      assumedBy: new AccountRootPrincipal(),
      description: `Reads tenant ${tenant.id} of the Cloudforet export in Athena: its folder, database and workgroup only`,
    });
    for (const statement of readerStatements(this, { ...props, prefix, resultsPrefix })) {
      this.reader.addToPrincipalPolicy(statement);
    }
    new ExportSchedules(this, 'Schedules', {
      runs: props.runs,
      timeZone: settings.scheduleTimeZone,
      deadLetterQueue: props.schedulerDeadLetterQueue,
      input: { tenant: tenant.id },
    });
    // The daily run across tenants publishes each tenant's failures (0 included) with its id.
    new Alarm(this, 'CostRunFailed', {
      alarmDescription:
        `Tenant ${tenant.id}: its part of the daily cost run failed (a unit, a state, its secret); ` +
        "the run's TenantsSummary output and its log name the state and the error",
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: RUN_METRICS.failed,
        dimensionsMap: {
          service: METRICS_SERVICE,
          [FUNCTION_DIMENSION]: TENANTS_RUN_STATES.summary.entry,
          [TENANT_DIMENSION]: tenant.id,
        },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(props.alarmTopic));
  }
}

/** A database's catalog entries as a reader needs them (not GetDatabases: it names every database). */
export const GLUE_READ_ACTIONS = [
  'glue:GetDatabase',
  'glue:GetTable',
  'glue:GetTables',
  'glue:GetPartition',
  'glue:GetPartitions',
  'glue:BatchGetPartition',
] as const;

/** Queries, their results and the saved queries, in one workgroup. */
export const ATHENA_QUERY_ACTIONS = [
  'athena:StartQueryExecution',
  'athena:StopQueryExecution',
  'athena:GetQueryExecution',
  'athena:GetQueryResults',
  'athena:GetQueryRuntimeStatistics',
  'athena:BatchGetQueryExecution',
  'athena:ListQueryExecutions',
  'athena:GetWorkGroup',
  'athena:GetNamedQuery',
  'athena:BatchGetNamedQuery',
  'athena:ListNamedQueries',
] as const;

/**
 * The reader's permissions, each on the tenant's own resources: its objects and its query results
 * (S3 lists only under them), its database's catalog entries (not the list of databases, which
 * would name the other tenants), and queries in its workgroup. Athena reads S3 with the caller's
 * own permissions, so a table or a LOCATION naming another tenant's folder reads nothing.
 */
function readerStatements(
  scope: Stack,
  props: TenantLakeProps & { prefix: string; resultsPrefix: string },
): PolicyStatement[] {
  const { bucket, prefix, resultsPrefix } = props;
  const glue = (resource: string, resourceName?: string) =>
    scope.formatArn({ service: 'glue', resource, ...(resourceName && { resourceName }) });
  const database = tenantDatabaseName(props.settings.databaseName, props.tenant.id);
  return [
    new PolicyStatement({
      sid: 'ReadTenantObjects',
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${prefix}/*`)],
    }),
    new PolicyStatement({
      sid: 'WriteTenantQueryResults',
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [bucket.arnForObjects(`${resultsPrefix}/*`)],
    }),
    new PolicyStatement({
      sid: 'ListTenantPrefixes',
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${prefix}/*`, `${resultsPrefix}/*`] } },
    }),
    new PolicyStatement({
      sid: 'LocateBucket',
      actions: ['s3:GetBucketLocation'],
      resources: [bucket.bucketArn],
    }),
    new PolicyStatement({
      sid: 'ReadTenantCatalog',
      actions: [...GLUE_READ_ACTIONS],
      resources: [glue('catalog'), glue('database', database), glue('table', `${database}/*`)],
    }),
    new PolicyStatement({
      sid: 'QueryInTenantWorkgroup',
      actions: [...ATHENA_QUERY_ACTIONS],
      resources: [
        scope.formatArn({
          service: 'athena',
          resource: 'workgroup',
          resourceName: tenantWorkgroupName(props.settings.workgroupName, props.tenant.id),
        }),
      ],
    }),
    ...bucketKeyStatements(props.settings.bucketKmsKeyArn, true, scope.region, 'UseExportBucketKey'),
  ];
}
