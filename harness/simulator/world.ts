// The static part of the simulated domain: workspaces, projects, provider accounts, data
// sources and regions. Small, so it is built once; cost rows are generated elsewhere on demand.

import { dayToMs } from './calendar.ts';
import { PROVIDERS, type Provider, REGIONS } from './catalog.ts';
import { hashInts, stableId } from './prng.ts';

export type ApiRecord = Record<string, unknown>;

export interface Account {
  readonly accountId: string;
  readonly name: string;
  readonly provider: Provider;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly serviceAccountId: string;
}

export interface DataSourceAccount extends Account {
  readonly vWorkspaceId: string;
  /** False for the one account of a routed data source that no workspace claims. */
  readonly linked: boolean;
}

export interface DataSource {
  readonly id: string;
  readonly index: number;
  readonly provider: Provider;
  /** Rows carry the account's virtual workspace id instead of the real one. */
  readonly routed: boolean;
  readonly accounts: readonly DataSourceAccount[];
  readonly createdAt: string;
  lastSynchronizedMs: number;
}

export interface World {
  readonly seed: number;
  readonly domainId: string;
  readonly workspaces: readonly ApiRecord[];
  readonly accounts: Record<Provider, readonly Account[]>;
  readonly dataSources: readonly DataSource[];
  readonly regions: readonly ApiRecord[];
  /** Day numbers of the inclusive range that has cost rows. */
  readonly fromDay: number;
  readonly toDay: number;
}

export interface WorldOptions {
  seed: number;
  dataSources: number;
  workspaces: number;
  fromDay: number;
  toDay: number;
}

/** A timestamp `daysBefore` the cost range starts, jittered by the parts that name it. */
type Base = Pick<World, 'seed' | 'fromDay' | 'toDay'>;

export function pastTimestamp(world: Base, daysBefore: number, ...parts: number[]): string {
  const jitter = hashInts(world.seed, ...parts) % 86_400_000;
  return new Date(dayToMs(world.fromDay - daysBefore) + jitter).toISOString();
}

/** Awkward on purpose (non-ASCII, `/` and quotes): the names people really give. */
const WORKSPACE_NAMES = ['Platform', 'Données & Analytics / "Σ"'];

export function buildWorld(opts: WorldOptions): World {
  const { seed } = opts;
  const domainId = stableId('domain', seed, 'domain');
  const base = { seed, fromDay: opts.fromDay, toDay: opts.toDay };
  const workspaces = Array.from({ length: opts.workspaces }, (_, i) => ({
    workspace_id: stableId('workspace', seed, 'workspace', i),
    name: WORKSPACE_NAMES[i] ?? `Workspace ${i + 1} — 東京`,
    state: 'ENABLED',
    tags: { env: i % 2 === 0 ? 'prod' : 'dev' },
    domain_id: domainId,
    created_at: pastTimestamp(base, 400 - i, 10, i),
  }));
  const workspaceIds = workspaces.map((w) => w.workspace_id);
  const accounts = {} as Record<Provider, Account[]>;
  for (const provider of PROVIDERS) accounts[provider] = buildAccounts(seed, provider, workspaceIds);
  const dataSources = Array.from({ length: opts.dataSources }, (_, index) =>
    buildDataSource(base, index, accounts),
  );
  const regions = buildRegions(base, domainId, workspaceIds);
  return {
    seed,
    domainId,
    workspaces,
    accounts,
    dataSources,
    regions,
    fromDay: opts.fromDay,
    toDay: opts.toDay,
  };
}

function accountIdFor(seed: number, provider: Provider, k: number): string {
  const h = hashInts(seed, 20, k, provider.length);
  if (provider === 'aws') return String(100_000_000_000 + (h % 899_999_999) * 1000 + k).slice(0, 12);
  if (provider === 'google_cloud')
    return `project-${['alpha', 'beta', 'gamma', 'delta', 'omega'][k % 5]}-${h % 100_000}`;
  const hex = stableId('x', seed, 'azure', k).slice(2);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(1, 4)}-a${hex.slice(5, 8)}-${hex}`;
}

function buildAccounts(seed: number, provider: Provider, workspaceIds: readonly string[]): Account[] {
  const count = workspaceIds.length * 2 + 1;
  return Array.from({ length: count }, (_, k) => {
    const workspaceId = workspaceIds[k % workspaceIds.length] ?? '';
    return {
      accountId: accountIdFor(seed, provider, k),
      name: `${provider}-account-${k + 1}`,
      provider,
      workspaceId,
      projectId: stableId('project', seed, workspaceId, k % 2),
      serviceAccountId: stableId('sa', seed, provider, k),
    };
  });
}

function buildDataSource(
  base: Base,
  index: number,
  accounts: Record<Provider, readonly Account[]>,
): DataSource {
  const provider = PROVIDERS[index % PROVIDERS.length] ?? 'aws';
  const id = stableId('ds', base.seed, 'data-source', index);
  const routed = index === 1;
  const own = accounts[provider];
  return {
    id,
    index,
    provider,
    routed,
    accounts: own.map((account, k) => ({
      ...account,
      vWorkspaceId: stableId('v-workspace', base.seed, id, account.accountId),
      linked: !(routed && k === own.length - 1),
    })),
    createdAt: pastTimestamp(base, 300, 30, index),
    // The last scheduled sync ran at the schedule hour (16 UTC) of the range's last day.
    lastSynchronizedMs: dayToMs(base.toDay) + 16 * 3_600_000,
  };
}

function buildRegions(base: Base, domainId: string, workspaceIds: readonly string[]) {
  const rows: ApiRecord[] = [];
  for (const workspaceId of workspaceIds) {
    for (const provider of PROVIDERS) {
      for (const code of REGIONS[provider]) {
        const createdAt = pastTimestamp(base, 200, 40, rows.length);
        rows.push({
          region_id: stableId('region', base.seed, workspaceId, provider, code),
          name: `${provider} ${code}`,
          region_key: `${provider}.${code}`,
          region_code: code,
          provider,
          tags: { latitude: 37.56 + rows.length / 10, longitude: 126.97 },
          workspace_id: workspaceId,
          domain_id: domainId,
          created_at: createdAt,
          updated_at: createdAt,
        });
      }
    }
  }
  return rows;
}
