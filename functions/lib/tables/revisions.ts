// The revisions tables: every object a later export replaced or removed, kept for good under
// `<table>_revisions/` (storage/gate.ts keepRevision), byte for byte, so its columns are the
// table's own. The `revisions` ledger table says of each when it stopped being current and why.
import type { TableDef } from '../parquet/columns.ts';
import { compactedTables } from './compacted.ts';
import { costTable } from './costs.ts';
import { focusTable } from './focus.ts';
import { unifiedCostTable } from './unified-costs.ts';

type AnyTable = TableDef<never, never>;

/** The tables with a `<table>_versions` view (infra/queries): their as-of reads. */
const VERSIONED = new Set(['costs', 'focus']);

function revisionsOf(table: AnyTable): AnyTable {
  return {
    ...table,
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

export const revisionTables: readonly AnyTable[] = revisedTables.map(revisionsOf);
