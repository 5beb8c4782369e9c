// The unified_costs table: Cloudforet's monthly unified costs, whose `cost` object holds the
// month's cost in every supported currency. Each currency key becomes its own DOUBLE column.

import type { ApiRecord } from '../cloudforet/pager.ts';
import {
  exportedAtColumn,
  jsonColumn,
  num,
  type TableDef,
  textColumn,
  timestampColumn,
} from '../parquet/columns.ts';

export interface UnifiedCostContext {
  readonly exportedAtMs: number;
}

export type UnifiedCostTableDef = TableDef<ApiRecord, UnifiedCostContext>;

/** Cloudforet's SUPPORTED_CURRENCIES: always columns, so Glue and every file agree on them. */
export const SUPPORTED_CURRENCIES = ['KRW', 'USD', 'JPY'] as const;

const text = textColumn<UnifiedCostContext>;
const time = timestampColumn<UnifiedCostContext>;

/** cost_krw for KRW; any other key is lower-cased with anything but [a-z0-9] as '_'. */
export function currencyColumnName(currency: string): string {
  return `cost_${currency.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

function currencyColumn(currency: string): UnifiedCostTableDef['columns'][number] {
  return {
    name: currencyColumnName(currency),
    type: 'double',
    description: `The row's cost in ${currency} at the month's rate (cost.${currency})`,
    value: (r) => num((r.cost as Record<string, unknown> | undefined)?.[currency]),
  };
}

/**
 * The table for a listing whose cost objects hold `currencies` (besides the supported ones, whose
 * columns are always there). Columns of extra currencies go after the supported ones.
 */
export function unifiedCostTable(currencies: readonly string[] = []): UnifiedCostTableDef {
  const supported = new Set<string>(SUPPORTED_CURRENCIES);
  const extra = [...new Set(currencies)].filter((c) => !supported.has(c)).sort();
  return {
    name: 'unified_costs',
    partitionKey: 'billed_month',
    schemaVersion: 1,
    description:
      "Cloudforet's unified costs: each month's cost per workspace, project, service account, data source, " +
      'product, region and usage type, in every supported currency at the rate of the month. ' +
      'One file per billed_month and scope (domain, or one workspace id), replaced whole by each cost run.',
    columns: [
      text('unified_cost_id', 'Cloudforet unified cost id; changes at each daily aggregation'),
      ...[...SUPPORTED_CURRENCIES, ...extra].map(currencyColumn),
      jsonColumn<UnifiedCostContext>('cost', 'The whole cost object ({"KRW": …, "USD": …}) as a JSON string'),
      text('currency', 'Origin currency: the data source plugin currency the costs were reported in'),
      {
        name: 'usage_quantity',
        type: 'double',
        description: 'Usage summed over the month (null when the API omits it)',
        value: (r) => num(r.usage_quantity),
      },
      text('billed_year', 'YYYY'),
      text('exchange_date', 'YYYY-MM-DD of the exchange rate used'),
      text('exchange_source', 'Where the rate came from, as Cloudforet names it (also when it fell back)'),
      text('aggregation_date', 'YYYY-MM-DD Cloudforet aggregated this row'),
      {
        name: 'is_confirmed',
        type: 'string',
        description:
          "'true' once Cloudforet confirmed (closed) the month, else 'false' (the API omits false)",
        value: (r) => (r.is_confirmed === true ? 'true' : 'false'),
      },
      text('provider', 'Cloud provider, e.g. aws, google_cloud, azure'),
      text('region_code', 'Provider region code'),
      text('region_key', 'provider.region_code'),
      text('product', 'Provider product or service'),
      text('usage_type', 'Provider usage type'),
      text('usage_unit', 'Unit of usage_quantity'),
      text('service_account_name', 'Service account name'),
      text('data_source_name', 'Data source name'),
      text('project_name', 'Project name (Cloudforet puts the project id here when it has no name)'),
      text('workspace_name', 'Workspace name'),
      text('service_account_id', 'Cloudforet service account'),
      text('data_source_id', 'Cloudforet cost data source'),
      text('project_id', 'Cloudforet project'),
      text('workspace_id', 'Real workspace (virtual workspaces already folded in)'),
      text('domain_id', 'Cloudforet domain'),
      time('created_at', 'When Cloudforet created the row (UTC)'),
      exportedAtColumn<UnifiedCostContext>(),
    ],
  };
}

/** Currency keys of the cost objects of some records. */
export function currencyKeys(records: readonly ApiRecord[]): string[] {
  const keys = new Set<string>();
  for (const r of records) {
    if (r.cost && typeof r.cost === 'object') for (const k of Object.keys(r.cost)) keys.add(k);
  }
  return [...keys];
}
