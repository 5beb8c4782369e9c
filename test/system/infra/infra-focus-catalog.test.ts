// The focus table's registered partitions in the deployed stack (docs/focus.md, "CID reads closed
// months compacted"): the single and tenant lakes' `focus` has no projection and reads by
// position; every function that runs the compaction step (the cost function, the backfill's
// Finish, which the daily run across tenants invokes too) gets FOCUS_GLUE_DATABASE and the Glue
// partition actions on the focus table(s) alone, evaluated by an IAM policy simulator; no other
// function gets either.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { type Json, statementsOfRole, synth, synthStack } from '../../support/synth-stack.ts';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const PARTITION_ACTIONS = [
  'glue:GetTable',
  'glue:GetPartitions',
  'glue:BatchCreatePartition',
  'glue:BatchDeletePartition',
  'glue:BatchUpdatePartition',
];

function glueTables(template: Template): Map<string, Json> {
  return new Map(
    Object.values(template.findResources('AWS::Glue::Table')).map((r) => {
      const input = r.Properties.TableInput as Json;
      return [String(input.Name), input];
    }),
  );
}

/** Each Lambda's construct path (its logical id's start) with its environment variables. */
function functionsOf(template: Template): Array<{ id: string; env: Record<string, unknown>; role: string }> {
  return Object.entries(template.findResources('AWS::Lambda::Function'))
    .filter(([, r]) => r.Properties.Environment?.Variables)
    .map(([id, r]) => ({
      id,
      env: r.Properties.Environment.Variables as Record<string, unknown>,
      role: (r.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!,
    }));
}

/** The template's values as IAM sees them once deployed (tenant-isolation-iam.test.ts's rule). */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(sep);
  }
  if ('Fn::GetAtt' in o) return `arn:aws:sqs:${REGION}:${ACCOUNT}:${(o['Fn::GetAtt'] as string[])[0]}`;
  if ('Ref' in o) {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
    };
    const ref = pseudo[o.Ref as string];
    if (ref === undefined) return `ref-${String(o.Ref)}`;
    return ref;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolve(v)]));
}

