// One exporter Lambda: bundled ESM on Node 24/arm64, its own log group and role, IAM scoped to
// the one secret and the one prefix (as much as this function needs), failed async invocations
// sent to a queue.
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { focusTable } from '../functions/lib/tables/focus.ts';
import { encodeTenants, tenantDatabaseName, tenantPrefix } from '../functions/lib/tenant.ts';
import { LAMBDA_NODE_FLAGS, LAMBDA_RUNTIME_ENV } from './lambda-node-options.ts';
import type { Settings } from './settings.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** ESM output still meets CommonJS dependencies that call require(). */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** esbuild on this machine (never Docker): one minified ESM file with its source map. */
export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // The runtime ships an SDK v3 too, but of its own version: bundle ours to pin behaviour.
  externalModules: [],
  minify: true,
  // Error classes name themselves with new.target.name; minified names would reach the logs.
  keepNames: true,
  sourceMap: true,
  sourcesContent: false,
  forceDockerBundling: false,
};

export interface ExportFunctionProps {
  /** Entry file, relative to the project root. */
  readonly entry: string;
  readonly description: string;
  readonly settings: Settings;
  readonly bucket: IBucket;
  readonly secret: FunctionSecrets;
  readonly failureQueue: IQueue;
  /** Defaults to settings.reservedConcurrency. */
  readonly reservedConcurrency?: number | undefined;
  /**
   * 'export' (the default): the secret, and write under the prefix; 'read': read the prefix only;
   * 'observe': the secret, and read the prefix (the freshness check).
   */
  readonly access?: ExportAccess;
  /** Variables this function alone needs, beside the shared ones. */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The function runs the cost job's compaction step, which registers the focus table's Glue
   * partitions: FOCUS_GLUE_DATABASE, and the Glue actions on the focus table(s) alone.
   */
  readonly focusCatalog?: boolean;
}

export type ExportAccess = 'export' | 'read' | 'observe';

/** The secret(s) the functions read: the one domain's, or in a stack of tenants every tenant's. */
export interface FunctionSecrets {
  /** What CLOUDFORET_SECRET_ID names; undefined with tenants (EXPORT_TENANTS names each). */
  readonly secretId: string | undefined;
  /** The ARNs GetSecretValue is allowed on. */
  readonly policyArns: readonly string[];
}

/**
 * Where the functions' data lives, as an S3 key pattern: the prefix, or with tenants every
 * tenant's folder under it (`<prefix>/tenants/*`), which is where each tenant's layout starts.
 */
export function dataRoot(settings: Pick<Settings, 'prefix' | 'tenants'>): string {
  return settings.tenants ? `${settings.prefix}/${tenantPrefix('*')}` : settings.prefix;
}

export class ExportFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: IRole;

  constructor(scope: Construct, id: string, props: ExportFunctionProps) {
    super(scope, id);
    const { settings } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // An explicit role: the default one carries AWSLambdaBasicExecutionRole, whose log actions are on '*'.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.role = role;
    this.function = new NodejsFunction(this, 'Function', {
      entry: `${PROJECT_ROOT}${props.entry}`,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memoryMb,
      timeout: Duration.seconds(settings.timeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency ?? settings.reservedConcurrency,
      role,
      logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      environment: {
        ...functionEnvironment(settings, props.bucket.bucketName, props.secret.secretId),
        // With tenants the stack's name: each tenant's invocation reads its own (tenant-scope.ts).
        ...(props.focusCatalog && focusCatalogEnvironment(settings)),
        ...props.environment,
      },
      bundling: BUNDLING,
      // Exports are idempotent (fixed keys, whole-object replace), so one retry is safe.
      retryAttempts: 1,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(props.failureQueue),
    });
    logGroup.grantWrite(role);
    const grants = {
      bucket: props.bucket,
      secretArns: props.secret.policyArns,
      region: Stack.of(this).region,
    };
    for (const statement of exportStatements(props.access ?? 'export', settings, grants)) {
      role.addToPrincipalPolicy(statement);
    }
    if (props.focusCatalog) role.addToPrincipalPolicy(focusCatalogStatement(Stack.of(this), settings));
  }
}

/** The variable of a function that keeps the focus table's partitions (with tenants, the stack's name). */
export function focusCatalogEnvironment(settings: Pick<Settings, 'databaseName'>): Record<string, string> {
  return { FOCUS_GLUE_DATABASE: settings.databaseName };
}

/** What keeping the focus table's partitions calls (functions/lib/compaction/glue-partitions.ts). */
export const FOCUS_CATALOG_ACTIONS = [
  'glue:GetTable',
  'glue:GetPartitions',
  'glue:BatchCreatePartition',
  'glue:BatchDeletePartition',
  'glue:BatchUpdatePartition',
] as const;

/** The databases whose focus table the functions keep: the stack's, or with tenants each tenant's. */
export function focusCatalogDatabases(settings: Pick<Settings, 'databaseName' | 'tenants'>): string[] {
  return settings.tenants
    ? settings.tenants.map((t) => tenantDatabaseName(settings.databaseName, t.id))
    : [settings.databaseName];
}

