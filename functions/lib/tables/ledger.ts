// The ledger tables' column lists: the JSON records the functions append (export/ledger.ts,
// costs/days/restatements.ts) and the Glue tables over them (infra/ledger-tables.ts) both follow them.

import { exportTables } from './all-tables.ts';

export type LedgerType = 'string' | 'bigint' | 'double';

export interface LedgerColumn {
  readonly name: string;
  readonly type: LedgerType;
  readonly description: string;
}

export interface LedgerTableDef {
  readonly name: string;
  /** The export or restatement day (UTC), a projected string partition; or, with `values`, an enum. */
  readonly partitionKey: string;
  /** The partition's values when it is not a day: a projected enum (the rollup's table names). */
  readonly values?: readonly string[];
  readonly description: string;
  readonly columns: readonly LedgerColumn[];
}

const col = (name: string, type: LedgerType, description: string): LedgerColumn => ({
  name,
  type,
  description,
});

export const exportUnitsTable: LedgerTableDef = {
  name: 'export_units',
  partitionKey: 'export_date',
  description:
    'Run ledger: one row per exported unit version (table, partition, data source or scope), ' +
    'appended at export time and never rewritten',
  columns: [
    col('table_name', 'string', 'The exported table'),
    col('partition_value', 'string', "The unit's partition: billed_date, billed_month or snapshot_date"),
    col('source', 'string', 'Data source id (costs) or object name of the scope (domain or workspace id)'),
    col('scope', 'string', "The app's scope, for inventory and unified costs"),
    col(
      'object_key',
      'string',
      'Key of the Parquet object under the export prefix; null: no rows, no object',
    ),
    col('row_count', 'bigint', 'Rows written'),
    col('total_count', 'bigint', 'Rows Cloudforet reported for the listing'),
    col('cost_sum', 'double', 'Sum of cost over the rows (costs)'),
    col(
      'analyze_rows',
      'bigint',
      "Costs: rows of the day in Cloudforet's cost/analyze when the unit was planned (every sync job's); null: not planned from analyze",
    ),
    col('analyze_cost_sum', 'double', "Costs: the day's cost sum in cost/analyze when the unit was planned"),
    col('bytes', 'bigint', "The object's size in bytes"),
    col('schema_version', 'bigint', "The table's schema version"),
    col('run_id', 'string', 'The run (Lambda request id or CLI run id) that exported it'),
    col('exported_at', 'string', 'When it was exported, ISO 8601 UTC'),
    col('last_synchronized_at', 'string', "Cloudforet's last sync of the data source when exported"),
    col('change_check', 'string', 'JSON: what the change check compared (e.g. per-attribution groups)'),
  ],
};

export const costRestatementsTable: LedgerTableDef = {
  name: 'cost_restatements',
  partitionKey: 'restated_date',
  description:
    'Append-only history of published cost days replaced or removed, with old and new figures ' +
    'and the reason; outlives the expiry of noncurrent S3 versions',
  columns: [
    col('data_source_id', 'string', 'The data source'),
    col('billed_date', 'string', 'The cost day restated, YYYY-MM-DD'),
    col('outcome', 'string', 'replaced (new object) or removed (the day has no rows any more)'),
    col('reason', 'string', "The plan's reason: e.g. rows-changed, cost-changed, forced"),
    col('old_rows', 'bigint', 'Rows published before'),
    col('old_cost_sum', 'double', 'Cost sum published before'),
    col('old_run_id', 'string', 'The run that published the old figures'),
    col('old_exported_at', 'string', 'When the old figures were exported, ISO 8601 UTC'),
    col('new_rows', 'bigint', 'Rows published now'),
    col('new_cost_sum', 'double', 'Cost sum published now'),
    col('run_id', 'string', 'The run that restated the day'),
    col('restated_at', 'string', 'When, ISO 8601 UTC'),
    col(
      'evidence',
      'string',
      'What proved it: the figures that differ, or what confirmed a removed day empty',
    ),
    col('revision_key', 'string', 'Where the replaced object is kept for good (the revisions table)'),
  ],
};

/**
 * The run ledger rolled up: the latest line of each unit (table, partition, source, scope), one
 * object per exported table and source, rewritten by each run from the previous rollup and the
 * lines appended since (export/ledger-rollup.ts). What freshness, completeness and reconciliation
 * ask (the latest state of each billed day) without reading every line ever written.
 */
export const exportUnitsLatestTable: LedgerTableDef = {
  name: 'export_units_latest',
  partitionKey: 'table_name',
  values: [...exportTables.map((t) => t.name)],
  description:
    'Run ledger rollup: the latest export_units row of each unit (table, partition, source, scope), rewritten ' +
    'by each run from the previous rollup and the lines since; the lines stay the audit trail',
  // The partition is the table name: the columns are export_units' but that one.
  columns: exportUnitsTable.columns.filter((c) => c.name !== 'table_name'),
};

