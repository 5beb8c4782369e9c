// Budgets and their monthly usage, snapshotted like inventory. Usage is read through
// budget-usage/analyze, whose numbers are doubles: the list verb's are 32-bit floats.

import type { AnalyzeRequest } from '../cloudforet/analyze-pages.ts';
import type { ApiRecord } from '../cloudforet/pager.ts';
import type { TableDef } from '../parquet/columns.ts';
import {
  doubleColumn,
  exportedAtColumn,
  jsonColumn,
  textColumn,
  timestampColumn,
} from '../parquet/columns.ts';

/** The same shape as an inventory snapshot's context (not imported: inventory.ts imports this). */
interface InventoryContext {
  readonly exportedAtMs: number;
}
type InventoryTableDef = TableDef<ApiRecord, InventoryContext>;

const text = textColumn<InventoryContext>;
const time = timestampColumn<InventoryContext>;
const double = doubleColumn<InventoryContext>;

const SNAPSHOT = 'One file per snapshot_date and scope (domain, or one workspace id).';

export const budgetTable: InventoryTableDef = {
  name: 'budgets',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: `Cloudforet budgets (budget/list). ${SNAPSHOT}`,
  columns: [
    text('budget_id', 'Cloudforet budget id'),
    text('name', 'Budget name'),
    text('state', 'SCHEDULED, ACTIVE or EXPIRED'),
    double(
      'limit',
      "TOTAL: the whole budget; MONTHLY: this month's planned limit (exact per month: budget_usage)",
    ),
    jsonColumn<InventoryContext>(
      'planned_limits',
      'MONTHLY only: [{"date": "YYYY-MM", "limit": …}] as a JSON string',
    ),
    text('currency', "The budget's currency; its usage is in it"),
    text('time_unit', 'TOTAL or MONTHLY'),
    text('start', 'First month, YYYY-MM'),
    text('end', 'Last month, YYYY-MM'),
    double('utilization_rate', 'Cloudforet-computed utilization, percent'),
    jsonColumn<InventoryContext>('tags', 'Tags as a JSON object string'),
    text('resource_group', 'PROJECT, or WORKSPACE for budgets from older versions'),
    text('service_account_id', 'Cloudforet service account'),
    text('project_id', 'Cloudforet project (PROJECT budgets)'),
    text('workspace_id', 'Cloudforet workspace'),
    text('domain_id', 'Cloudforet domain'),
    time('created_at', 'Created (UTC)'),
    time('updated_at', 'Last updated (UTC)'),
    exportedAtColumn<InventoryContext>(),
  ],
};

export const budgetUsageTable: InventoryTableDef = {
  name: 'budget_usage',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description:
    "Each budget's cost and limit per month, in the budget's currency, computed by Cloudforet from " +
    `unified costs (so it shares their gaps); read through budget-usage/analyze as doubles. ${SNAPSHOT}`,
  columns: [
    text('budget_id', 'Cloudforet budget id; joins to budgets.budget_id'),
    text('name', 'Budget name'),
    text('billed_month', 'The month, YYYY-MM (Cloudforet calls it date)', 'date'),
    double('cost', "Cost of the month in the budget's currency"),
    double('limit', "Limit of the month in the budget's currency"),
    text('currency', "The budget's currency"),
    text('resource_group', 'PROJECT or WORKSPACE'),
    text('service_account_id', 'Cloudforet service account'),
    text('project_id', 'Cloudforet project'),
    text('workspace_id', 'Cloudforet workspace'),
    exportedAtColumn<InventoryContext>(),
  ],
};

/**
 * Budget usage per budget and month, summed by analyze: its `cost` and `limit` are doubles. The
 * group keys are every field of a usage row, so each group is one row (budget_id, date is unique).
 */
export const budgetUsageAnalyze: AnalyzeRequest = {
  path: '/cost-analysis/budget-usage/analyze',
  groupBy: [
    'budget_id',
    'date',
    'name',
    'currency',
    'resource_group',
    'service_account_id',
    'project_id',
    'workspace_id',
  ],
  fields: {
    cost: { key: 'cost', operator: 'sum' },
    limit: { key: 'limit', operator: 'sum' },
  },
  sort: ['budget_id', 'date'],
  identify: (r) => `${String(r.budget_id)}/${String(r.date)}`,
};
