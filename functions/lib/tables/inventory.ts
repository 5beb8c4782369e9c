// The inventory snapshot tables and the list verb that fills each: Cloudforet fields by their own
// names, nested objects flattened one level, free-form objects as JSON, typed columns from `data`.

import type { ApiRecord } from '../cloudforet/pager.ts';
import {
  doubleColumn,
  exportedAtColumn,
  getter,
  json,
  jsonColumn,
  str,
  textColumn,
  timestampColumn,
} from '../parquet/columns.ts';
import { budgetTable, budgetUsageAnalyze, budgetUsageTable } from './budgets.ts';
import { identitySources } from './identity.ts';
import type { InventoryContext, InventorySource, InventoryTableDef } from './inventory-table.ts';

export type { InventoryContext, InventorySource, InventoryTableDef };

const text = textColumn<InventoryContext>;
const object = jsonColumn<InventoryContext>;
const time = timestampColumn<InventoryContext>;
const double = doubleColumn<InventoryContext>;
const exportedAt = exportedAtColumn<InventoryContext>();

const pluginCurrency = getter('plugin_info.metadata.currency');

const SNAPSHOT = 'One file per snapshot_date and scope (domain, or one workspace id).';

export const cloudServiceTable: InventoryTableDef = {
  name: 'cloud_services',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloud services from Cloudforet inventory as listed on the snapshot day. ${SNAPSHOT}`,
  columns: [
    text('cloud_service_id', 'Cloudforet cloud service id'),
    text('name', 'Resource name'),
    text('state', 'ACTIVE, DISCONNECTED or DELETED (non-ACTIVE only with includeInactive)'),
    text('account', 'Provider account id'),
    text('instance_type', 'Provider instance type, e.g. m5.large'),
    double('instance_size', 'Instance size as the collector reports it'),
    {
      name: 'ip_addresses',
      type: 'json',
      description: 'IP addresses as a JSON array string ([] when the API omits the empty list)',
      value: (r) => json(r.ip_addresses ?? []),
    },
    text('cloud_service_group', 'e.g. EC2'),
    text('cloud_service_type', 'e.g. Instance'),
    text('provider', 'Cloud provider, e.g. aws, google_cloud, azure'),
    object('data', 'Collector-defined resource data as a JSON object string'),
    object('tags', 'Tags nested by provider, e.g. {"aws": {"Name": "web-01"}}, as a JSON string'),
    object('tag_keys', 'Tag keys nested by provider, as a JSON string'),
    text('region_code', 'Provider region code'),
    text('ref_region', 'provider.region_code; joins to regions.region_key'),
    text('project_id', 'Cloudforet project'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    text('reference_resource_id', 'Provider resource id; joins to costs.resource', 'reference.resource_id'),
    text('reference_external_link', 'Link to the provider console', 'reference.external_link'),
    text(
      'collection_info_service_account_id',
      'Service account that collected it',
      'collection_info.service_account_id',
    ),
    text('collection_info_secret_id', 'Secret the collector used', 'collection_info.secret_id'),
    text('collection_info_collector_id', 'Collector that reported it', 'collection_info.collector_id'),
    time('collection_info_last_collected_at', 'Last collection (UTC)', 'collection_info.last_collected_at'),
    time('created_at', 'Created in Cloudforet (UTC)'),
    time('updated_at', 'Last updated in Cloudforet (UTC)'),
    time('deleted_at', 'Marked deleted (UTC)'),
    time('last_seen_at', 'Last seen by a collector (UTC)'),
    double('cpu_cores', 'data.hardware.core', 'data.hardware.core'),
    double('memory_gb', 'data.hardware.memory (GB)', 'data.hardware.memory'),
    text('instance_state', 'data.compute.instance_state, e.g. RUNNING', 'data.compute.instance_state'),
    text('availability_zone', 'data.compute.az', 'data.compute.az'),
    time(
      'launched_at',
      'data.compute.launched_at in UTC (no zone is read as UTC)',
      'data.compute.launched_at',
    ),
    text('os_type', 'data.os.os_type, e.g. LINUX', 'data.os.os_type'),
    text('os_distro', 'data.os.os_distro, e.g. ubuntu', 'data.os.os_distro'),
    exportedAt,
  ],
};

export const regionTable: InventoryTableDef = {
  name: 'regions',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet regions; rows are per workspace, so a region_code can repeat. ${SNAPSHOT}`,
  columns: [
    text('region_id', 'Cloudforet region id'),
    text('name', 'Display name'),
    text('region_key', 'provider.region_code'),
    text('region_code', 'Provider region code'),
    text('provider', 'Cloud provider'),
    object('tags', 'Tags (e.g. latitude, longitude) as a JSON object string'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    time('updated_at', 'Last updated (UTC)'),
    exportedAt,
  ],
};

export const dataSourceTable: InventoryTableDef = {
  name: 'data_sources',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet cost data sources. ${SNAPSHOT}`,
  columns: [
    text('data_source_id', 'Cloudforet cost data source id'),
    text('name', 'Display name'),
    text('state', 'e.g. ENABLED'),
    text('data_source_type', 'e.g. EXTERNAL'),
    text('provider', 'Cloud provider'),
    {
      name: 'currency',
      type: 'string',
      description: "plugin_info.metadata.currency; USD when the plugin names none (the costs' currency)",
      value: (r) => str(pluginCurrency(r)) ?? 'USD',
    },
    text('plugin_id', 'plugin_info.plugin_id', 'plugin_info.plugin_id'),
    text('plugin_version', 'plugin_info.version', 'plugin_info.version'),
    object('schedule', 'Sync schedule as a JSON object string'),
    text('resource_group', 'DOMAIN or WORKSPACE'),
    text('workspace_id', "Owning workspace ('*' for a domain data source)"),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    time('last_synchronized_at', 'Last successful cost sync (UTC)'),
    exportedAt,
  ],
};

export const dataSourceAccountTable: InventoryTableDef = {
  name: 'data_source_accounts',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Provider accounts of cost data sources, with their virtual workspace routing. ${SNAPSHOT}`,
  columns: [
    text('account_id', 'Provider account id'),
    text('data_source_id', 'Cloudforet cost data source'),
    text('name', 'Display name'),
    {
      name: 'is_sync',
      type: 'string',
      description: "'true' or 'false' (the API omits false)",
      value: (r) => (r.is_sync === true ? 'true' : 'false'),
    },
    text('v_workspace_id', 'Virtual workspace id that cost rows carry; joins to costs.v_workspace_id'),
    text('workspace_id', 'Real workspace it maps to (null when unlinked)'),
    text('project_id', 'Cloudforet project (null when unlinked)'),
    text('service_account_id', 'Cloudforet service account'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    time('updated_at', 'Last updated (UTC)'),
    exportedAt,
  ],
};

export const INACTIVE_STATES = ['ACTIVE', 'DISCONNECTED', 'DELETED'];
/** Cloud services carry big `data` objects; smaller row groups keep memory bounded. */
export const CLOUD_SERVICE_ROW_GROUP_ROWS = 10_000;

export const inventorySources: readonly InventorySource[] = [
  {
    table: cloudServiceTable,
    // Keyset pages: the one listing that grows to 100,000s of rows, whose deep offsets would make
    // the server sort every row before the page (docs/incremental-exports.md, paging).
    list: { path: '/inventory/cloud-service/list', idKey: 'cloud_service_id', keyset: true },
    hidesInactive: true,
    rowGroupRows: CLOUD_SERVICE_ROW_GROUP_ROWS,
  },
  { table: regionTable, list: { path: '/inventory/region/list', idKey: 'region_id' } },
  { table: dataSourceTable, list: { path: '/cost-analysis/data-source/list', idKey: 'data_source_id' } },
  {
    table: dataSourceAccountTable,
    list: {
      path: '/cost-analysis/data-source-account/list',
      sort: ['data_source_id'],
      idKey: 'account_id',
      identify: (r: ApiRecord) => `${String(r.data_source_id)}/${String(r.account_id)}`,
    },
  },
  ...identitySources,
  { table: budgetTable, list: { path: '/cost-analysis/budget/list', idKey: 'budget_id' } },
  {
    table: budgetUsageTable,
    list: { path: budgetUsageAnalyze.path, idKey: 'budget_id' },
    analyze: budgetUsageAnalyze,
  },
];

export const inventoryTables: readonly InventoryTableDef[] = inventorySources.map((s) => s.table);
