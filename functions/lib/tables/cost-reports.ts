// Cloudforet's cost reports (its monthly invoice of record), their data rows and the statuses the
// exporter saw them in. Field names follow cost-analysis' models (model/cost_report*/database.py).
// A report's `cost` object holds its total in every supported currency: one DOUBLE column each,
// plus `cost` in the report's own currency.
import type { ApiRecord } from '../cloudforet/pager.ts';
import {
  type Column,
  exportedAtColumn,
  jsonColumn,
  num,
  type TableDef,
  textColumn,
  timestampColumn,
} from '../parquet/columns.ts';
import { currencyColumnName, SUPPORTED_CURRENCIES } from './unified-costs.ts';

export interface ReportContext {
  readonly exportedAtMs: number;
}

type ReportColumn = Column<ApiRecord, ReportContext>;
export type ReportTableDef = TableDef<ApiRecord, ReportContext>;

const text = textColumn<ReportContext>;
const time = timestampColumn<ReportContext>;

/** The cost of a record in one currency (its `cost` object's key). */
export function costIn(record: ApiRecord, currency: unknown): number | null {
  if (typeof currency !== 'string') return null;
  return num((record.cost as Record<string, unknown> | undefined)?.[currency]);
}

const currencyColumns: ReportColumn[] = SUPPORTED_CURRENCIES.map((currency) => ({
  name: currencyColumnName(currency),
  type: 'double',
  description: `Cost in ${currency} (cost.${currency})`,
  value: (r) => costIn(r, currency),
}));

const flag = (name: string, description: string): ReportColumn => ({
  name,
  type: 'string',
  description: `${description}: 'true' or 'false' (the API omits false)`,
  value: (r) => (r[name] === true ? 'true' : 'false'),
});

