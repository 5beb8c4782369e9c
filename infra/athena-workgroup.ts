// The Athena workgroup the exported tables are queried in: Athena engine version 3 (the Trino
// dialect the saved queries are written and tested for), a per-query scan limit, results kept in the export bucket outside every table folder, and
// the saved queries.
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { Construct } from 'constructs';
import { loadNamedQueries, type NamedQuerySql } from './named-queries.ts';

/** The engine the saved queries are written for (Trino; test/system/athena/duckdb-athena.test.ts). */
export const ATHENA_ENGINE_VERSION = 'Athena engine version 3';

export interface AthenaWorkgroupProps {
  readonly name: string;
  readonly databaseName: string;
  /** s3://bucket/prefix/ for query results. */
  readonly resultsLocation: string;
  readonly bytesScannedCutoffPerQuery: number;
  readonly queries?: readonly NamedQuerySql[];
}

export class AthenaWorkgroup extends Construct {
  readonly workgroup: CfnWorkGroup;

  constructor(scope: Construct, id: string, props: AthenaWorkgroupProps) {
    super(scope, id);
    this.workgroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: props.name,
      description: 'Queries over the Cloudforet cost and inventory exports',
      state: 'ENABLED',
      // Lets stack updates and deletion remove a workgroup that holds saved queries.
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery,
        // Pinned, not AUTO: the saved SQL is checked against Trino's grammar and semantics, and an
        // engine Athena chose later could answer it differently.
        engineVersion: { selectedEngineVersion: ATHENA_ENGINE_VERSION },
        resultConfiguration: {
          outputLocation: props.resultsLocation,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
    for (const query of props.queries ?? loadNamedQueries()) {
      new CfnNamedQuery(this, `Query-${query.name}`, {
        name: query.name,
        description: query.description,
        database: props.databaseName,
        workGroup: this.workgroup.ref,
        queryString: query.sql,
      });
    }
  }
}
