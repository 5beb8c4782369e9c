// The Glue database and one external Parquet table per exported table, with partition
// projection so new days are queryable at once: no crawler, no MSCK REPAIR. Except the tables
// named `registered` (the single and tenant lakes' `focus`): their partitions are registered by
// the cost run (functions/lib/compaction/focus-catalog.ts), so that a closed month is read from its
// compacted object, and they read their files by position (docs/focus.md, "Reading by position").
import { Stack } from 'aws-cdk-lib';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { Construct } from 'constructs';
import { glueType, partitionFormat, type TableDef } from '../functions/lib/parquet/columns.ts';

export const PARQUET_FORMAT = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
} as const;

export interface AthenaTablesProps {
  readonly databaseName: string;
  readonly tables: ReadonlyArray<TableDef<never, never>>;
  readonly bucketName: string;
  readonly prefix: string;
  readonly projectionStart: string;
  /** Tables whose partitions the cost run registers instead of projecting (e.g. ['focus']). */
  readonly registered?: readonly string[];
}

export class AthenaTables extends Construct {
  readonly database: CfnDatabase;
  readonly tables: CfnTable[];

  constructor(scope: Construct, id: string, props: AthenaTablesProps) {
    super(scope, id);
    const catalogId = Stack.of(this).account;
    this.database = new CfnDatabase(this, 'Database', {
      catalogId,
      databaseInput: {
        name: props.databaseName,
        description: 'Cloudforet cost history and inventory snapshots exported as Parquet',
      },
    });
    this.tables = props.tables.map((table) => {
      const location = `s3://${props.bucketName}/${props.prefix}/${table.name}/`;
      const cfn = new CfnTable(this, `Table-${table.name}`, {
        catalogId,
        databaseName: props.databaseName,
        tableInput: glueTableInput(table, location, props.projectionStart, {
          registered: props.registered?.includes(table.name) ?? false,
        }),
      });
      cfn.node.addDependency(this.database);
      return cfn;
    });
  }
}

/**
 * The Glue TableInput of one exported table stored under `location` (ending in '/'). `registered`:
 * no projection (its partitions are registered by the cost run, each at its own location) and its
 * files read by position.
 */
export function glueTableInput(
  table: TableDef<never, never>,
  location: string,
  projectionStart: string,
  options: { readonly registered?: boolean } = {},
): CfnTable.TableInputProperty {
  const key = table.partitionKey;
  const day = table.dayKey;
  const registered = options.registered === true;
  return {
    name: table.name,
    description: table.description.slice(0, 2048),
    tableType: 'EXTERNAL_TABLE',
    parameters: {
      EXTERNAL: 'TRUE',
      classification: 'parquet',
      ...(registered ? {} : projection(table, location, projectionStart)),
      'cloudforet_export.schema_version': String(table.schemaVersion),
    },
    partitionKeys: [
      { name: key, type: 'string', comment: `${partitionFormat(key)} (the Hive partition folder)` },
      ...(day
        ? [{ name: day, type: 'string', comment: 'DD, the day of the month (the Hive partition folder)' }]
        : []),
    ],
    storageDescriptor: {
      location,
      inputFormat: PARQUET_FORMAT.inputFormat,
      outputFormat: PARQUET_FORMAT.outputFormat,
      serdeInfo: {
        serializationLibrary: PARQUET_FORMAT.serde,
        parameters: {
          'serialization.format': '1',
          // A revisions table that renames a column of its files (tables/revisions.ts) reads them by
          // position; so does a registered focus table, whose compacted months' files name BilledCost
          // x_BilledCost (docs/focus.md).
          ...(registered || readsByPosition(table) ? { 'parquet.column.index.access': 'true' } : {}),
        },
      },
      compressed: false,
      storedAsSubDirectories: false,
      columns: table.columns.map((c) => ({
        name: c.name,
        type: glueType[c.type],
        comment: c.description.slice(0, 255),
      })),
    },
  };
}

/** The partition projection parameters of a table stored under `location`. */
function projection(
  table: TableDef<never, never>,
  location: string,
  projectionStart: string,
): Record<string, string> {
  const key = table.partitionKey;
  const day = table.dayKey;
  const monthly = partitionFormat(key) === 'YYYY-MM';
  return {
    'projection.enabled': 'true',
    [`projection.${key}.type`]: 'date',
    [`projection.${key}.format`]: monthly ? 'yyyy-MM' : 'yyyy-MM-dd',
    [`projection.${key}.range`]: `${monthly ? projectionStart.slice(0, 7) : projectionStart},NOW`,
    [`projection.${key}.interval`]: '1',
    [`projection.${key}.interval.unit`]: monthly ? 'MONTHS' : 'DAYS',
    ...(day && {
      // An integer day of the month, not a date: a date projection under a monthly one would
      // enumerate every day of the range for each month a query names.
      [`projection.${day}.type`]: 'integer',
      [`projection.${day}.range`]: '1,31',
      [`projection.${day}.digits`]: '2',
    }),
    'storage.location.template': `${location}${key}=\${${key}}/${day ? `${day}=\${${day}}/` : ''}`,
  };
}

/** A revisions table whose Glue columns rename some of its files' columns reads them by position. */
function readsByPosition(table: TableDef<never, never>): boolean {
  const byPosition = (table as { readonly byPosition?: Readonly<Record<string, string>> }).byPosition;
  return byPosition !== undefined && Object.keys(byPosition).length > 0;
}