async function decide(statements: Json[], action: string, resource: string): Promise<string> {
  const response = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/fn`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: {},
      },
      identityPolicies: [{ name: 'fn', policy: { Version: '2012-10-17', Statement: resolve(statements) } }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult as string;
}

const table = (db: string, name: string) => `arn:aws:glue:${REGION}:${ACCOUNT}:table/${db}/${name}`;
const database = (db: string) => `arn:aws:glue:${REGION}:${ACCOUNT}:database/${db}`;
const catalog = `arn:aws:glue:${REGION}:${ACCOUNT}:catalog`;

function expectRegisteredFocus(template: Template): void {
  const tables = glueTables(template);
  const focus = tables.get('focus')!;
  const parameters = focus.Parameters as Record<string, string>;
  expect(
    Object.keys(parameters).filter((k) => k.startsWith('projection.') || k.startsWith('storage.')),
  ).toEqual([]);
  const serde = ((focus.StorageDescriptor as Json).SerdeInfo as Json).Parameters as Record<string, string>;
  expect(serde['parquet.column.index.access']).toBe('true');
  expect((focus.PartitionKeys as Json[]).map((k) => k.Name)).toEqual(['x_billing_period', 'x_charge_day']);
  // Every other table of the lake keeps its projection.
  const costs = tables.get('costs')!.Parameters as Record<string, string>;
  expect(costs['projection.enabled']).toBe('true');
  expect(tables.get('focus_monthly')?.Parameters).toMatchObject({ 'projection.enabled': 'true' });
}

describe('the focus table registered, in the single lake', () => {
  const template = synth({ bucketName: 'lake-bucket' });

  it('has no projection and reads its files by position; the other tables keep projection', () => {
    expectRegisteredFocus(template);
  });

  it("gives the cost function and the backfill's Finish the database, and no other function", () => {
    const withDb = functionsOf(template).filter((f) => f.env.FOCUS_GLUE_DATABASE !== undefined);

    expect(withDb.map((f) => f.id.replace(/Function[0-9A-F]{8}$/, '')).sort()).toEqual([
      'BackfillFinish',
      'CostExport',
    ]);
    expect(withDb.map((f) => f.env.FOCUS_GLUE_DATABASE)).toEqual(['cloudforet_export', 'cloudforet_export']);
  });

  it('lets those functions move the focus partitions and nothing else of the catalog', async () => {
    const fns = functionsOf(template);
    for (const f of fns) {
      const statements = statementsOfRole(template, f.role);
      const kept = f.env.FOCUS_GLUE_DATABASE !== undefined;
      for (const action of PARTITION_ACTIONS) {
        expect(
          await decide(statements, action, table('cloudforet_export', 'focus')),
          `${f.id} ${action}`,
        ).toBe(kept ? 'Allowed' : 'ImplicitlyDenied');
      }
      // Never another table, nor a table's deletion, nor the catalog's other databases.
      expect(await decide(statements, 'glue:BatchCreatePartition', table('cloudforet_export', 'costs'))).toBe(
        'ImplicitlyDenied',
      );
      expect(await decide(statements, 'glue:DeleteTable', table('cloudforet_export', 'focus'))).toBe(
        'ImplicitlyDenied',
      );
      expect(await decide(statements, 'glue:BatchCreatePartition', table('other_db', 'focus'))).toBe(
        'ImplicitlyDenied',
      );
      if (kept) {
        expect(await decide(statements, 'glue:GetTable', database('cloudforet_export'))).toBe('Allowed');
        expect(await decide(statements, 'glue:GetTable', catalog)).toBe('Allowed');
      }
    }
  });
});

describe('the focus table registered, in the tenant lakes', () => {
  const IDS = ['acme', 'beta-2'];
  const db = (id: string) => `cloudforet_export_${id.replaceAll('-', '_')}`;
  const { template, nested } = synthStack({
    bucketName: 'lake-bucket',
    cloudforetEndpoint: 'https://cf.example.com',
    tenants: IDS.map((id) => ({ id, secretName: `cloudforet/${id}` })),
  });

  it.each(IDS)("%s's focus table has no projection and reads by position", (id) => {
    expectRegisteredFocus(nested.get(`Tenant-${id}`) as Template);
  });

  it('keeps no focus table in the portfolio (FOCUS discovery would count every tenant twice)', () => {
    expect(glueTables(nested.get('Portfolio') as Template).has('focus')).toBe(false);
  });

  it("lets the compacting functions move each tenant's focus partitions, no other table", async () => {
    const withDb = functionsOf(template).filter((f) => f.env.FOCUS_GLUE_DATABASE !== undefined);
    expect(withDb.map((f) => f.id.replace(/Function[0-9A-F]{8}$/, '')).sort()).toEqual([
      'BackfillFinish',
      'CostExport',
    ]);
    // The stack's name: each tenant's invocation derives its own (tenant-scope.ts).
    expect(withDb.every((f) => f.env.FOCUS_GLUE_DATABASE === 'cloudforet_export')).toBe(true);
    for (const f of functionsOf(template)) {
      const statements = statementsOfRole(template, f.role);
      const kept = withDb.some((w) => w.id === f.id);
      for (const id of IDS) {
        expect(await decide(statements, 'glue:BatchCreatePartition', table(db(id), 'focus')), f.id).toBe(
          kept ? 'Allowed' : 'ImplicitlyDenied',
        );
        expect(await decide(statements, 'glue:BatchCreatePartition', table(db(id), 'costs'))).toBe(
          'ImplicitlyDenied',
        );
      }
      // The stack's own name is no tenant's database: nothing there.
      expect(await decide(statements, 'glue:GetPartitions', table('cloudforet_export', 'focus'))).toBe(
        'ImplicitlyDenied',
      );
      expect(
        await decide(statements, 'glue:BatchCreatePartition', table('cloudforet_export_portfolio', 'focus')),
      ).toBe('ImplicitlyDenied');
    }
  });
});
