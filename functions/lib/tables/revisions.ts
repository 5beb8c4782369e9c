// The revisions tables: every object a later export replaced or removed, kept for good under
// `<table>_revisions/` (destination/gate.ts keepRevision), byte for byte, so its columns are the
// table's own. The `revisions` ledger table says of each when it stopped being current and why.
import type { TableDef } from '../parquet/columns.ts';
import { compactedTables } from './compacted.ts';
import { costTable } from './costs.ts';
import { focusTable } from './focus.ts';
import { unifiedCostTable } from './unified-costs.ts';

type AnyTable = TableDef<never, never>;

/** A revisions table whose Glue columns are read by position, some renamed from the files' names. */
export interface RevisionsTable extends AnyTable {
  /** The file's column name -> the name the Glue table declares at its position. */
  readonly byPosition?: Readonly<Record<string, string>>;
}

/**
 * CID's discovery takes any external table with FOCUS's minimum columns for a FOCUS table and
 * unions it: focus_revisions would count every superseded row. As in focus_monthly, its Glue table
 * names BilledCost x_BilledCost; the files keep the focus table's names (they are its objects,
 * byte for byte), so Athena reads the columns by position (parquet.column.index.access).
 */
const HIDDEN_FROM_CID: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  focus: { BilledCost: 'x_BilledCost' },
};

/** The tables with a `<table>_versions` view (infra/queries): their as-of reads. */
const VERSIONED = new Set(['costs', 'focus']);

function revisionsOf(table: AnyTable): RevisionsTable {
  const renamed = HIDDEN_FROM_CID[table.name];
  return {
    ...table,
    ...(renamed && {
      byPosition: renamed,
      columns: table.columns.map((c) =>
        renamed[c.name]
          ? {
              ...c,
              name: renamed[c.name]!,
              description: `${c.description} (the ${table.name} column ${c.name})`,
            }
          : c,
      ),
    }),
    name: `${table.name}_revisions`,
    description:
      `Every ${table.name} object a later export replaced or removed, kept whole and for good (the columns ` +
      `are ${table.name}'s); the revisions ledger table says when each stopped being current and why` +
      (VERSIONED.has(table.name)
        ? `, and the ${table.name}_versions view reads it with ${table.name} as of any time.`
        : '.'),
  };
}

/** The tables a restatement replaces objects of: their revisions are kept. */
export const revisedTables: readonly AnyTable[] = [
  costTable as AnyTable,
  focusTable as AnyTable,
  unifiedCostTable() as AnyTable,
  ...(compactedTables as readonly AnyTable[]),
];

export const revisionTables: readonly RevisionsTable[] = revisedTables.map(revisionsOf);
