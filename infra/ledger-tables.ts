// Glue tables over the run ledger (ledger/<table>/<day key>=YYYY-MM-DD/*.json, and its rollup by
// exported table: ledger/export_units_latest/table_name=<t>/*.json): one JSON object per line,
// read with the OpenX JSON SerDe, partitioned with projection like the data tables. The ledger
// lives outside every table folder, so no data table ever reads it.
import { Stack } from 'aws-cdk-lib';
import type { CfnDatabase } from 'aws-cdk-lib/aws-glue';
import { CfnTable } from 'aws-cdk-lib/aws-glue';
import { Construct } from 'constructs';
import { ledgerPrefix } from '../functions/lib/destination/layout.ts';
import { type LedgerTableDef, ledgerTables } from '../functions/lib/tables/ledger.ts';

const JSON_FORMAT = {
  inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
  serde: 'org.openx.data.jsonserde.JsonSerDe',
} as const;

/**
 * JSON lines at `location`, read with the OpenX JSON SerDe, strict: a malformed line fails the
 * query rather than silently dropping a row. Glue keeps 255 characters of a column's comment.
 */
export function jsonLinesStorage(
  location: string,
  columns: ReadonlyArray<{ readonly name: string; readonly type: string; readonly description: string }>,
): CfnTable.StorageDescriptorProperty {
  return {
    location,
    inputFormat: JSON_FORMAT.inputFormat,
    outputFormat: JSON_FORMAT.outputFormat,
    serdeInfo: {
      serializationLibrary: JSON_FORMAT.serde,
      parameters: { 'ignore.malformed.json': 'false' },
    },
    compressed: false,
    storedAsSubDirectories: false,
    columns: columns.map((c) => ({ name: c.name, type: c.type, comment: c.description.slice(0, 255) })),
  };
}

export interface LedgerTablesProps {
  readonly database: CfnDatabase;
  readonly databaseName: string;
  readonly bucketName: string;
  readonly prefix: string;
  readonly projectionStart: string;
}

export class LedgerTables extends Construct {
  readonly tables: CfnTable[];

  constructor(scope: Construct, id: string, props: LedgerTablesProps) {
    super(scope, id);
    this.tables = ledgerTables.map((table) => {
      const location = `s3://${props.bucketName}/${props.prefix}/${ledgerPrefix(table.name)}`;
      const cfn = new CfnTable(this, `Table-${table.name}`, {
        catalogId: Stack.of(this).account,
        databaseName: props.databaseName,
        tableInput: ledgerTableInput(table, location, props.projectionStart),
      });
      cfn.node.addDependency(props.database);
      return cfn;
    });
  }
}

export function ledgerTableInput(
  table: LedgerTableDef,
  location: string,
  projectionStart: string,
): CfnTable.TableInputProperty {
  const key = table.partitionKey;
  return {
    name: table.name,
    description: table.description,
    tableType: 'EXTERNAL_TABLE',
    parameters: {
      EXTERNAL: 'TRUE',
      classification: 'json',
      'projection.enabled': 'true',
      ...(table.values
        ? {
            // The rollup, by exported table: a query naming its table reads that folder only.
            [`projection.${key}.type`]: 'enum',
            [`projection.${key}.values`]: table.values.join(','),
          }
        : {
            [`projection.${key}.type`]: 'date',
            [`projection.${key}.format`]: 'yyyy-MM-dd',
            [`projection.${key}.range`]: `${projectionStart},NOW`,
            [`projection.${key}.interval`]: '1',
            [`projection.${key}.interval.unit`]: 'DAYS',
          }),
      'storage.location.template': `${location}${key}=\${${key}}/`,
    },
    partitionKeys: [
      {
        name: key,
        type: 'string',
        comment: table.values
          ? 'The exported table (the Hive partition folder)'
          : 'YYYY-MM-DD, UTC (the Hive partition folder)',
      },
    ],
    storageDescriptor: jsonLinesStorage(location, table.columns),
  };
}
