// A stack of tenants: the shared functions serve every tenant; each tenant gets, in a nested stack
// of its own, one Glue database whose tables all live under its folder, one workgroup, one reader
// role naming its own folder, database and workgroup and nothing of another tenant, and schedules
// that start the shared functions with {"tenant": "<id>"}.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../infra/export-function.ts';
import { idOf, type Json, statementsOfRole, synthStack } from '../../support/synth-stack.ts';

const TENANTS = [
  {
    id: 'acme',
    endpoint: 'https://cf-one.example.com',
    secretName: 'cloudforet/acme',
    alertEmail: 'finops@acme.example',
  },
  { id: 'beta-2', endpoint: 'https://cf-two.example.com', secretName: 'cloudforet/beta' },
  { id: 'gamma', endpoint: 'https://cf-one.example.com', secretName: 'cloudforet/gamma' },
];
const IDS = TENANTS.map((t) => t.id);

const resources = (t: Template, type: string) => Object.values(t.findResources(type)) as Json[];
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties, read as the template has them
const props = (r: Json) => r.Properties as Record<string, any>;

describe('a stack of three tenants', () => {
  let parent: Template;
  let lakes: ReadonlyMap<string, Template>;
  beforeAll(() => {
    const synth = synthStack({ tenants: TENANTS });
    parent = synth.template;
    lakes = synth.nested;
  });
  const lake = (id: string) => lakes.get(`Tenant-${id}`)!;

  it('nests one stack per tenant and keeps no database or workgroup of its own, one schedule: the daily run', () => {
    expect([...lakes.keys()]).toEqual([...IDS.map((id) => `Tenant-${id}`), 'Portfolio']);
    parent.resourceCountIs('AWS::CloudFormation::Stack', 4);
    parent.resourceCountIs('AWS::Glue::Database', 0);
    parent.resourceCountIs('AWS::Glue::Table', 0);
    parent.resourceCountIs('AWS::Athena::WorkGroup', 0);
    parent.resourceCountIs('AWS::Scheduler::Schedule', 1);
    parent.resourceCountIs('AWS::SecretsManager::Secret', 0);
    // The nine, and the daily run across tenants' Lanes and TenantsSummary.
    parent.resourceCountIs('AWS::Lambda::Function', 11);
  });

  it.each(IDS)('gives %s one database whose every table lives under its folder', (id) => {
    const t = lake(id);
    const database = `cloudforet_export_${id.replaceAll('-', '_')}`;

    t.resourceCountIs('AWS::Glue::Database', 1);
    t.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: database } });
    const tables = resources(t, 'AWS::Glue::Table');
    expect(tables.length).toBeGreaterThan(20);
    for (const table of tables) {
      expect(props(table).DatabaseName).toBe(database);
      const location = JSON.stringify(props(table).TableInput.StorageDescriptor.Location);
      expect(location).toContain(`/cloudforet/tenants/${id}/`);
      const template = props(table).TableInput.Parameters?.['storage.location.template'];
      if (template) expect(JSON.stringify(template)).toContain(`/cloudforet/tenants/${id}/`);
    }
  });

  it.each(IDS)('gives %s one workgroup with its own results folder and the saved queries', (id) => {
    const t = lake(id);

    t.resourceCountIs('AWS::Athena::WorkGroup', 1);
    const workgroup = props(resources(t, 'AWS::Athena::WorkGroup')[0]!);
    expect(workgroup.Name).toBe(`cloudforet_export-${id}`);
    expect(JSON.stringify(workgroup.WorkGroupConfiguration.ResultConfiguration.OutputLocation)).toContain(
      `/athena-results/tenants/${id}/`,
    );
    for (const query of resources(t, 'AWS::Athena::NamedQuery'))
      expect(props(query).Database).toBe(`cloudforet_export_${id.replaceAll('-', '_')}`);
  });

  it.each(IDS)("lets %s's reader read its own folder, database and workgroup", (id) => {
    const t = lake(id);
    const statements = statementsOfRole(t, idOf(t, 'AWS::IAM::Role', 'Reader'));
    const text = JSON.stringify(statements);

    expect(statements.map((s) => s.Sid)).toEqual([
      'ReadTenantObjects',
      'WriteTenantQueryResults',
      'ListTenantPrefixes',
      'LocateBucket',
      'ReadTenantCatalog',
      'QueryInTenantWorkgroup',
    ]);
    expect(text).toContain(`"/cloudforet/tenants/${id}/*"`);
    expect(text).toContain(`"s3:prefix":["cloudforet/tenants/${id}/*","athena-results/tenants/${id}/*"]`);
    expect(text).toContain(`:database/cloudforet_export_${id.replaceAll('-', '_')}"`);
    expect(text).toContain(`:table/cloudforet_export_${id.replaceAll('-', '_')}/*"`);
    expect(text).toContain(`:workgroup/cloudforet_export-${id}"`);
    expect(text).not.toContain('"*"');
    expect(text).not.toContain('glue:GetDatabases');
  });

  it.each(IDS)("grants %s's reader nothing of another tenant: no folder, database or workgroup", (id) => {
    const t = lake(id);
    const statements = statementsOfRole(t, idOf(t, 'AWS::IAM::Role', 'Reader'));

    for (const other of IDS.filter((o) => o !== id)) {
      for (const statement of statements) {
        const text = JSON.stringify(statement);
        expect(text, `${statement.Sid} names ${other}`).not.toContain(`tenants/${other}`);
        expect(text).not.toContain(`cloudforet_export_${other.replaceAll('-', '_')}`);
        expect(text).not.toContain(`cloudforet_export-${other}`);
      }
    }
    // Every object and database resource is the tenant's own, with no wildcard above its folder.
    const s3Objects = statements
      .filter((s) => String(s.Sid).includes('Objects') || String(s.Sid).includes('Results'))
      .map((s) => JSON.stringify(s.Resource));
    expect(s3Objects).toEqual([
      expect.stringContaining(`"/cloudforet/tenants/${id}/*"`),
      expect.stringContaining(`"/athena-results/tenants/${id}/*"`),
    ]);
  });

  it.each(IDS)(
    "starts %s's daily runs but the cost export with its id, as the shared functions' event",
    (id) => {
      const schedules = resources(lake(id), 'AWS::Scheduler::Schedule');

      // The cost export is the daily run across every tenant, in the parent.
      expect(schedules).toHaveLength(4);
      for (const schedule of schedules) {
        expect(props(schedule).Target.Input).toBe(JSON.stringify({ tenant: id }));
        expect(props(schedule).Description).not.toMatch(/^Daily cost export/);
      }
    },
  );

  it.each(IDS)("alarms on %s's failures in the daily run, under its id", (id) => {
    const alarms = resources(lake(id), 'AWS::CloudWatch::Alarm');

    expect(alarms).toHaveLength(1);
    expect(props(alarms[0]!)).toMatchObject({
      MetricName: 'UnitsFailed',
      Namespace: 'CloudforetExport',
      Dimensions: expect.arrayContaining([
        { Name: 'function', Value: 'tenants-summary' },
        { Name: 'tenant', Value: id },
        { Name: 'service', Value: 'cloudforet-export' },
      ]),
    });
    expect(props(alarms[0]!).AlarmDescription).toContain(`Tenant ${id}:`);
  });

  it("gives the shared functions every tenant's endpoint and secret, and their folders", () => {
    for (const fn of resources(parent, 'AWS::Lambda::Function')) {
      const env = props(fn).Environment.Variables as Record<string, string>;
      expect(env.CLOUDFORET_ENDPOINT).toBeUndefined();
      expect(JSON.parse(env.EXPORT_TENANTS!)).toEqual({
        endpoints: ['https://cf-one.example.com', 'https://cf-two.example.com'],
        tenants: {
          acme: [0, 'cloudforet/acme'],
          'beta-2': [1, 'cloudforet/beta'],
          gamma: [0, 'cloudforet/gamma'],
        },
      });
    }
    const costRole = statementsOfRole(parent, idOf(parent, 'AWS::IAM::Role', 'CostExportRole'));
    const secrets = JSON.stringify(costRole.find((s) => s.Sid === 'ReadCloudforetSecret'));
    for (const name of ['cloudforet/acme', 'cloudforet/beta', 'cloudforet/gamma'])
      expect(secrets).toContain(`:secret:${name}-??????`);
    const writes = JSON.stringify(costRole.find((s) => s.Sid === 'WriteExportObjects')?.Resource);
    expect(writes).toContain('"/cloudforet/tenants/*/*"');
  });

  it('outputs each tenant’s database, workgroup and reader role, under an id no other tenant has', () => {
    const outputs = parent.toJSON().Outputs as Record<string, { Value: unknown }>;

    expect(Object.keys(outputs).filter((k) => k.startsWith('Tenant'))).toEqual([
      'Tenantacme',
      'TenantbetaX2',
      'Tenantgamma',
    ]);
    expect(JSON.stringify(outputs.TenantbetaX2!.Value)).toContain(
      'database cloudforet_export_beta_2, workgroup cloudforet_export-beta-2, reader role ',
    );
  });

  it("subscribes a tenant's own alert e-mail to its alerts alone", () => {
    const subscriptions = resources(parent, 'AWS::SNS::Subscription').map(props);

    expect(subscriptions).toEqual([
      expect.objectContaining({
        Protocol: 'email',
        Endpoint: 'finops@acme.example',
        FilterPolicy: { tenant: ['acme'] },
      }),
    ]);
  });

  it("expires each tenant's working files as the shared ones expire", () => {
    const bucket = props(resources(parent, 'AWS::S3::Bucket')[0]!);
    const rules = bucket.LifecycleConfiguration.Rules as Array<{ Id: string; Prefix?: string }>;

    expect(rules.filter((r) => r.Id.startsWith('expire-backfill-runs')).map((r) => r.Prefix)).toEqual([
      'cloudforet/_runs/',
      'cloudforet/tenants/acme/_runs/',
      'cloudforet/tenants/beta-2/_runs/',
      'cloudforet/tenants/gamma/_runs/',
    ]);
  });

  it('stays far below CloudFormation’s 500 resources: one or two more in the parent per tenant', () => {
    const counts = [parent, ...lakes.values()].map((t) => Object.keys(t.toJSON().Resources).length);

    // 93 shared resources (functions, roles, the two state machines, alarms, bucket, the daily
    // run's schedule…), one stack per tenant and the portfolio's, and acme's alert subscription.
    expect(counts[0]).toBe(93 + IDS.length + 1 + 1);
    // Each tenant's lake: 77, of which 6 Glue tables of revisions (five tables and their ledger)
    // and 4 saved queries of as-of reads (issue 49).
    expect(counts.slice(1, -1)).toEqual([77, 77, 77]);
    expect(counts.at(-1)).toBeLessThan(40);
  });
});

