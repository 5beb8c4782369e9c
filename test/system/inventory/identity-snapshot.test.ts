// The identity snapshot tables through the real CLI: every id and name the simulator holds comes
// back exactly (awkward names included), for a domain app and for a workspace owner app, which
// reads its own workspace through workspace/analyze; a workspace member app may not, and says so.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { utcDay } from '../../../functions/lib/dates.ts';
import { type Row, readWithArrow } from '../../../harness/parquet-readers.ts';
import { type RecordKind, type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { fakeIo } from '../../support/fake-io.ts';

// A snapshot is always of today (Cloudforet lists its inventory only as it is now).
const DAY = utcDay(new Date());
const ID_KEYS: Record<Exclude<RecordKind, 'data_source_accounts'>, string> = {
  workspaces: 'workspace_id',
  project_groups: 'project_group_id',
  projects: 'project_id',
  service_accounts: 'service_account_id',
  trusted_accounts: 'trusted_account_id',
  providers: 'provider',
};
const TABLES = Object.keys(ID_KEYS) as (keyof typeof ID_KEYS)[];

/** (id, name) pairs, sorted, as both the API records and the Parquet rows hold them. */
const idNames = (rows: readonly Row[], idKey: string) =>
  rows.map((r) => [r[idKey], r.name ?? null]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe('identity snapshots (workspaces, project groups, projects, accounts, providers)', () => {
  let simulator: Simulator;
  let dir: string;
  /** The domain app's export into 'domain', which the tests below read. */
  let domainExport: { code: number; summary: Record<string, unknown> };

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 15, workspaces: 3, cloudServices: 50 });
    dir = await mkdtemp(join(tmpdir(), 'identity-'));
    domainExport = await exportAs(simulator.issueToken(), 'domain');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function exportAs(token: string, out: string) {
    const secretFile = join(dir, `${out}.secret`);
    await writeFile(secretFile, token);
    const io = fakeIo();
    const argv = ['inventory', '--endpoint', simulator.url, '--secret-file', secretFile];
    const code = await main([...argv, '--out', join(dir, out), '--snapshot-date', DAY, '--json'], {}, io);
    return { code, summary: JSON.parse(io.out()) };
  }
  const rowsOf = async (out: string, table: string, scope: string) =>
    readWithArrow(await readFile(join(dir, out, table, `snapshot_date=${DAY}`, `${scope}.parquet`))).rows;

  it('round-trips every identity table exactly for a domain app', async () => {
    const { code, summary } = domainExport;

    expect(code).toBe(0);
    expect(summary.skipped).toEqual([]);
    for (const table of TABLES) {
      const rows = await rowsOf('domain', table, 'domain');
      expect(idNames(rows, ID_KEYS[table]), table).toEqual(idNames(simulator.records(table), ID_KEYS[table]));
    }
  });

  it('keeps awkward names byte for byte: non-ASCII, quotes, slashes, long, repeated', async () => {
    const projects = await rowsOf('domain', 'projects', 'domain');
    const names = projects.map((p) => String(p.name));

    expect(names.some((n) => n.length > 100 && n.includes('"') && n.includes('/') && /ü/.test(n))).toBe(true);
    expect(new Set(names).size).toBeLessThan(names.length);
    expect(new Set(projects.map((p) => p.workspace_id)).size).toBe(3);
  });

  it('never exports user ids, and takes the provider account id out of data', async () => {
    const projects = await rowsOf('domain', 'projects', 'domain');
    const accounts = await rowsOf('domain', 'service_accounts', 'domain');
    const truth = new Map(simulator.records('service_accounts').map((r) => [r.service_account_id, r]));

    expect(Object.keys(projects[0]!)).not.toContain('users');
    expect(JSON.stringify(projects)).not.toContain('user-alice');
    for (const row of accounts) {
      const data = truth.get(row.service_account_id)!.data as Record<string, string>;
      expect(Object.values(data)).toContain(row.account_id);
      expect(row.trusted_account_id ?? undefined).toBe(truth.get(row.service_account_id)!.trusted_account_id);
    }
  });

  it('exports what a workspace owner app may see, its own workspace included; nothing skipped', async () => {
    const workspaceId = simulator.workspaceIds()[1]!;
    const token = simulator.issueToken({ role: 'WORKSPACE_OWNER', workspaceId });

    const { code, summary } = await exportAs(token, 'workspace');

    expect(code).toBe(0);
    expect(summary.failed).toBe(0);
    expect(summary.skipped).toEqual([]);
    for (const table of TABLES) {
      const rows = await rowsOf('workspace', table, workspaceId);
      const truth = simulator.records(table, workspaceId);
      expect(idNames(rows, ID_KEYS[table]), table).toEqual(idNames(truth, ID_KEYS[table]));
    }
    const projects = await rowsOf('workspace', 'projects', workspaceId);
    expect(new Set(projects.map((p) => p.workspace_id))).toEqual(new Set([workspaceId]));
  });

  it("reads a workspace owner app's own workspace row through workspace/analyze", async () => {
    const workspaceId = simulator.workspaceIds()[0]!;
    const token = simulator.issueToken({ role: 'WORKSPACE_OWNER', workspaceId });
    simulator.resetRequestLog();

    await exportAs(token, 'own-workspace');
    const [row, ...others] = await rowsOf('own-workspace', 'workspaces', workspaceId);

    expect(others).toEqual([]);
    expect(row).toMatchObject({
      workspace_id: workspaceId,
      name: 'Platform',
      state: 'ENABLED',
      domain_id: simulator.domainId,
      tags: null,
      created_at: null,
    });
    const paths = simulator.requests.map((r) => r.path);
    expect(paths).toContain('/identity/workspace/analyze');
    expect(paths).not.toContain('/identity/workspace/list');
  });

  it('fails loudly when a domain app is refused, and skips for a workspace app refused trusted accounts', async () => {
    const workspaceId = simulator.workspaceIds()[2]!;
    simulator.injectFault({ path: '/identity/trusted-account/list', kind: '403', times: 2 });

    const domain = await exportAs(simulator.issueToken(), 'refused-domain');
    const workspace = await exportAs(
      simulator.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId }),
      'refused-ws',
    );

    expect(domain.code).toBe(1);
    expect(domain.summary.failures).toEqual([
      expect.objectContaining({ table: 'trusted_accounts', code: 'CLOUDFORET_ERROR_PERMISSION_DENIED' }),
    ]);
    expect(workspace.summary.failures).toEqual([]);
    expect(workspace.code).toBe(0);
    expect(workspace.summary.skipped).toEqual([
      {
        table: 'workspaces',
        reason: `/identity/workspace/analyze answered 403 to workspace ${workspaceId}: this app's role may not read it; nothing written`,
      },
      expect.objectContaining({ table: 'trusted_accounts' }),
    ]);
  });
});
