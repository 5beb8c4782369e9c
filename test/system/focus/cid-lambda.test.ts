// The focus table's partitions registered by the deployed functions (issue 49, item 3): the focus
// table as the synthesized stack declares it (no projection, read by position) stands in a loopback
// Glue catalog (harness/glue-responder.ts, the real GlueClient), and the functions, invoked as
// Lambda invokes them with the environment the stack gives them (FOCUS_GLUE_DATABASE, on loopback
// S3, Secrets Manager and Cloudforet), leave it holding exactly the partitions the destination
// calls for (compaction/focus-catalog.ts): the cost function of a single domain, and the daily run
// across tenants, each tenant's partitions in its own database at its own folder.
import { BatchDeletePartitionCommand, GlueClient } from '@aws-sdk/client-glue';
import type { Template } from 'aws-cdk-lib/assertions';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as costExport } from '../../../functions/cost-export.ts';
import {
  type CatalogPartition,
  focusPartitions,
  readCatalogListing,
  WHOLE_MONTH_DAY,
} from '../../../functions/lib/compaction/focus-catalog.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { openSink } from '../../../functions/lib/storage/open-sink.ts';
import { encodeTenants } from '../../../functions/lib/tenant.ts';
import { type GlueResponder, type GlueTableInput, startGlue } from '../../../harness/glue-responder.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type SecretsManagerResponder, startSecretsManager } from '../../../harness/secrets-manager.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { runTenantsRun } from '../../../tools/state-machine.ts';
import { monthBack, monthsBack } from '../../support/months.ts';
import { synth, synthStack } from '../../support/synth-stack.ts';

const NOW = new Date();
const YESTERDAY = addDays(utcDay(NOW), -1);
const withTime = (id: string) =>
  ({ awsRequestId: id, getRemainingTimeInMillis: () => 900_000 }) as unknown as Context;

/** The CDK table input (camelCase) as Glue's API spells it (PascalCase); parameter maps kept as they are. */
function glueApi(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(glueApi);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.charAt(0).toUpperCase() + k.slice(1),
      k === 'parameters' ? v : glueApi(v),
    ]),
  );
}

/** The synthesized template's focus table, as Glue's API would hand it back. */
function focusOf(template: Template): GlueTableInput {
  const [focus] = Object.values(template.findResources('AWS::Glue::Table'))
    .map((r) => r.Properties.TableInput)
    .filter((t) => t.Name === 'focus');
  expect(focus.Parameters['projection.enabled']).toBeUndefined();
  return glueApi(focus) as GlueTableInput;
}

function registered(glue: GlueResponder, database: string): CatalogPartition[] {
  return glue
    .partitions(database, 'focus')
    .map((p) => ({
      values: [p.Values[0]!, p.Values[1]!] as const,
      location: String(p.StorageDescriptor.Location),
    }))
    .sort((a, b) => (a.values.join('/') < b.values.join('/') ? -1 : 1));
}

/** What the destination under `root` calls for, from its objects and compaction state alone. */
async function wanted(root: string): Promise<CatalogPartition[]> {
  const root_ = root.replace(/\/$/, '');
  return focusPartitions(await readCatalogListing(openSink(root_)), `${root_}/`);
}

