// Two tenants (two simulated domains on two endpoints, each app's secret) served by the same
// functions: the scheduled cost job and the inventory function, each event naming its tenant,
// write every object under that tenant's folder and nowhere else.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { handler as freshnessCheck } from '../../../functions/freshness-check.ts';
import { handler as inventory } from '../../../functions/inventory-export.ts';
import { encodeTenants } from '../../../functions/lib/tenant.ts';
import { listKeys, type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type SecretsManagerResponder, startSecretsManager } from '../../../harness/secrets-manager.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { runStateMachine, runTenantsRun, type TenantsExecution } from '../../../tools/state-machine.ts';

/** A Lambda context with time enough: a lane runs all its units in one invocation. */
const withTime = (id: string) =>
  ({ awsRequestId: id, getRemainingTimeInMillis: () => 900_000 }) as unknown as Context;

import { monthBack } from '../../support/months.ts';

const MONTH = monthBack(3);
const FROM = `${MONTH}-01`;
const TO = `${MONTH}-04`;
const BUCKET = 'lake';

describe('tenants on the Lambda path', () => {
  let acme: Simulator;
  let beta: Simulator;
  let s3: S3Server;
  let secrets: SecretsManagerResponder;
  const previous = { ...process.env };

  beforeAll(async () => {
    acme = await startSimulator({ seed: 7, dataSources: 2, from: FROM, to: TO, rowsPerDay: 10 });
    beta = await startSimulator({ seed: 8, dataSources: 1, from: FROM, to: TO, rowsPerDay: 10 });
    s3 = await startS3({ buckets: [BUCKET] });
    secrets = await startSecretsManager({
      'cloudforet/acme': consoleAppJson(acme.issueToken()),
      'cloudforet/beta': consoleAppJson(beta.issueToken()),
      // A client secret regenerated in Cloudforet: the one in Secrets Manager no longer authenticates.
      'cloudforet/gamma': consoleAppJson(acme.issueToken({ badSignature: true })),
    });
    Object.assign(process.env, {
      EXPORT_TENANTS: encodeTenants(
        new Map([
          ['acme', { endpoint: acme.url, secretId: 'cloudforet/acme' }],
          ['beta', { endpoint: beta.url, secretId: 'cloudforet/beta' }],
          ['gamma', { endpoint: acme.url, secretId: 'cloudforet/gamma' }],
        ]),
      ),
      EXPORT_BUCKET: BUCKET,
      EXPORT_PREFIX: 'lake',
      ...s3.env,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      LOG_LEVEL: 'error',
    });
    delete process.env.CLOUDFORET_ENDPOINT;
    delete process.env.CLOUDFORET_SECRET_ID;
  });
  afterAll(async () => {
    process.env = previous;
    await Promise.all([acme.close(), beta.close(), s3.stop(), secrets.stop()]);
  });

  it("runs the scheduled cost job for one tenant into that tenant's folder alone, naming it", async () => {
    const run = await runStateMachine(s3.client, { tenant: 'acme', from: FROM, to: TO }, { runId: 'acme-1' });

    expect(run.failed).toBe(false);
    expect(run.states[0]!.output).toMatchObject({ tenant: 'acme', units: 8 });
    expect(run.items.every((item) => (item as { tenant?: string }).tenant === 'acme')).toBe(true);
    expect(run.result).toMatchObject({ tenant: 'acme', units: 8, written: 8, failed: 0 });
    const keys = await listKeys(s3.client, BUCKET, '');
    expect(keys.length).toBeGreaterThan(16);
    expect(keys.filter((k) => !k.startsWith('lake/tenants/acme/'))).toEqual([]);
    const first = run.items[0] as { dataSourceId: string; date: string };
    expect(keys).toContain(`lake/tenants/acme/costs/billed_date=${first.date}/${first.dataSourceId}.parquet`);
  });

  it("exports the other tenant's domain from its own endpoint with its own secret, beside the first", async () => {
    const before = await listKeys(s3.client, BUCKET, 'lake/tenants/acme/');

    const run = await runStateMachine(s3.client, { tenant: 'beta', from: FROM, to: TO }, { runId: 'beta-1' });
    const snapshot = await inventory({ tenant: 'beta' }, { awsRequestId: 'inv-beta' } as Context);

    expect(run.result).toMatchObject({ tenant: 'beta', units: 4, written: 4, failed: 0 });
    expect(snapshot).toMatchObject({ tenant: 'beta' });
    const betaKeys = await listKeys(s3.client, BUCKET, 'lake/tenants/beta/');
    expect(betaKeys.some((k) => k.startsWith('lake/tenants/beta/cloud_services/'))).toBe(true);
    expect(await listKeys(s3.client, BUCKET, 'lake/tenants/acme/')).toEqual(before);
    expect((await listKeys(s3.client, BUCKET, '')).filter((k) => !k.startsWith('lake/tenants/'))).toEqual([]);
    // Each tenant's destination claim names its own domain: the folders cannot be mixed up.
    const claims = betaKeys.filter((k) => k.endsWith('_destination.json'));
    expect(claims).toEqual(['lake/tenants/beta/_destination.json']);
  });

  it('publishes each figure also under the tenant, and the unlabelled ones the alarms watch', async () => {
    const out: string[] = [];
    const warned: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    // Powertools writes its warnings to stderr through a Console of its own.
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      warned.push(String(chunk));
      return true;
    });
    try {
      await costExport({ tenant: 'beta', date: FROM }, { awsRequestId: 'cost-beta' } as Context);
      await freshnessCheck({ tenant: 'beta' }, { awsRequestId: 'fresh-beta' } as Context);
    } finally {
      spy.mockRestore();
      warn.mockRestore();
    }
    // Powertools warns of a key named in two dimension sets: none is.
    expect(warned.filter((w) => w.includes('EMF key'))).toEqual([]);
    const lines = out
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map(
        (line) =>
          JSON.parse(line) as { _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][] }> } } & Record<
            string,
            unknown
          >,
      );
    const dimensions = lines.map((l) => l._aws.CloudWatchMetrics[0]!.Dimensions);

    expect(dimensions).toContainEqual([
      ['service', 'function'],
      ['service', 'function', 'tenant'],
    ]);
    expect(dimensions).toContainEqual([
      ['service', 'data_source_id'],
      ['service', 'data_source_id', 'tenant'],
    ]);
    // The worst ages: once without a dimension (the freshness alarms), once under the tenant.
    expect(dimensions.filter((d) => JSON.stringify(d) === '[["service"]]')).toHaveLength(1);
    expect(dimensions.filter((d) => JSON.stringify(d) === '[["service","tenant"]]')).toHaveLength(1);
    const labelled = lines.filter(
      (l) => JSON.stringify(l._aws.CloudWatchMetrics[0]!.Dimensions) !== '[["service"]]',
    );
    expect(labelled.map((l) => l.tenant)).toEqual(labelled.map(() => 'beta'));
  });

  it("fails a tenant whose secret no longer authenticates alone, naming it, and leaves the others' objects", async () => {
    const before = await listKeys(s3.client, BUCKET, '');

    const run = await runStateMachine(s3.client, { tenant: 'gamma' }, { runId: 'gamma-1' });
    const snapshot = await inventory({ tenant: 'gamma' }, { awsRequestId: 'inv-gamma' } as Context).catch(
      (error: Error) => error,
    );

    expect(run.failed).toBe(true);
    expect(String((run.result as Error).message)).toMatch(/^tenant gamma: /);
    expect((run.result as { code?: string }).code).toBe('CLOUDFORET_ERROR_AUTHENTICATE_FAILURE');
    expect((snapshot as Error).message).toMatch(/^tenant gamma: /);
    const after = await listKeys(s3.client, BUCKET, '');
    expect(after.filter((k) => !k.startsWith('lake/tenants/gamma/'))).toEqual(
      before.filter((k) => !k.startsWith('lake/tenants/gamma/')),
    );
  });

  it('fails that tenant alone in the daily run across tenants: the summary, its metric and the error name it', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    let run: TenantsExecution;
    try {
      run = await runTenantsRun(
        s3.client,
        { tenants: ['acme', 'beta', 'gamma'] },
        { runId: 'daily-1', caps: { overall: 2, perEndpoint: 1, perTenant: 1 }, context: withTime },
      );
    } finally {
      spy.mockRestore();
    }

    expect(run.failed).toBe(true);
    const message = String((run.result as Error).message);
    expect(message).toMatch(/^1 of 3 tenants failed: gamma \(Plan: \w+: tenant gamma: /);
    expect(message).not.toMatch(/acme|beta \(/);
    expect(run.planned.find((p) => p.tenant === 'gamma')).toHaveProperty('planError');
    for (const id of ['acme', 'beta'])
      expect(run.outcomes.find((o) => o.tenant === id)?.summary, id).toMatchObject({ failed: 0 });
    // acme and gamma share an endpoint capped at one lane; beta's endpoint has its own.
    expect(run.laneUnits).toHaveLength(2);
    expect(run.laneUnits.map((l) => [...new Set(l.map((u) => u.tenant))].join()).sort()).toEqual([
      'acme',
      'beta',
    ]);
    // Each tenant's figure of the run, under its id: what its alarm watches.
    const failedOf = new Map<string, number>();
    for (const line of out.flatMap((c) => c.split('\n')).filter((l) => l.includes('"UnitsFailed"'))) {
      const m = JSON.parse(line) as Record<string, unknown>;
      if (m.function === 'tenants-summary') failedOf.set(String(m.tenant), Number(m.UnitsFailed));
    }
    expect(Object.fromEntries(failedOf)).toEqual({ acme: 0, beta: 0, gamma: 1 });
    // The run's lanes are removed at its end, failed or not.
    expect(await listKeys(s3.client, BUCKET, 'lake/_runs/')).toEqual([]);
  });
});
