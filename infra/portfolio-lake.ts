// The provider's portfolio across tenants, as a nested stack: a Glue database whose tables are
// the tenants' tables with one more partition key, `tenant` (an enum of the ids: partition
// projection reads `<prefix>/tenants/<tenant>/<table>/…`, each tenant's folder once), an Athena
// workgroup with the portfolio's saved queries (infra/portfolio-queries/), and a reader role for
// the provider over every tenant's folder and the portfolio database only. The FOCUS tables stay
// out: FOCUS tools (CID) that discover tables would otherwise count every tenant's rows twice.
import { fileURLToPath } from 'node:url';
import { NestedStack, type Stack } from 'aws-cdk-lib';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ledgerPrefix } from '../functions/lib/destination/layout.ts';
import type { TableDef } from '../functions/lib/parquet/columns.ts';
import { exportUnitsLatestTable } from '../functions/lib/tables/ledger.ts';
import { TENANTS_DIR } from '../functions/lib/tenant.ts';
import { glueTableInput } from './athena-tables.ts';
import { AthenaWorkgroup } from './athena-workgroup.ts';
import { ATHENA_RESULTS_PREFIX } from './export-bucket.ts';
import { bucketKeyStatements } from './export-function.ts';
import { ledgerTableInput } from './ledger-tables.ts';
import { loadNamedQueries } from './named-queries.ts';
import type { Settings } from './settings.ts';
import { ATHENA_QUERY_ACTIONS, GLUE_READ_ACTIONS } from './tenant-lake.ts';

/** The portfolio's name beside the tenants' (a tenant may not take it: tenant-settings.ts). */
export const PORTFOLIO = 'portfolio';

export const PORTFOLIO_QUERY_DIR = fileURLToPath(new URL('./portfolio-queries/', import.meta.url));

/** The tenants' tables the portfolio has: every exported table but the FOCUS ones. */
export function portfolioTables(
  tables: ReadonlyArray<TableDef<never, never>>,
): ReadonlyArray<TableDef<never, never>> {
  return tables.filter((t) => !t.name.startsWith('focus'));
}

export interface PortfolioLakeProps {
  readonly settings: Settings;
  readonly tenantIds: readonly string[];
  readonly bucket: IBucket;
  readonly tables: ReadonlyArray<TableDef<never, never>>;
}

export class PortfolioLake extends NestedStack {
  readonly databaseName: string;
  readonly workgroupName: string;
  readonly reader: Role;

  constructor(scope: Construct, id: string, props: PortfolioLakeProps) {
    super(scope, id, { description: 'Cloudforet export: the portfolio across tenants' });
    const { settings, bucket } = props;
    const catalogId = this.account;
    this.databaseName = `${settings.databaseName}_${PORTFOLIO}`;
    this.workgroupName = `${settings.workgroupName}-${PORTFOLIO}`;
    const tenantsRoot = `${settings.prefix}/${TENANTS_DIR}`;
    const database = new CfnDatabase(this, 'Database', {
      catalogId,
      databaseInput: {
        name: this.databaseName,
        description: 'Every tenant of the Cloudforet export, each table partitioned by tenant',
      },
    });
    const where = {
      root: `s3://${bucket.bucketName}/${tenantsRoot}/`,
      projectionStart: settings.projectionStart,
      tenantIds: props.tenantIds,
    };
    const table = (name: string, tableInput: CfnTable.TableInputProperty) => {
      const cfn = new CfnTable(this, `Table-${name}`, {
        catalogId,
        databaseName: this.databaseName,
        tableInput,
      });
      cfn.node.addDependency(database);
      return cfn;
    };
    const tables = [
      ...portfolioTables(props.tables).map((t) => table(t.name, portfolioTableInput(t, where))),
      // The run ledger's rollup: every tenant's latest export of each unit, for its run health.
      table(exportUnitsLatestTable.name, portfolioLedgerInput(where)),
    ];
    const resultsPrefix = `${ATHENA_RESULTS_PREFIX}${PORTFOLIO}`;
    const athena = new AthenaWorkgroup(this, 'Athena', {
      name: this.workgroupName,
      databaseName: this.databaseName,
      resultsLocation: `s3://${bucket.bucketName}/${resultsPrefix}/`,
      bytesScannedCutoffPerQuery: settings.athenaBytesScannedLimit,
      queries: loadNamedQueries(PORTFOLIO_QUERY_DIR),
    });
    for (const table of tables) athena.node.addDependency(table);
    this.reader = new Role(this, 'Reader', {
      assumedBy: new AccountRootPrincipal(),
      description:
        "Reads every tenant of the Cloudforet export through the portfolio's database and workgroup",
    });
    for (const statement of portfolioReaderStatements(this, props, tenantsRoot, resultsPrefix))
      this.reader.addToPrincipalPolicy(statement);
  }
}

