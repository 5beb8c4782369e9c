// The Glue table over compaction_state/<daily table>.json (destination/compaction-state.ts): one JSON
// line a daily table, read with the OpenX JSON SerDe like the ledger; not partitioned (two objects).
import { Stack } from 'aws-cdk-lib';
import { type CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { Construct } from 'constructs';
import { COMPACTION_STATE_DIR } from '../functions/lib/destination/layout.ts';
import { compactionStateTable } from '../functions/lib/tables/compacted.ts';
import { jsonLinesStorage } from './ledger-tables.ts';

export interface CompactionStateTableProps {
  readonly database: CfnDatabase;
  readonly databaseName: string;
  readonly bucketName: string;
  readonly prefix: string;
}

export class CompactionStateTable extends Construct {
  readonly table: CfnTable;

  constructor(scope: Construct, id: string, props: CompactionStateTableProps) {
    super(scope, id);
    const location = `s3://${props.bucketName}/${props.prefix}/${COMPACTION_STATE_DIR}/`;
    this.table = new CfnTable(this, 'Table', {
      catalogId: Stack.of(this).account,
      databaseName: props.databaseName,
      tableInput: compactionStateTableInput(location),
    });
    this.table.node.addDependency(props.database);
  }
}

export function compactionStateTableInput(location: string): CfnTable.TableInputProperty {
  return {
    name: compactionStateTable.name,
    description: compactionStateTable.description,
    tableType: 'EXTERNAL_TABLE',
    parameters: { EXTERNAL: 'TRUE', classification: 'json' },
    storageDescriptor: jsonLinesStorage(location, compactionStateTable.columns),
  };
}