/** The identity kinds named by their snapshots: the table, its id, name and reference columns. */
export interface NameKind {
  readonly kind: string;
  readonly table: string;
  readonly id: string;
  readonly name: string | null;
  readonly ref: string | null;
}

export const nameKinds: readonly NameKind[] = [
  { kind: 'workspace', table: 'workspaces', id: 'workspace_id', name: 'name', ref: null },
  { kind: 'project', table: 'projects', id: 'project_id', name: 'name', ref: 'project_group_id' },
  { kind: 'group', table: 'project_groups', id: 'project_group_id', name: 'name', ref: 'parent_group_id' },
  {
    kind: 'account',
    table: 'service_accounts',
    id: 'service_account_id',
    name: 'name',
    ref: 'trusted_account_id',
  },
  { kind: 'payer', table: 'trusted_accounts', id: 'trusted_account_id', name: 'name', ref: 'account_id' },
  // A virtual workspace id and the workspace it routes to (no name of its own).
  { kind: 'routing', table: 'data_source_accounts', id: 'v_workspace_id', name: null, ref: 'workspace_id' },
];

/**
 * The identity snapshots as validity ranges (inventory/name-ranges.ts): per kind and id, one row
 * per run of consecutive snapshot days with the same name and reference, so "the name on a day"
 * is one range join instead of a join with every snapshot day.
 */
export const identityNamesTable: LedgerTableDef = {
  name: 'identity_names',
  partitionKey: 'kind',
  values: nameKinds.map((k) => k.kind),
  description:
    'Identity names as validity ranges, maintained from the daily snapshots as they arrive: per kind and id, ' +
    'one row per run of consecutive snapshot days with the same name and reference',
  columns: [
    col(
      'id',
      'string',
      'The id: workspace, project, project group, service or trusted account, virtual workspace',
    ),
    col('name', 'string', 'Its name over the range (routing: null)'),
    col(
      'ref',
      'string',
      'What it points to over the range: project group (project), parent group (group), trusted account ' +
        '(service account), provider account id (trusted account), workspace (routing)',
    ),
    col('first_seen', 'string', 'The first snapshot day of the range, YYYY-MM-DD'),
    col(
      'last_seen',
      'string',
      'The last snapshot day of the range; every day from first_seen to it has a snapshot holding the id',
    ),
    col(
      'valid_from',
      'string',
      "The range names days from this day on; null for the id's first range (it also names earlier days)",
    ),
    col(
      'valid_to',
      'string',
      "The range names days before this one (the id's next range's first_seen); null: still current",
    ),
  ],
};

/**
 * One line per superseded object kept for good (destination/gate.ts keepRevision): which unit, where its
 * bytes are, from when to when it was current and why it stopped. Appended when the replacing
 * object is committed (or the old one removed), before the unit's manifest.
 */
export const revisionsTable: LedgerTableDef = {
  name: 'revisions',
  partitionKey: 'superseded_date',
  description:
    'Every superseded object kept for good: the unit, where its bytes are (the <table>_revisions tables), ' +
    'when it stopped being current and why; one line per revision, never rewritten',
  columns: [
    col('table_name', 'string', 'The table whose object was superseded, e.g. costs, focus, costs_monthly'),
    col('partition_value', 'string', "The unit's partition: billed_date, billed_month or x_billing_period"),
    col('unit', 'string', "The unit's object name: a data source id, or a scope (domain, a workspace id)"),
    col('object_key', 'string', 'The key the object was current under'),
    col('revision_key', 'string', 'Where its bytes are kept: <table>_revisions/…/<name>~<sha256 16>.parquet'),
    col('revision_sha256', 'string', "The kept bytes' SHA-256"),
    col('revision_bytes', 'bigint', 'Their size in bytes'),
    col('revision_rows', 'bigint', 'The rows they hold (as their manifest counted)'),
    col(
      'current_since',
      'string',
      "When the superseded object was exported (its rows' exported_at), ISO 8601",
    ),
    col(
      'superseded_at',
      'string',
      'When it stopped being current: the exported_at of the object replacing it, or of the removal',
    ),
    col('outcome', 'string', 'replaced (a new object under the same key) or removed (no object since)'),
    col('reason', 'string', "Why: the plan's reason (costs, e.g. cost-changed), or what the table follows"),
    col(
      'evidence',
      'string',
      "What proved it: the gate's proof of a removal or a shrink, or the rows before and after",
    ),
    col('new_rows', 'bigint', 'Rows of the replacing object (0: removed)'),
    col('run_id', 'string', 'The run that superseded it'),
  ],
};

export const ledgerTables: readonly LedgerTableDef[] = [
  exportUnitsTable,
  costRestatementsTable,
  revisionsTable,
  exportUnitsLatestTable,
  identityNamesTable,
];
