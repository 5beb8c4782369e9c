// The compacted tables: one object per data source and confirmed month, holding exactly the rows
// of that month's daily objects (costs, focus), rewritten by the exporter's own writer
// (functions/lib/compaction/). The columns are the daily table's, read back and written again as
// they are (no column computes anything here), plus the daily table's day partition as a data
// column, since one object now holds a month of days. Views read confirmed months from these and
// the others from the daily tables (docs/performance.md, "Compacting confirmed months").
import type { Column, ColumnType, TableDef } from '../parquet/columns.ts';
import { costTable } from './costs.ts';
import { focusTable } from './focus.ts';

type Row = Record<string, unknown>;

/** A value read back from Parquet (hyparquet) as the writer takes it again. */
function asWritten(type: ColumnType, value: unknown): unknown {
  if (value === undefined) return null;
  if (type === 'timestamp' && value instanceof Date) return value.getTime();
  return value;
}

/** The same column, its value the row's own (already computed when the daily object was written). */
function passThrough(name: string, type: ColumnType, description: string): Column<Row, unknown> {
  return { name, type, description, value: (r) => asWritten(type, r[name]) };
}

export interface CompactedTable extends TableDef<Row, unknown> {
  /** The daily table whose objects it compacts. */
  readonly daily: TableDef<never, never>;
  /** The daily table's day partition, a data column here. */
  readonly dayColumn: string;
}

function compactedOf(
  daily: TableDef<never, never>,
  name: string,
  partitionKey: 'compacted_month' | 'x_billing_period',
  dayColumn: string,
  dayDescription: string,
): CompactedTable {
  return {
    name,
    partitionKey,
    // The daily table's version: a column change there changes both.
    schemaVersion: daily.schemaVersion,
    description:
      `${daily.name} rows of confirmed months, one object per data source and month, compacted from the ` +
      `daily objects (which stay the source of truth); read through the ${daily.name}_combined view.`,
    ...(daily.clusterBy && { clusterBy: daily.clusterBy }),
    columns: [
      ...daily.columns.map((c) => passThrough(c.name, c.type, c.description)),
      passThrough(dayColumn, 'string', dayDescription),
    ],
    daily,
    dayColumn,
  };
}

/** costs_monthly/compacted_month=YYYY-MM/<data source>.parquet (costs has billed_month as a column). */
export const costsMonthlyTable = compactedOf(
  costTable as TableDef<never, never>,
  'costs_monthly',
  'compacted_month',
  'billed_date',
  'YYYY-MM-DD: the daily object the row came from (the costs partition)',
);

/** focus_monthly/x_billing_period=YYYY-MM/<data source>.parquet: the focus table's month key. */
export const focusMonthlyTable = compactedOf(
  focusTable as TableDef<never, never>,
  'focus_monthly',
  'x_billing_period',
  'x_charge_day',
  'DD: the charge day of the daily object the row came from (the focus partition)',
);

export const compactedTables: readonly CompactedTable[] = [costsMonthlyTable, focusMonthlyTable];

/**
 * compaction_state: one JSON line a daily table (storage/compaction-state.ts), not Parquet and not
 * partitioned; the combined views read it to know which months are compacted.
 */
export const compactionStateTable = {
  name: 'compaction_state',
  description:
    'Through which month the views costs_combined and focus_combined read each daily table from its compacted objects.',
  columns: [
    { name: 'table_name', type: 'string', description: 'The daily table: costs or focus' },
    {
      name: 'through_month',
      type: 'string',
      description: 'YYYY-MM: months up to this one are read compacted; null: none',
    },
    { name: 'through_date', type: 'string', description: 'YYYY-MM-DD, the last day of through_month' },
    { name: 'updated_at', type: 'string', description: 'When the cost run last moved it (UTC, ISO 8601)' },
  ],
} as const;
