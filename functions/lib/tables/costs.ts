// The costs table: Cloudforet cost fields by their own names, plus what the row lacks.

import type { ApiRecord } from '../cloudforet/pager.ts';
import {
  exportedAtColumn,
  jsonColumn,
  str,
  type TableDef,
  textColumn,
  zeroIfOmitted,
} from '../parquet/columns.ts';

/** What a cost row needs besides itself: from its data source and the run. */
export interface CostContext {
  readonly currency: string;
  /** v-workspace id -> real workspace id, from data-source-account/list. */
  readonly workspaceOfVirtual: ReadonlyMap<string, string | undefined>;
  readonly exportedAtMs: number;
}

const text = textColumn<CostContext>;
const object = jsonColumn<CostContext>;

const isVirtual = (id: unknown): id is string => typeof id === 'string' && id.startsWith('v-workspace-');

export const costTable: TableDef<ApiRecord, CostContext> = {
  name: 'costs',
  partitionKey: 'billed_date',
  schemaVersion: 1,
  description: 'Daily cost rows from Cloudforet cost-analysis, one file per data source and billed_date.',
  // Product first (usage types and details hang off it), then where and whose, then the
  // resource: 11 % fewer bytes than the API's cost_id order (docs/performance.md).
  clusterBy: ['product', 'region_code', 'account_id', 'resource', 'usage_type', 'additional_info'],
  columns: [
    text('cost_id', 'Cloudforet cost row id; changes when a sync re-inserts the month'),
    {
      name: 'cost',
      type: 'double',
      description: 'Cost in `currency` (0 when the API omits it)',
      value: (r) => zeroIfOmitted(r.cost),
    },
    {
      name: 'usage_quantity',
      type: 'double',
      description: 'Usage amount in `usage_unit` (0 when the API omits it)',
      value: (r) => zeroIfOmitted(r.usage_quantity),
    },
    text('usage_unit', 'Unit of usage_quantity'),
    text('provider', 'Cloud provider, e.g. aws, google_cloud, azure'),
    text('region_code', 'Provider region code'),
    text('region_key', 'provider.region_code'),
    text('product', 'Provider product or service'),
    text('usage_type', 'Provider usage type'),
    text('resource', 'Provider resource id; joins to cloud_services.reference_resource_id'),
    object('tags', 'Resource tags as a JSON object string'),
    object('additional_info', 'Plugin-defined details as a JSON object string'),
    object('data', 'Plugin-defined data as a JSON object string'),
    text('domain_id', 'Cloudforet domain'),
    {
      name: 'workspace_id',
      type: 'string',
      description: 'Workspace; a virtual workspace id is replaced by the real one it maps to',
      value: (r, c) =>
        isVirtual(r.workspace_id) ? (c.workspaceOfVirtual.get(r.workspace_id) ?? null) : str(r.workspace_id),
    },
    {
      name: 'v_workspace_id',
      type: 'string',
      description: 'The original virtual workspace id, where the row carried one',
      value: (r) => (isVirtual(r.workspace_id) ? r.workspace_id : null),
    },
    text('project_id', 'Cloudforet project'),
    text('service_account_id', 'Cloudforet service account'),
    text('data_source_id', 'Cloudforet cost data source'),
    text('account_id', 'Provider account id'),
    text('billed_year', 'YYYY'),
    text('billed_month', 'YYYY-MM'),
    {
      name: 'currency',
      type: 'string',
      description: "The data source's plugin currency (USD when the plugin names none)",
      value: (_r, c) => c.currency,
    },
    exportedAtColumn<CostContext>(),
  ],
};