/**
 * A tenant's table as the portfolio has it: `tenant` first among the partition keys, projected from
 * the list of ids, and the location template under that tenant's folder.
 */
export function portfolioTableInput(
  table: TableDef<never, never>,
  where: { readonly root: string; readonly projectionStart: string; readonly tenantIds: readonly string[] },
): CfnTable.TableInputProperty {
  return withTenantPartition(
    glueTableInput(table, `${where.root}\${tenant}/${table.name}/`, where.projectionStart),
    where,
  );
}

/** A tenant's table input with `tenant` first among its partition keys, stored under every tenant's folder. */
function withTenantPartition(
  input: CfnTable.TableInputProperty,
  where: { readonly root: string; readonly tenantIds: readonly string[] },
): CfnTable.TableInputProperty {
  const parameters = input.parameters as Record<string, string>;
  const storage = input.storageDescriptor as CfnTable.StorageDescriptorProperty;
  return {
    ...input,
    parameters: {
      ...parameters,
      'projection.tenant.type': 'enum',
      'projection.tenant.values': where.tenantIds.join(','),
    },
    partitionKeys: [
      { name: 'tenant', type: 'string', comment: 'The tenant id (its folder tenants/<id>/)' },
      ...((input.partitionKeys ?? []) as CfnTable.ColumnProperty[]),
    ],
    storageDescriptor: { ...storage, location: where.root },
  };
}

/** The ledger's rollup (export_units_latest) of every tenant, `tenant` first among its partitions. */
export function portfolioLedgerInput(where: {
  readonly root: string;
  readonly projectionStart: string;
  readonly tenantIds: readonly string[];
}): CfnTable.TableInputProperty {
  const location = `${where.root}\${tenant}/${ledgerPrefix(exportUnitsLatestTable.name)}`;
  return withTenantPartition(
    ledgerTableInput(exportUnitsLatestTable, location, where.projectionStart),
    where,
  );
}

function portfolioReaderStatements(
  scope: Stack,
  props: PortfolioLakeProps,
  tenantsRoot: string,
  resultsPrefix: string,
): PolicyStatement[] {
  const { bucket, settings } = props;
  const database = `${settings.databaseName}_${PORTFOLIO}`;
  const glue = (resource: string, resourceName?: string) =>
    scope.formatArn({ service: 'glue', resource, ...(resourceName && { resourceName }) });
  return [
    new PolicyStatement({
      sid: 'ReadEveryTenantsObjects',
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${tenantsRoot}/*`)],
    }),
    new PolicyStatement({
      sid: 'WritePortfolioQueryResults',
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [bucket.arnForObjects(`${resultsPrefix}/*`)],
    }),
    new PolicyStatement({
      sid: 'ListTenantsAndResults',
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${tenantsRoot}/*`, `${resultsPrefix}/*`] } },
    }),
    new PolicyStatement({
      sid: 'LocateBucket',
      actions: ['s3:GetBucketLocation'],
      resources: [bucket.bucketArn],
    }),
    new PolicyStatement({
      sid: 'ReadPortfolioCatalog',
      actions: [...GLUE_READ_ACTIONS],
      resources: [glue('catalog'), glue('database', database), glue('table', `${database}/*`)],
    }),
    new PolicyStatement({
      sid: 'QueryInPortfolioWorkgroup',
      actions: [...ATHENA_QUERY_ACTIONS],
      resources: [
        scope.formatArn({
          service: 'athena',
          resource: 'workgroup',
          resourceName: `${settings.workgroupName}-${PORTFOLIO}`,
        }),
      ],
    }),
    ...bucketKeyStatements(settings.bucketKmsKeyArn, true, scope.region, 'UseExportBucketKey'),
  ];
}
