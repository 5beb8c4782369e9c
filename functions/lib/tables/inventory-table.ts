// What every inventory snapshot table shares: its row context and the list verb that fills it.

import type { AnalyzeRequest } from '../cloudforet/analyze-pages.ts';
import type { ApiRecord, ListRequest } from '../cloudforet/pager.ts';
import type { TableDef } from '../parquet/columns.ts';

/** What a snapshot row needs besides itself. */
export interface InventoryContext {
  readonly exportedAtMs: number;
}

export type InventoryTableDef = TableDef<ApiRecord, InventoryContext>;

/** One table and the list verb that fills it. */
export interface InventorySource {
  readonly table: InventoryTableDef;
  readonly list: Omit<ListRequest, 'filter' | 'pageLimit'>;
  /** Read through this analyze verb instead of the list verb. */
  readonly analyze?: AnalyzeRequest;
  /**
   * What a workspace app reads instead of the list verb it may not call (workspace/list): an
   * analyze verb its role may call, answering for its own workspace only.
   */
  readonly workspaceAppAnalyze?: AnalyzeRequest;
  /** Cloudforet hides non-ACTIVE records unless the query filters on state. */
  readonly hidesInactive?: boolean;
  /**
   * A workspace app may be refused it (workspace/list always is): its 403 skips the table, with
   * the reason, instead of failing the run. A domain app's 403 still fails loudly.
   */
  readonly workspaceAppMayBeRefused?: boolean;
  /** Rows per row group: the memory bound for this table. */
  readonly rowGroupRows?: number;
}