describe('the most tenants the settings take', () => {
  it("keeps every function's environment within Lambda's 4 KB at the settings' limit", () => {
    // 34 tenants of 20-character ids and 40-character secret names: the most EXPORT_TENANTS takes.
    const many = Array.from({ length: 34 }, (_, i) => ({
      id: `tenant-${String(i).padStart(13, '0')}`,
      endpoint: `https://console-v2.api.example${i % 2}.com`,
      secretName: `s/${String(i).padStart(38, '0')}`,
    }));

    const { template } = synthStack({ tenants: many });

    for (const fn of resources(template, 'AWS::Lambda::Function')) {
      const env = props(fn).Environment.Variables as Record<string, unknown>;
      const bytes = Object.entries(env).reduce((n, [k, v]) => n + k.length + JSON.stringify(v).length, 0);
      expect(bytes).toBeLessThan(4096);
    }
  });
});

describe('infra/app.ts with tenants in its context, as cdk.json gives them', () => {
  it('names every bad tenant in one message, without a stack trace, and exits 1', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-tenants-'));
    const context = { tenants: [TENANTS[0], { ...TENANTS[1], id: 'acme' }, { id: 'Nope' }] };

    const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    rmSync(outdir, { recursive: true, force: true });

    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'invalid CDK context for the Cloudforet export stack (set with -c key=value or in cdk.json):',
      expect.stringMatching(/^ {2}- tenants\[2\] \(Nope\): a tenant id is 1-20 lower-case letters/),
      "  - tenants[2] (Nope): endpoint is required (the tenant's Cloudforet API base), or set cloudforetEndpoint as every tenant's default",
      "  - tenants[2] (Nope): secretName is required: the Secrets Manager secret holding the tenant's Cloudforet app (create it first, then deploy)",
      "  - tenants[1] (acme): the id is tenants[0]'s already; each tenant needs its own",
    ]);
  });
});
