// The identity records of the simulated domain: project groups (nested three deep), projects,
// service accounts, trusted (payer) accounts and providers. Ids are the ones cost rows and cloud
// services carry; names are awkward on purpose: non-ASCII, repeated across workspaces, with `/`
// and quotes inside, and long, because real ones are.

import { PROVIDERS, type Provider } from './catalog.ts';
import { omitEmpty } from './omit-empty.ts';
import { stableId } from './prng.ts';
import { type Account, type ApiRecord, pastTimestamp, type World } from './world.ts';

export interface Identity {
  readonly projectGroups: readonly ApiRecord[];
  readonly projects: readonly ApiRecord[];
  readonly serviceAccounts: readonly ApiRecord[];
  readonly trustedAccounts: readonly ApiRecord[];
  readonly providers: readonly ApiRecord[];
}

/** Root, child, grandchild; the same names in every workspace. */
const GROUP_NAMES = ['Platform', 'Payments / Card "EU"', 'Équipe données — 東京'];
const PROJECT_NAMES = [
  'Core',
  `It's a "very" long project name / with slashes, quotes and ünïcödé ${'x'.repeat(90)}`,
];
const PROVIDER_NAMES: Record<Provider, [string, string]> = {
  aws: ['AWS', 'aws'],
  google_cloud: ['Google Cloud', 'gcp'],
  azure: ['Azure', 'azure'],
};

export function buildIdentity(world: World): Identity {
  const projectGroups = world.workspaces.flatMap((w) => groupsOf(world, w['workspace_id'] as string));
  const projects = world.workspaces.flatMap((w) => projectsOf(world, w['workspace_id'] as string));
  const trustedAccounts = PROVIDERS.map((p) => trustedAccount(world, p));
  const serviceAccounts = PROVIDERS.flatMap((p) =>
    world.accounts[p].map((a, k) => serviceAccount(world, a, k)),
  );
  const providers = PROVIDERS.map((provider, i) => ({
    provider,
    name: PROVIDER_NAMES[provider][0],
    alias: PROVIDER_NAMES[provider][1],
    order: i + 1,
    created_at: pastTimestamp(world, 500, 90, i),
  }));
  return { projectGroups, projects, serviceAccounts, trustedAccounts, providers };
}

export const projectGroupId = (world: World, workspaceId: string, depth: number): string =>
  stableId('pg', world.seed, workspaceId, depth);

function groupsOf(world: World, workspaceId: string): ApiRecord[] {
  return GROUP_NAMES.map((name, depth) =>
    omitEmpty({
      project_group_id: projectGroupId(world, workspaceId, depth),
      name,
      parent_group_id: depth === 0 ? '' : projectGroupId(world, workspaceId, depth - 1),
      users: ['user-admin@example.com'],
      workspace_id: workspaceId,
      domain_id: world.domainId,
      created_at: pastTimestamp(world, 380, 91, depth),
    }),
  );
}

/** The two projects accounts point at (world.ts: project k % 2): one deep, one at the root. */
function projectsOf(world: World, workspaceId: string): ApiRecord[] {
  return PROJECT_NAMES.map((name, k) => ({
    project_id: stableId('project', world.seed, workspaceId, k),
    name,
    project_type: k === 0 ? 'PRIVATE' : 'PUBLIC',
    users: ['user-alice@example.com', 'user-bob@example.com'],
    tags: { owner: k === 0 ? 'platform' : 'données' },
    project_group_id: projectGroupId(world, workspaceId, k === 0 ? GROUP_NAMES.length - 1 : 0),
    workspace_id: workspaceId,
    domain_id: world.domainId,
    created_at: pastTimestamp(world, 360, 92, k),
  }));
}

/** Where the provider keeps the account id in a service account's `data`. */
const ACCOUNT_FIELD: Record<Provider, string> = {
  aws: 'account_id',
  google_cloud: 'project_id',
  azure: 'subscription_id',
};

function serviceAccount(world: World, account: Account, k: number): ApiRecord {
  return omitEmpty({
    service_account_id: account.serviceAccountId,
    name: k % 3 === 2 ? `Compte « ${account.provider} » / "legacy"` : account.name,
    provider: account.provider,
    state: 'ACTIVE',
    data: { [ACCOUNT_FIELD[account.provider]]: account.accountId },
    tags: { tier: k % 2 === 0 ? 'prod' : 'dev' },
    // Every third account is standalone: no payer account bills it.
    trusted_account_id: k % 3 === 1 ? '' : stableId('ta', world.seed, account.provider),
    project_id: account.projectId,
    workspace_id: account.workspaceId,
    domain_id: world.domainId,
    created_at: pastTimestamp(world, 300, 93, k),
  });
}

const PAYER_DATA: Record<Provider, (seed: number) => ApiRecord> = {
  aws: (seed) => ({ account_id: String(900_000_000_000 + seed) }),
  google_cloud: (seed) => ({ billing_account_id: `01ABCD-${String(seed).padStart(6, '0')}-EF0123` }),
  azure: (seed) => ({
    tenant_id: stableId('tenant', seed, 'azure'),
    billing_account_id: `${70_000_000 + seed}`,
  }),
};

function trustedAccount(world: World, provider: Provider): ApiRecord {
  return {
    trusted_account_id: stableId('ta', world.seed, provider),
    name: `${PROVIDER_NAMES[provider][0]} payer — 本社 "HQ"`,
    provider,
    data: PAYER_DATA[provider](world.seed),
    tags: { billing: 'central' },
    resource_group: 'DOMAIN',
    workspace_id: '*',
    domain_id: world.domainId,
    created_at: pastTimestamp(world, 450, 94, provider.length),
  };
}
