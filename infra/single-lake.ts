// The Glue database, tables and Athena workgroup of a stack without tenants: the tables under the
// prefix itself, the database and workgroup named by the settings, as the stack always had them.
import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { TableDef } from '../functions/lib/parquet/columns.ts';
import { focusTable } from '../functions/lib/tables/focus.ts';
import { AthenaTables } from './athena-tables.ts';
import { AthenaWorkgroup } from './athena-workgroup.ts';
import { CompactionStateTable } from './compaction-state-table.ts';
import { ATHENA_RESULTS_PREFIX } from './export-bucket.ts';
import { LedgerTables } from './ledger-tables.ts';
import type { Settings } from './settings.ts';

export function singleLake(
  scope: Construct,
  settings: Settings,
  bucketName: string,
  tableDefs: ReadonlyArray<TableDef<never, never>>,
): void {
  const tables = new AthenaTables(scope, 'Tables', {
    databaseName: settings.databaseName,
    tables: tableDefs,
    bucketName,
    prefix: settings.prefix,
    projectionStart: settings.projectionStart,
    registered: [focusTable.name],
  });
  const athena = new AthenaWorkgroup(scope, 'Athena', {
    name: settings.workgroupName,
    databaseName: settings.databaseName,
    resultsLocation: `s3://${bucketName}/${ATHENA_RESULTS_PREFIX}`,
    bytesScannedCutoffPerQuery: settings.athenaBytesScannedLimit,
  });
  new LedgerTables(scope, 'Ledger', {
    database: tables.database,
    databaseName: settings.databaseName,
    bucketName,
    prefix: settings.prefix,
    projectionStart: settings.projectionStart,
  });
  new CompactionStateTable(scope, 'CompactionState', {
    database: tables.database,
    databaseName: settings.databaseName,
    bucketName,
    prefix: settings.prefix,
  });
  athena.node.addDependency(tables);
  new CfnOutput(scope, 'AthenaWorkgroup', {
    value: athena.workgroup.ref,
    description: 'Athena workgroup with the saved queries',
  });
  new CfnOutput(scope, 'GlueDatabase', {
    value: settings.databaseName,
    description: 'Glue database holding the export tables',
  });
}
