// What a snapshot holds: one workspace for a workspace app, retired resources on request, and a
// failed table that leaves the others published. Through the Lambda handler, on loopback AWS.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/inventory-export.ts';
import { utcDay } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';

const context = { awsRequestId: 'req-inv-scope', functionName: 'inventory-export' } as Context;
// A snapshot is always of today; tests that list a day's keys take a prefix of their own.
const TODAY = utcDay(new Date());
const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

describe('inventory snapshot scope and selection', () => {
  let local: LocalAws;
  let restoreEnv: () => void;

  beforeAll(async () => {
    local = await startLocalAws({ seed: 33, cloudServices: 400, workspaces: 3 });
    restoreEnv = local.applyEnv({ LOG_LEVEL: 'error' });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    restoreEnv();
    await local.stop();
  });

  const readObject = async (key: string) =>
    readWithArrow(await getObjectBytes(local.s3.client, BUCKET, `${PREFIX}/${key}`)).rows;

  it('exports only its workspace for a workspace app, under the workspace id, and says so', async () => {
    const workspaceId = local.simulator.workspaceIds()[1]!;
    const token = local.simulator.issueToken({ role: 'WORKSPACE_OWNER', workspaceId });
    local.secrets.set('cloudforet/workspace-app', consoleAppJson(token));
    const restore = local.applyEnv({ CLOUDFORET_SECRET_ID: 'cloudforet/workspace-app', LOG_LEVEL: 'error' });

    const summary = await handler({ snapshotDate: TODAY }, context).finally(restore);
    const rows = await readObject(`cloud_services/snapshot_date=${TODAY}/${workspaceId}.parquet`);

    expect(summary.scope).toBe(`workspace ${workspaceId}`);
    expect(rows.length).toBe(sum(local.simulator.cloudServiceTruth({ workspaceId })));
    expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set([workspaceId]));
    expect(summary.tables.cloud_services).toMatchObject({
      outcome: 'written',
      key: `cloud_services/snapshot_date=${TODAY}/${workspaceId}.parquet`,
    });
  });

  it('keeps a domain snapshot and a workspace snapshot of the same day side by side', async () => {
    const workspaceId = local.simulator.workspaceIds()[2]!;
    local.secrets.set(
      'cloudforet/workspace-app-2',
      consoleAppJson(local.simulator.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId })),
    );

    const prefix = 'inventory-side-by-side';
    const restorePrefix = local.applyEnv({ EXPORT_PREFIX: prefix, LOG_LEVEL: 'error' });

    const domain = await handler({ snapshotDate: TODAY }, context).catch((e) => {
      restorePrefix();
      throw e;
    });
    const restore = local.applyEnv({
      CLOUDFORET_SECRET_ID: 'cloudforet/workspace-app-2',
      EXPORT_PREFIX: prefix,
      LOG_LEVEL: 'error',
    });
    await handler({ snapshotDate: TODAY }, context).finally(() => {
      restore();
      restorePrefix();
    });
    const keys = await listKeys(local.s3.client, BUCKET, `${prefix}/cloud_services/snapshot_date=${TODAY}/`);

    expect(domain.scope).toBe(`domain ${local.simulator.domainId}`);
    expect(keys.sort()).toEqual([
      `${prefix}/cloud_services/snapshot_date=${TODAY}/domain.parquet`,
      `${prefix}/cloud_services/snapshot_date=${TODAY}/${workspaceId}.parquet`,
    ]);
  });

  it('lists only ACTIVE cloud services by default, as Cloudforet does', async () => {
    await handler({ snapshotDate: TODAY }, context);

    const rows = await readObject(`cloud_services/snapshot_date=${TODAY}/domain.parquet`);

    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['ACTIVE']));
    expect(rows.length).toBe(sum(local.simulator.cloudServiceTruth()));
  });

  it('adds DISCONNECTED and DELETED cloud services with includeInactive', async () => {
    const summary = await handler({ snapshotDate: TODAY, includeInactive: true }, context);

    const rows = await readObject(`cloud_services/snapshot_date=${TODAY}/domain.parquet`);

    expect(summary.includeInactive).toBe(true);
    expect(rows.length).toBe(sum(local.simulator.cloudServiceTruth({ includeInactive: true })));
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['ACTIVE', 'DISCONNECTED', 'DELETED']));
    expect(rows.filter((r) => r.state === 'DELETED').length).toBeGreaterThan(0);
  });

  it('publishes the other tables and then throws when one table fails', async () => {
    local.simulator.injectFault({ path: '/inventory/region/list', kind: '401' });

    const prefix = 'inventory-one-fails';
    const restore = local.applyEnv({ EXPORT_PREFIX: prefix, LOG_LEVEL: 'error' });

    const failure = await handler({ snapshotDate: TODAY }, context)
      .catch((e: Error) => e)
      .finally(restore);
    const keys = await listKeys(local.s3.client, BUCKET, `${prefix}/`);

    expect(failure).toMatchObject({ name: 'RunFailedError', code: 'RUN_FAILED' });
    expect((failure as Error).message).toContain('regions');
    expect((failure as Error).message).toContain('ERROR_AUTHENTICATE_FAILURE');
    expect(keys).toContain(`${prefix}/cloud_services/snapshot_date=${TODAY}/domain.parquet`);
    expect(keys).toContain(`${prefix}/data_source_accounts/snapshot_date=${TODAY}/domain.parquet`);
    expect(keys).not.toContain(`${prefix}/regions/snapshot_date=${TODAY}/domain.parquet`);
  });

  it('rejects unknown keys, bad dates and past days before calling Cloudforet, naming them', async () => {
    local.simulator.resetRequestLog();

    const unknown = await handler({ snapshotDate: TODAY, date: '2026-04-06' }, context).catch((e) => e);
    const badDate = await handler({ snapshotDate: '2026-02-30' }, context).catch((e) => e);
    const past = await handler({ snapshotDate: '2026-01-15' }, context).catch((e) => e);

    expect(unknown).toMatchObject({ code: 'EVENT_UNKNOWN_KEYS' });
    expect(unknown.message).toContain('date');
    expect(badDate).toMatchObject({ code: 'EVENT_BAD_DATE' });
    expect(badDate.message).toContain('2026-02-30');
    expect(past).toMatchObject({ code: 'EVENT_SNAPSHOT_NOT_TODAY' });
    expect(local.simulator.requests).toEqual([]);
  });
});
