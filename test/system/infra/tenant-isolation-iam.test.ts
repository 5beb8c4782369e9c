// Each tenant reader's policy, as synthesized, evaluated offline by an IAM policy simulator
// (@cloud-copilot/iam-simulate): for every pair of five tenants, A's reader is allowed A's objects,
// query results, database, tables and workgroup, and denied B's. Two ids where one begins the
// other (ac, acme) prove the folder boundary is the slash, not the spelling.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { idOf, type Json, statementsOfRole, synthStack } from '../../support/synth-stack.ts';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const BUCKET = 'lake-bucket';
const IDS = ['acme', 'ac', 'beta', 'beta-2', 'globex'];
const db = (id: string) => `cloudforet_export_${id.replaceAll('-', '_')}`;

/** The template's values as IAM sees them once deployed: pseudo parameters and joins resolved. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(sep);
  }
  // Another resource of the stack (a queue, a log group): a stand-in ARN, none of the requests' own.
  if ('Fn::GetAtt' in o) return `arn:aws:sqs:${REGION}:${ACCOUNT}:${(o['Fn::GetAtt'] as string[])[0]}`;
  if ('Ref' in o) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
    };
    const ref = pseudo[o.Ref as string];
    if (ref === undefined) throw new Error(`unresolved Ref ${String(o.Ref)}`);
    return ref;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolve(v)]));
}

type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

describe('tenant readers under an IAM policy simulator', () => {
  const policies = new Map<string, Json>();
  beforeAll(() => {
    const { template, nested } = synthStack({
      bucketName: BUCKET,
      cloudforetEndpoint: 'https://cf.example.com',
      tenants: IDS.map((id) => ({ id, secretName: `cloudforet/${id}` })),
    });
    for (const id of IDS) {
      const t = nested.get(`Tenant-${id}`) as Template;
      const statements = statementsOfRole(t, idOf(t, 'AWS::IAM::Role', 'Reader'));
      policies.set(id, { Version: '2012-10-17', Statement: resolve(statements) });
    }
    const exporter = statementsOfRole(template, idOf(template, 'AWS::IAM::Role', 'CostExportRole'));
    policies.set('cost-export', { Version: '2012-10-17', Statement: resolve(exporter) });
  });

  async function decide(
    reader: string,
    action: string,
    resource: string,
    context: Record<string, string> = {},
  ): Promise<Decision> {
    const response = await runSimulation(
      {
        request: {
          principal: `arn:aws:iam::${ACCOUNT}:role/${reader}`,
          action,
          resource: { resource, accountId: ACCOUNT },
          contextVariables: context,
        },
        identityPolicies: [{ name: reader, policy: policies.get(reader) }],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    );
    if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
    return response.overallResult as Decision;
  }

  /** What a query in tenant `of`'s lake does, each as one request. */
  const requests = (of: string): Array<[string, string, Record<string, string>?]> => [
    [
      's3:GetObject',
      `arn:aws:s3:::${BUCKET}/cloudforet/tenants/${of}/costs/billed_date=2026-01-01/ds-1.parquet`,
    ],
    ['s3:GetObject', `arn:aws:s3:::${BUCKET}/cloudforet/tenants/${of}/ledger/export_units/x.json`],
    ['s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': `cloudforet/tenants/${of}/costs/` }],
    ['s3:PutObject', `arn:aws:s3:::${BUCKET}/athena-results/tenants/${of}/q-1.csv`],
    ['s3:GetObject', `arn:aws:s3:::${BUCKET}/athena-results/tenants/${of}/q-1.csv`],
    ['glue:GetDatabase', `arn:aws:glue:${REGION}:${ACCOUNT}:database/${db(of)}`],
    ['glue:GetTable', `arn:aws:glue:${REGION}:${ACCOUNT}:table/${db(of)}/costs`],
    ['glue:GetPartitions', `arn:aws:glue:${REGION}:${ACCOUNT}:table/${db(of)}/focus`],
    ['athena:StartQueryExecution', `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/cloudforet_export-${of}`],
    ['athena:GetQueryResults', `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/cloudforet_export-${of}`],
  ];

  it.each(IDS)("allows %s's reader everything a query in its own lake needs", async (id) => {
    const decisions = await Promise.all(requests(id).map(([a, r, c]) => decide(id, a, r, c)));

    expect(decisions).toEqual(requests(id).map(() => 'Allowed'));
  });

  it.each(IDS)(
    "denies %s's reader every other tenant's objects, results, tables and workgroup",
    async (id) => {
      for (const other of IDS.filter((o) => o !== id)) {
        const decisions = await Promise.all(requests(other).map(([a, r, c]) => decide(id, a, r, c)));

        expect(decisions, `${id} reading ${other}`).toEqual(requests(other).map(() => 'ImplicitlyDenied'));
      }
    },
  );

  it('denies every reader the shared folders: other prefixes, the tenant list, the map results', async () => {
    const shared: Array<[string, string, Record<string, string>?]> = [
      ['s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': 'cloudforet/tenants/' }],
      ['s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': 'cloudforet/tenants/ac' }],
      ['s3:GetObject', `arn:aws:s3:::${BUCKET}/cloudforet/_runs/costs/map-results/manifest.json`],
      ['s3:GetObject', `arn:aws:s3:::${BUCKET}/cloudforet/costs/billed_date=2026-01-01/ds-1.parquet`],
      ['glue:GetDatabases', `arn:aws:glue:${REGION}:${ACCOUNT}:catalog`],
      ['s3:DeleteObject', `arn:aws:s3:::${BUCKET}/cloudforet/tenants/ac/costs/x.parquet`],
    ];
    for (const id of IDS) {
      const decisions = await Promise.all(shared.map(([a, r, c]) => decide(id, a, r, c)));

      expect(decisions, id).toEqual(shared.map(() => 'ImplicitlyDenied'));
    }
  });

  it("lets the shared cost function write every tenant's folder and read its secrets, and nothing beside", async () => {
    const secret = (name: string) => `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`;
    const allowed: Array<[string, string, Record<string, string>?]> = [
      [
        's3:PutObject',
        `arn:aws:s3:::${BUCKET}/cloudforet/tenants/ac/costs/billed_date=2026-01-01/ds-1.parquet`,
      ],
      ['s3:DeleteObject', `arn:aws:s3:::${BUCKET}/cloudforet/tenants/globex/_runs/costs/r/units.json`],
      ['s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': 'cloudforet/tenants/beta-2/' }],
      ['secretsmanager:GetSecretValue', secret('cloudforet/acme')],
      ['secretsmanager:GetSecretValue', secret('cloudforet/beta-2')],
    ];
    const denied: Array<[string, string, Record<string, string>?]> = [
      ['s3:PutObject', `arn:aws:s3:::${BUCKET}/cloudforet/costs/billed_date=2026-01-01/ds-1.parquet`],
      ['s3:PutObject', `arn:aws:s3:::${BUCKET}/athena-results/tenants/acme/q.csv`],
      ['s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': 'cloudforet/' }],
      ['secretsmanager:GetSecretValue', secret('cloudforet/app')],
    ];

    const yes = await Promise.all(allowed.map(([a, r, c]) => decide('cost-export', a, r, c)));
    const no = await Promise.all(denied.map(([a, r, c]) => decide('cost-export', a, r, c)));

    expect(yes).toEqual(allowed.map(() => 'Allowed'));
    expect(no).toEqual(denied.map(() => 'ImplicitlyDenied'));
  });
});
