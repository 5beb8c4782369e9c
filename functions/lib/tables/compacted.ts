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
function passThrough(name: string, type: ColumnType, description: string, from = name): Column<Row, unknown> {
  return { name, type, description, value: (r) => asWritten(type, r[from]) };
}

export interface CompactedTable extends TableDef<Row, unknown> {
  /** The daily table whose objects it compacts. */
  readonly daily: TableDef<never, never>;
  /** The daily table's day partition, a data column here. */
  readonly dayColumn: string;
  /** Daily columns stored here under another name (the view names them back). */
  readonly renamed: Readonly<Record<string, string>>;
  /** A daily column that equals the month of every row: the partition here, not a column. */
  readonly monthColumn?: string;
}

function compactedOf(
  daily: TableDef<never, never>,
  name: string,
  partitionKey: 'billed_month' | 'x_billing_period',
  dayColumn: string,
  dayDescription: string,
  renamed: Readonly<Record<string, string>> = {},
): CompactedTable {
  const monthColumn = daily.columns.some((c) => c.name === partitionKey) ? partitionKey : undefined;
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
      ...daily.columns
        .filter((c) => c.name !== monthColumn)
        .map((c) => {
          const stored = renamed[c.name];
          return stored
            ? passThrough(stored, c.type, `${c.description} (the ${daily.name} column ${c.name})`, c.name)
            : passThrough(c.name, c.type, c.description);
        }),
      passThrough(dayColumn, 'string', dayDescription),
    ],
    daily,
    dayColumn,
    renamed,
    ...(monthColumn && { monthColumn }),
  };
}

/**
 * costs_monthly/billed_month=YYYY-MM/<data source>.parquet: costs' billed_month column is the
 * partition here (compaction checks that every row's is the month), so a filter on billed_month
 * prunes the compacted months as billed_date prunes the days.
 */
export const costsMonthlyTable = compactedOf(
  costTable as TableDef<never, never>,
  'costs_monthly',
  'billed_month',
  'billed_date',
  'YYYY-MM-DD: the daily object the row came from (the costs partition)',
);

/**
 * focus_monthly/x_billing_period=YYYY-MM/<data source>.parquet: the focus table's month key.
 * BilledCost is stored as x_BilledCost: FOCUS discovery (CID from v1.2.0 takes every external
 * table with FOCUS's 21 minimum columns as one more FOCUS source and unions them) must not find
 * the compacted copy, or every compacted row would count twice; focus_combined names it back.
 */
export const focusMonthlyTable = compactedOf(
  focusTable as TableDef<never, never>,
  'focus_monthly',
  'x_billing_period',
  'x_charge_day',
  'DD: the charge day of the daily object the row came from (the focus partition)',
  { BilledCost: 'x_BilledCost' },
);

export const compactedTables: readonly CompactedTable[] = [costsMonthlyTable, focusMonthlyTable];

/**
 * compaction_state: one JSON line a daily table (destination/compaction-state.ts), not Parquet and not
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
  ],
} as const;
