// The identity snapshot tables: the names and hierarchy behind the ids cost rows carry
// (workspaces, project groups, projects, service accounts, trusted accounts, providers).
// User ids (`users` on projects and project groups) are never exported.

import type { AnalyzeRequest } from '../cloudforet/analyze-pages.ts';
import type { ApiRecord } from '../cloudforet/pager.ts';
import {
  exportedAtColumn,
  getter,
  jsonColumn,
  str,
  textColumn,
  timestampColumn,
} from '../parquet/columns.ts';
import type { InventoryContext, InventorySource, InventoryTableDef } from './inventory-table.ts';

const text = textColumn<InventoryContext>;
const object = jsonColumn<InventoryContext>;
const time = timestampColumn<InventoryContext>;
const exportedAt = exportedAtColumn<InventoryContext>();

const SNAPSHOT = 'One file per snapshot_date and scope (domain, or one workspace id).';

/** Where providers keep the account id in `data`: AWS, Azure, Google Cloud, then payer-only keys. */
const ACCOUNT_KEYS = ['account_id', 'subscription_id', 'project_id', 'billing_account_id', 'tenant_id'];
const accountGetters = ACCOUNT_KEYS.map((key) => getter(`data.${key}`));

const providerAccountId = (description: string) => ({
  name: 'account_id',
  type: 'string' as const,
  description,
  value: (r: ApiRecord) => accountGetters.map((get) => str(get(r))).find((v) => v !== null) ?? null,
});

export const workspaceTable: InventoryTableDef = {
  name: 'workspaces',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description:
    'Cloudforet workspaces: every one for a domain app (workspace/list); for a workspace owner app its ' +
    'own one, read through workspace/analyze (workspace_id, name, state, domain_id; tags and created_at ' +
    `null). ${SNAPSHOT}`,
  columns: [
    text('workspace_id', 'Cloudforet workspace id'),
    text('name', 'Display name (any characters)'),
    text('state', 'ENABLED or DISABLED'),
    object('tags', 'Tags as a JSON object string'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

export const projectGroupTable: InventoryTableDef = {
  name: 'project_groups',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet project groups; parent_group_id makes the tree. ${SNAPSHOT}`,
  columns: [
    text('project_group_id', 'Cloudforet project group id'),
    text('name', 'Display name; repeats across workspaces'),
    text('parent_group_id', 'Parent project group (null at the root)'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

export const projectTable: InventoryTableDef = {
  name: 'projects',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet projects (never their users). ${SNAPSHOT}`,
  columns: [
    text('project_id', 'Cloudforet project id; joins to costs.project_id'),
    text('name', 'Display name; repeats across workspaces'),
    text('project_type', 'PRIVATE or PUBLIC'),
    text('project_group_id', 'Project group it belongs to (null at the workspace root)'),
    object('tags', 'Tags as a JSON object string'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

export const serviceAccountTable: InventoryTableDef = {
  name: 'service_accounts',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet service accounts: one provider account each. ${SNAPSHOT}`,
  columns: [
    text('service_account_id', 'Cloudforet service account id; joins to costs.service_account_id'),
    text('name', 'Display name (the account name people use)'),
    text('provider', 'Cloud provider'),
    providerAccountId('Provider account id from data (account_id, subscription_id or project_id)'),
    text('state', 'e.g. ACTIVE'),
    object('data', 'Provider account details as a JSON object string (no secrets: those are elsewhere)'),
    object('tags', 'Tags as a JSON object string'),
    text('trusted_account_id', 'Trusted (payer) account that bills it; null when standalone'),
    text('project_id', 'Cloudforet project'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

export const trustedAccountTable: InventoryTableDef = {
  name: 'trusted_accounts',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet trusted accounts: the payer or billing accounts. ${SNAPSHOT}`,
  columns: [
    text('trusted_account_id', 'Cloudforet trusted account id'),
    text('name', 'Display name'),
    text('provider', 'Cloud provider'),
    providerAccountId('Billing account id from data (account_id, billing_account_id or tenant_id)'),
    object('data', 'Provider account details as a JSON object string'),
    object('tags', 'Tags as a JSON object string'),
    text('resource_group', 'DOMAIN or WORKSPACE'),
    text('workspace_id', "Owning workspace ('*' for the domain)"),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

export const providerTable: InventoryTableDef = {
  name: 'providers',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet providers: display names of provider codes. ${SNAPSHOT}`,
  columns: [
    text('provider', 'Provider code, e.g. aws; joins to costs.provider'),
    text('name', 'Display name, e.g. AWS'),
    text('alias', 'Short name'),
    time('created_at', 'Created (UTC)'),
    exportedAt,
  ],
};

/**
 * A workspace app's own workspace: workspace/list is DOMAIN_ADMIN only, workspace/analyze also admits
 * WORKSPACE_OWNER and answers for the token's workspace alone (identity's WorkspaceService.analyze
 * appends a workspace_id filter from the token). Grouping by the record's fields gives one row per
 * workspace; a WORKSPACE_MEMBER app is refused it too (403), and the table is skipped.
 */
export const ownWorkspaceAnalyze: AnalyzeRequest = {
  path: '/identity/workspace/analyze',
  groupBy: ['workspace_id', 'name', 'state', 'domain_id'],
  fields: { records: { key: 'workspace_id', operator: 'count' } },
  sort: ['workspace_id'],
  identify: (r) => String(r.workspace_id),
};

export const identitySources: readonly InventorySource[] = [
  {
    table: workspaceTable,
    list: { path: '/identity/workspace/list', idKey: 'workspace_id' },
    workspaceAppAnalyze: ownWorkspaceAnalyze,
    workspaceAppMayBeRefused: true,
  },
  { table: projectGroupTable, list: { path: '/identity/project-group/list', idKey: 'project_group_id' } },
  { table: projectTable, list: { path: '/identity/project/list', idKey: 'project_id' } },
  {
    table: serviceAccountTable,
    list: { path: '/identity/service-account/list', idKey: 'service_account_id' },
  },
  // Domain-level records: whether a workspace app may list them depends on the release's policies.
  {
    table: trustedAccountTable,
    list: { path: '/identity/trusted-account/list', idKey: 'trusted_account_id' },
    workspaceAppMayBeRefused: true,
  },
  {
    table: providerTable,
    list: { path: '/identity/provider/list', idKey: 'provider' },
    workspaceAppMayBeRefused: true,
  },
];
