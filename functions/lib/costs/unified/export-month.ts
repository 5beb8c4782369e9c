// One unit of unified-cost export: every unified cost row of one billed month that the app can see,
// into unified_costs/billed_month=M/<scope>.parquet, replaced whole like a cost day. The manifest
// keeps the month's confirmation and per-currency totals, so a later run can tell a restatement.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import type { ApiRecord, ListRequest } from '../../cloudforet/pager.ts';
import { manifestKey, objectKey } from '../../destination/layout.ts';
import { parseManifest, type UnitManifest } from '../../destination/manifest.ts';
import { type Compression, exportListing } from '../../export/listing-export.ts';
import type { Sink } from '../../storage/sink.ts';
import { currencyKeys, type UnifiedCostContext, unifiedCostTable } from '../../tables/unified-costs.ts';

const TABLE = unifiedCostTable();

export interface UnifiedMonthDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  /** 'domain', or the workspace id of a workspace app: the object's name. */
  readonly scope: string;
  readonly now?: () => Date;
  readonly rowGroupRows?: number;
  readonly signal?: AbortSignal;
  /** Parquet page codec (PARQUET_COMPRESSION); the writer's default unless set. */
  readonly compression?: Compression;
}

export interface UnifiedMonthManifest extends UnitManifest {
  readonly scope: string;
  readonly isConfirmed: boolean;
  /** Sum of each currency's column over the month. */
  readonly totals: Readonly<Record<string, number>>;
  readonly exchangeDates: readonly string[];
}

export interface UnifiedMonthResult {
  readonly month: string;
  /** kept: the listing came back empty where a month is published; nothing proves it empty. */
  readonly outcome: 'written' | 'removed' | 'empty' | 'kept';
  readonly rows: number;
  readonly bytes: number;
  readonly isConfirmed: boolean;
  readonly totals: Readonly<Record<string, number>>;
  /** What the previous export of this month published, if any. */
  readonly previous?: Pick<UnifiedMonthManifest, 'isConfirmed' | 'totals'>;
}

export function unifiedCostObjectKey(month: string, scope: string): string {
  return objectKey(TABLE, month, scope);
}

export function unifiedCostManifestKey(month: string, scope: string): string {
  return manifestKey(TABLE, month, scope);
}

export function unifiedMonthRequest(month: string): ListRequest {
  return {
    path: '/cost-analysis/unified-cost/list',
    filter: [{ k: 'billed_month', v: month, o: 'eq' }],
    idKey: 'unified_cost_id',
  };
}

export async function exportUnifiedCostMonth(
  deps: UnifiedMonthDeps,
  month: string,
): Promise<UnifiedMonthResult> {
  const now = deps.now?.() ?? new Date();
  const list = unifiedMonthRequest(month);
  const manifestKey = unifiedCostManifestKey(month, deps.scope);
  const previous = parseManifest(await deps.sink.read(manifestKey)) as UnifiedMonthManifest | undefined;
  const tally = new MonthTally();
  const result = await exportListing(deps, {
    list,
    table: TABLE,
    tableFor: (first) => unifiedCostTable(currencyKeys(first)),
    context: { exportedAtMs: now.getTime() } satisfies UnifiedCostContext,
    key: unifiedCostObjectKey(month, deps.scope),
    manifestKey,
    kvMetadata: { billed_month: month, scope: deps.scope, run_id: deps.runId },
    rowGroupRows: deps.rowGroupRows,
    revisionReason: 'the month exported again',
    onPage: (page) => tally.add(page),
    manifest: (published): UnifiedMonthManifest => ({
      table: TABLE.name,
      partition: month,
      scope: deps.scope,
      ...published,
      totalCount: published.rows,
      isConfirmed: tally.confirmed,
      totals: tally.totals,
      exchangeDates: [...tally.exchangeDates].sort(),
      schemaVersion: TABLE.schemaVersion,
      runId: deps.runId,
      exportedAt: now.toISOString(),
    }),
  });
  const { rows, bytes } = result;
  const { outcome } = result;
  const before = previous && { isConfirmed: previous.isConfirmed === true, totals: previous.totals ?? {} };
  return {
    month,
    outcome,
    rows,
    bytes,
    isConfirmed: tally.confirmed,
    totals: tally.totals,
    previous: before,
  };
}

/** What a month's pages add up to: per-currency totals, confirmation, exchange dates. */
class MonthTally {
  readonly totals: Record<string, number> = {};
  readonly exchangeDates = new Set<string>();
  confirmed = false;

  add(page: readonly ApiRecord[]): void {
    for (const row of page) {
      for (const [currency, value] of Object.entries((row.cost ?? {}) as Record<string, unknown>)) {
        if (typeof value === 'number') this.totals[currency] = (this.totals[currency] ?? 0) + value;
      }
      if (row.is_confirmed === true) this.confirmed = true;
      if (typeof row.exchange_date === 'string') this.exchangeDates.add(row.exchange_date);
    }
  }
}
