// The bucket the exports land in: imported when named, else created locked down and retained.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { RUNS_DIR } from '../functions/lib/destination/layout.ts';
import { tenantPrefix } from '../functions/lib/tenant.ts';

/** Athena query results; outside the export prefix, so never inside a table folder. */
export const ATHENA_RESULTS_PREFIX = 'athena-results/';

/** Backfill plans and map results: working files, kept 30 days for inspection. */
export function runsPrefix(exportPrefix: string): string {
  return `${exportPrefix}/${RUNS_DIR}/`;
}

/** `tenantIds`: each tenant's working files expire as the shared ones do (a rule per tenant). */
export function exportBucket(
  scope: Construct,
  bucketName: string | undefined,
  exportPrefix: string,
  tenantIds: readonly string[] = [],
): IBucket {
  if (bucketName !== undefined) return Bucket.fromBucketName(scope, 'ExportBucket', bucketName);
  return new Bucket(scope, 'ExportBucket', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: true,
    lifecycleRules: [
      { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      { id: 'expire-noncurrent-versions', noncurrentVersionExpiration: Duration.days(30) },
      { id: 'expire-athena-results', prefix: ATHENA_RESULTS_PREFIX, expiration: Duration.days(30) },
      { id: 'expire-backfill-runs', prefix: runsPrefix(exportPrefix), expiration: Duration.days(30) },
      ...tenantIds.map((id) => ({
        id: `expire-backfill-runs-${id}`,
        prefix: runsPrefix(`${exportPrefix}/${tenantPrefix(id)}`),
        expiration: Duration.days(30),
      })),
    ],
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