/**
 * The focus table's partitions, on that table alone: Glue authorizes a partition call on the
 * catalog, the database and the table. With tenants, each tenant's focus table (the functions
 * serve every tenant in turn), never the portfolio's nor any other table.
 */
export function focusCatalogStatement(
  stack: Stack,
  settings: Pick<Settings, 'databaseName' | 'tenants'>,
): PolicyStatement {
  const glue = (resource: string, resourceName?: string) =>
    stack.formatArn({ service: 'glue', resource, ...(resourceName && { resourceName }) });
  const databases = focusCatalogDatabases(settings);
  return new PolicyStatement({
    sid: 'KeepFocusPartitions',
    actions: [...FOCUS_CATALOG_ACTIONS],
    resources: [
      glue('catalog'),
      ...databases.map((d) => glue('database', d)),
      ...databases.map((d) => glue('table', `${d}/${focusTable.name}`)),
    ],
  });
}

/** The variables every function gets; with tenants, EXPORT_TENANTS in place of the one endpoint and secret. */
export function functionEnvironment(
  settings: Settings,
  bucketName: string,
  secretId: string | undefined,
): Record<string, string> {
  const connection: Record<string, string> = settings.tenants
    ? {
        EXPORT_TENANTS: encodeTenants(
          new Map(settings.tenants.map((t) => [t.id, { endpoint: t.endpoint, secretId: t.secretName }])),
        ),
      }
    : { CLOUDFORET_ENDPOINT: settings.cloudforetEndpoint, CLOUDFORET_SECRET_ID: secretId ?? '' };
  return {
    ...connection,
    EXPORT_BUCKET: bucketName,
    EXPORT_PREFIX: settings.prefix,
    EXPORT_CONCURRENCY: String(settings.exportConcurrency),
    MAX_INLINE_DAYS: String(settings.maxInlineDays),
    EXPORT_WINDOW_MONTHS: String(settings.costWindowMonths),
    CLOUDFORET_TIMEOUT_MS: String(settings.cloudforetTimeoutMs),
    CLOUDFORET_MAX_ANSWER_MB: String(settings.cloudforetMaxAnswerMb),
    SECRET_TTL_SECONDS: String(settings.secretTtlSeconds),
    STALE_JOB_HOURS: String(settings.staleJobHours),
    LOG_LEVEL: settings.logLevel,
    PARQUET_COMPRESSION: settings.parquetCompression,
    FRESHNESS_HOURS: String(settings.freshnessHours),
    // Source maps in stack traces, and a young generation sized as the bench measured.
    NODE_OPTIONS: LAMBDA_NODE_FLAGS.join(' '),
    ...LAMBDA_RUNTIME_ENV,
  };
}

/**
 * What one function may do. 'export': read its one secret; read, write and list under its one
 * prefix. 'read': read and list under the prefix (the backfill summary). Customer-managed keys
 * of an imported bucket or secret are usable only through that service. With tenants, the
 * secrets are every tenant's: the functions serve each tenant in turn.
 */
export function exportStatements(
  access: ExportAccess,
  settings: Pick<Settings, 'prefix' | 'tenants' | 'bucketKmsKeyArn' | 'secretKmsKeyArn'>,
  grants: { bucket: IBucket; secretArns: readonly string[]; region: string },
): PolicyStatement[] {
  const { bucket, secretArns, region } = grants;
  const prefix = dataRoot(settings);
  const writes = access === 'export';
  return [
    ...(access !== 'read'
      ? [
          new PolicyStatement({
            sid: 'ReadCloudforetSecret',
            actions: ['secretsmanager:GetSecretValue'],
            resources: [...secretArns],
          }),
          ...keyStatement(
            'DecryptCloudforetSecret',
            settings.secretKmsKeyArn,
            ['kms:Decrypt'],
            `secretsmanager.${region}`,
          ),
        ]
      : []),
    new PolicyStatement({
      sid: writes ? 'WriteExportObjects' : 'ReadExportObjects',
      actions: writes
        ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload']
        : ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${prefix}/*`)],
    }),
    new PolicyStatement({
      sid: 'ListExportPrefix',
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${prefix}/*`] } },
    }),
    ...bucketKeyStatements(settings.bucketKmsKeyArn, writes, region),
  ];
}

/** Use of an imported bucket's KMS key: decrypt to read, generate data keys to write. */
export function bucketKeyStatements(
  keyArn: string | undefined,
  writes: boolean,
  region: string,
  sid = 'UseExportBucketKey',
): PolicyStatement[] {
  const actions = writes ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'];
  return keyStatement(sid, keyArn, actions, `s3.${region}`);
}

function keyStatement(
  sid: string,
  keyArn: string | undefined,
  actions: string[],
  service: string,
): PolicyStatement[] {
  if (keyArn === undefined) return [];
  return [
    new PolicyStatement({
      sid,
      actions,
      resources: [keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `${service}.amazonaws.com` } },
    }),
  ];
}
