// The adapter of the functions that run the cost job's compaction step (the cost function and the
// backfill's Finish state): the focus table's Glue partitions (compaction/focus-catalog.ts), kept
// in the database FOCUS_GLUE_DATABASE names (a tenant's own, tenant-scope.ts) for the destination
// the function writes. Apart from connect-cloudforet.ts, so that only these bundles carry the Glue
// client. One client per region and endpoint in module scope: warm invocations reuse it.
import { GlueClient } from '@aws-sdk/client-glue';
import type { FocusCatalog } from '../compaction/focus-catalog.ts';
import { gluePartitions } from '../compaction/glue-partitions.ts';
import type { FunctionConfig } from '../config.ts';
import { focusTable } from '../tables/focus.ts';

const clients = new Map<string, GlueClient>();

/** The catalog the run keeps, or undefined when the function is given no database. */
export function connectFocusCatalog(config: FunctionConfig): FocusCatalog | undefined {
  const database = config.focusGlueDatabase;
  if (database === undefined) return undefined;
  const { AWS_REGION, AWS_ENDPOINT_URL_GLUE, AWS_ENDPOINT_URL } = process.env;
  const key = [AWS_REGION, AWS_ENDPOINT_URL_GLUE ?? AWS_ENDPOINT_URL].join('|');
  let client = clients.get(key);
  if (client === undefined) {
    // Bounded as Cloudforet's requests are: a catalog that answers nothing never holds the run.
    client = new GlueClient({
      requestHandler: {
        connectionTimeout: config.requestTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        throwOnRequestTimeout: true,
      },
    });
    clients.set(key, client);
  }
  const prefix = config.prefix ? `${config.prefix}/` : '';
  return {
    port: gluePartitions(client, database, focusTable.name),
    root: `s3://${config.bucket}/${prefix}`,
  };
}