function glueClient(glue: GlueResponder): GlueClient {
  return new GlueClient({
    endpoint: glue.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
}

describe('the cost function of a single domain keeps the focus partitions', () => {
  const FROM = monthsBack(2, NOW);
  const DATABASE = 'cloudforet_export';
  const ROOT = `s3://${BUCKET}/${PREFIX}/`;
  let aws: LocalAws;
  let glue: GlueResponder;
  let restore: () => void;

  beforeAll(async () => {
    const template = synth({ bucketName: BUCKET, prefix: PREFIX });
    aws = await startLocalAws({ seed: 49, dataSources: 1, from: FROM, to: YESTERDAY, rowsPerDay: 2 });
    glue = await startGlue({ [DATABASE]: [focusOf(template)] });
    const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
      String(f.Properties.Description).startsWith('Cloudforet cost days'),
    )!;
    restore = aws.applyEnv({
      // The database the stack gives the cost function, the catalog on loopback.
      FOCUS_GLUE_DATABASE: fn.Properties.Environment.Variables.FOCUS_GLUE_DATABASE,
      AWS_ENDPOINT_URL_GLUE: glue.endpoint,
      MAX_INLINE_DAYS: '400',
      LOG_LEVEL: 'error',
    });
  }, 120_000);
  afterAll(async () => {
    restore?.();
    await glue?.stop();
    await aws?.stop();
  });

  it('registers every partition at its first run: closed months at their compacted folder, later days at theirs', async () => {
    expect(registered(glue, DATABASE)).toEqual([]);

    const summary = await costExport({ from: FROM, to: YESTERDAY }, withTime('first'));

    expect(summary).toMatchObject({ failed: 0 });
    const partitions = registered(glue, DATABASE);
    expect(partitions).toEqual(await wanted(ROOT));
    const months = partitions.filter((p) => p.values[1] === WHOLE_MONTH_DAY);
    expect(months.map((p) => p.values[0])).toContain(monthBack(2, NOW));
    expect(months.every((p) => p.location === `${ROOT}focus_monthly/x_billing_period=${p.values[0]}/`)).toBe(
      true,
    );
    // A compacted month is read from its object alone: none of its days has a partition too.
    const closed = new Set(months.map((p) => p.values[0]));
    const days = partitions.filter((p) => p.values[1] !== WHOLE_MONTH_DAY);
    expect(days.length).toBeGreaterThan(0);
    expect(days.filter((p) => closed.has(p.values[0]))).toEqual([]);
    expect(
      days.every(
        (p) => p.location === `${ROOT}focus/x_billing_period=${p.values[0]}/x_charge_day=${p.values[1]}/`,
      ),
    ).toBe(true);
  }, 300_000);

  it('puts back what the catalog lost at the end of a run that compacts nothing', async () => {
    const before = registered(glue, DATABASE);
    expect(before.length).toBeGreaterThan(1);
    const client = glueClient(glue);
    try {
      await client.send(
        new BatchDeletePartitionCommand({
          DatabaseName: DATABASE,
          TableName: 'focus',
          PartitionsToDelete: before.slice(0, 20).map((p) => ({ Values: [...p.values] })),
        }),
      );
    } finally {
      client.destroy();
    }
    expect(registered(glue, DATABASE).length).toBe(before.length - Math.min(20, before.length));

    // One day of this month: no month newly confirmed, nothing compacted.
    const summary = await costExport({ date: YESTERDAY }, withTime('second'));

    expect(summary).toMatchObject({ failed: 0 });
    expect(registered(glue, DATABASE)).toEqual(before);
  }, 300_000);
});

describe('the daily run across tenants keeps each tenant its own focus partitions', () => {
  const FROM = monthsBack(1, NOW);
  const LAKE = 'lake';
  const IDS = ['acme', 'beta-2'];
  const db = (id: string) => `cloudforet_export_${id.replaceAll('-', '_')}`;
  const root = (id: string) => `s3://${LAKE}/${LAKE}/tenants/${id}/`;
  const sims: Simulator[] = [];
  let s3: S3Server;
  let secrets: SecretsManagerResponder;
  let glue: GlueResponder;
  const previous = { ...process.env };

  beforeAll(async () => {
    const { template, nested } = synthStack({
      bucketName: LAKE,
      prefix: LAKE,
      cloudforetEndpoint: 'https://cf.example.com',
      tenants: IDS.map((id) => ({ id, secretName: `cloudforet/${id}` })),
    });
    const finish = Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
      String(f.Properties.Description).startsWith('Cost job, state Finish'),
    )!;
    for (const [i] of IDS.entries()) {
      sims.push(
        await startSimulator({ seed: 50 + i, dataSources: 1, from: FROM, to: YESTERDAY, rowsPerDay: 3 }),
      );
    }
    s3 = await startS3({ buckets: [LAKE] });
    secrets = await startSecretsManager(
      Object.fromEntries(IDS.map((id, i) => [`cloudforet/${id}`, consoleAppJson(sims[i]!.issueToken())])),
    );
    glue = await startGlue(
      Object.fromEntries(IDS.map((id) => [db(id), [focusOf(nested.get(`Tenant-${id}`) as Template)]])),
    );
    Object.assign(process.env, {
      EXPORT_TENANTS: encodeTenants(
        new Map(IDS.map((id, i) => [id, { endpoint: sims[i]!.url, secretId: `cloudforet/${id}` }])),
      ),
      EXPORT_BUCKET: LAKE,
      EXPORT_PREFIX: LAKE,
      // The stack's name, as the stack gives the Finish function: each tenant reads its own.
      FOCUS_GLUE_DATABASE: finish.Properties.Environment.Variables.FOCUS_GLUE_DATABASE,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_GLUE: glue.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      LOG_LEVEL: 'error',
    });
    delete process.env.CLOUDFORET_ENDPOINT;
    delete process.env.CLOUDFORET_SECRET_ID;
  }, 120_000);
  afterAll(async () => {
    process.env = previous;
    await glue?.stop();
    await Promise.all([...sims.map((s) => s.close()), s3?.stop(), secrets?.stop()]);
  });

  it("registers each tenant's partitions in its database, at its folder, and nowhere else", async () => {
    const run = await runTenantsRun(
      s3.client,
      { tenants: IDS },
      { runId: 'daily-glue', caps: { overall: 2, perEndpoint: 1, perTenant: 1 }, context: withTime },
    );

    expect(run.failed).toBe(false);
    for (const id of IDS) {
      const partitions = registered(glue, db(id));
      expect(partitions.length, id).toBeGreaterThan(0);
      expect(partitions, id).toEqual(await wanted(root(id)));
      expect(
        partitions.every((p) => p.location.startsWith(root(id))),
        id,
      ).toBe(true);
    }
  }, 300_000);
});