export const costReportTable: TableDef<ApiRecord, ReportContext> = {
  name: 'cost_reports',
  partitionKey: 'report_month',
  schemaVersion: 1,
  description:
    "Cloudforet's cost reports, one row per report version (cost_report_id). A DONE or EXPIRED report is " +
    'archived once, in its own file named by its id, and never rewritten; an IN_PROGRESS or ADJUSTING one ' +
    'is a draft file per config and workspace, replaced until the month is DONE. The status a report has ' +
    'now is in cost_report_status.',
  columns: [
    text('cost_report_id', 'Cloudforet cost report id: one version of a month’s report'),
    text(
      'report_number',
      'CostReport_YYMMDD#### (report month and issue day, then an index); a regenerated report may reuse the number of the one it expires',
    ),
    text('status', 'IN_PROGRESS, ADJUSTING, DONE or EXPIRED, as listed when the row was archived'),
    text('currency', 'The currency the report is issued in (its config’s)'),
    {
      name: 'cost',
      type: 'double',
      description: "The report's total in its own currency (cost[currency])",
      value: (r) => costIn(r, r.currency),
    },
    ...currencyColumns,
    jsonColumn<ReportContext>(
      'cost_json',
      'The whole cost object ({"KRW": …, "USD": …}) as a JSON string',
      'cost',
    ),
    flag('is_adjusted', 'Whether adjustment policies changed the total'),
    text('currency_date', 'YYYY-MM-DD of the exchange rates used'),
    text('issue_date', 'YYYY-MM-DD the report is issued'),
    text('report_year', 'YYYY'),
    text('name', 'Workspace, project or service account name, per the config’s scope'),
    text('bank_name', 'Where the rates came from'),
    text('cost_report_config_id', 'Cloudforet cost report config'),
    text('service_account_id', 'Service account (SERVICE_ACCOUNT scope)'),
    text('project_id', 'Project (PROJECT scope)'),
    text('workspace_id', 'Workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'When Cloudforet created the report (UTC)'),
    time('updated_at', 'When Cloudforet last updated it (UTC), as listed'),
    exportedAtColumn<ReportContext>(),
  ],
};

export const costReportDataTable: TableDef<ApiRecord, ReportContext> = {
  name: 'cost_report_data',
  partitionKey: 'report_month',
  schemaVersion: 1,
  description:
    "The rows of each cost report (cost-report-data): its workspace's unified costs of the month per project, " +
    'service account, data source, product and provider, and one row per adjustment (is_adjusted). One file per ' +
    'archived report (by cost_report_id), written once; drafts beside them, replaced until DONE.',
  columns: [
    text('cost_report_data_id', 'Cloudforet cost report data id'),
    text('cost_report_id', 'The report the row belongs to'),
    ...currencyColumns,
    jsonColumn<ReportContext>('cost_json', 'The whole cost object as a JSON string', 'cost'),
    flag('is_confirmed', 'Confirmed when its report became DONE'),
    flag('is_adjusted', 'An adjustment row (report_adjustment_policy_id names its policy)'),
    text('provider', 'Cloud provider'),
    text('product', 'Product, or the adjustment’s name on an adjustment row'),
    text('region_code', 'Region code (the report’s first group’s, as Cloudforet copies it)'),
    text('region_key', 'provider.region_code (as region_code)'),
    text('usage_type', 'Usage type (as region_code)'),
    text('usage_unit', 'Usage unit (as region_code)'),
    text('service_account_name', 'Service account name'),
    text('data_source_name', 'Data source name'),
    text('project_name', 'Project name'),
    text('workspace_name', 'Workspace name'),
    text('cost_report_name', 'Report name, when Cloudforet sets it'),
    text('issue_date', 'YYYY-MM-DD'),
    text('report_year', 'YYYY'),
    text('service_account_id', 'Service account'),
    text('data_source_id', 'Cost data source'),
    text('cost_report_config_id', 'Cost report config'),
    text('report_adjustment_policy_id', 'The adjustment policy that made this row'),
    text('project_id', 'Project'),
    text('workspace_id', 'Workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'When Cloudforet created the row (UTC)'),
    exportedAtColumn<ReportContext>(),
  ],
};

/** One observed fact: a report seen in a status for the first time (or seen gone). */
export interface StatusFact extends ApiRecord {
  readonly cost_report_id: string;
  readonly status: string;
  readonly previous_status: string | null;
  readonly observed_at: string;
  readonly run_id: string;
}

export const costReportStatusTable: TableDef<ApiRecord, ReportContext> = {
  name: 'cost_report_status',
  partitionKey: 'report_month',
  schemaVersion: 1,
  description:
    'Append-only status history of cost reports: one row each time a run first sees a report in a status ' +
    '(IN_PROGRESS, ADJUSTING, DONE, EXPIRED, or DELETED when a draft Cloudforet replaced is no longer listed). ' +
    "A report's current status is its row with the latest observed_at; nothing archived is rewritten.",
  columns: [
    text('cost_report_id', 'The report'),
    text('status', 'The status seen'),
    text('previous_status', 'The status recorded before, if any'),
    text('report_number', 'Its report number'),
    text('currency', 'Its currency'),
    {
      name: 'cost',
      type: 'double',
      description: 'Its total in its own currency when seen (null for DELETED)',
      value: (r) => costIn(r, r.currency),
    },
    flag('is_adjusted', 'Adjusted when seen'),
    text('cost_report_config_id', 'Its config'),
    text('workspace_id', 'Its workspace'),
    text('project_id', 'Its project (PROJECT scope)'),
    text('service_account_id', 'Its service account (SERVICE_ACCOUNT scope)'),
    time('updated_at', "Cloudforet's updated_at when seen (UTC)"),
    time('observed_at', 'When the run listed it (UTC)'),
    text('run_id', 'The cost run that saw it'),
    exportedAtColumn<ReportContext>(),
  ],
};

/**
 * Adjustments with their policy: what made a report's adjustment rows. Records are the adjustments
 * of report-adjustment/list with their policy's fields under `policy` (report-adjustment-policy/list).
 */
export const reportAdjustmentTable: TableDef<ApiRecord, ReportContext> = {
  name: 'report_adjustments',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description:
    "Cloudforet's report adjustments (FIXED or PERCENT) with their adjustment policy (scope, order, filter): " +
    'a daily snapshot written by the cost-report pass, domain apps only (Cloudforet lists them to DOMAIN_ADMIN). ' +
    'Their effect on a report is in cost_report_data (is_adjusted rows, report_adjustment_policy_id).',
  columns: [
    text('report_adjustment_id', 'Cloudforet report adjustment id'),
    text('name', 'The adjustment’s name: the product of its report rows'),
    text('unit', 'FIXED or PERCENT'),
    {
      name: 'value',
      type: 'double',
      description: 'FIXED: an amount in `currency`; PERCENT: a percentage of the matched rows',
      value: (r) => num(r.value),
    },
    text('currency', 'FIXED: the value’s currency'),
    text('provider', 'The provider whose rows it applies to (its rows carry it)'),
    {
      name: 'order',
      type: 'double',
      description: 'Order within its policy (a whole number)',
      value: (r) => num(r.order),
    },
    jsonColumn<ReportContext>('adjustment_filter', 'Extra row filter, as JSON'),
    text('description', 'Description'),
    text('report_adjustment_policy_id', 'Its policy'),
    text('policy_scope', 'The policy’s scope: WORKSPACE, PROJECT or SERVICE_ACCOUNT', 'policy.scope'),
    {
      name: 'policy_order',
      type: 'double',
      description: 'The policy’s order (policies apply in this order)',
      value: (r) => num((r.policy as ApiRecord | undefined)?.order),
    },
    jsonColumn<ReportContext>(
      'policy_filter',
      'The policy’s filter (workspace_ids, project_ids, …), as JSON',
      'policy.policy_filter',
    ),
    text('policy_description', 'The policy’s description', 'policy.description'),
    text('cost_report_config_id', 'The cost report config'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'When Cloudforet created the adjustment (UTC)'),
    time('updated_at', 'When Cloudforet last updated it (UTC)'),
    exportedAtColumn<ReportContext>(),
  ],
};

/**
 * A statement's reconciliation with its workspace's DONE cost report, as the statement record keeps
 * it (statements/reconcile.ts computes it; alerts/report-alerts.ts reads it back).
 */
export interface Reconciliation {
  readonly costReportId: string;
  readonly reportNumber: string;
  /** The report's currency: the one both totals are compared in. */
  readonly currency: string;
  readonly reportTotal: number;
  /** The statement's rows summed in the report's currency. */
  readonly statementTotal: number;
  readonly difference: number;
  readonly reconciled: boolean;
  /** What the difference is made of, each in the report's currency; empty when reconciled. */
  readonly explained: ReadonlyArray<{ readonly cause: string; readonly amount: number }>;
}
