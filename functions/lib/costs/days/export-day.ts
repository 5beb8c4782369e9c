// One unit of cost export: every row of one data source on one billed_date, paged from
// Cloudforet into one Parquet object under a fixed key, replacing what was there.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import type { ListRequest } from '../../cloudforet/pager.ts';
import { dayCount, utcDay } from '../../dates.ts';
import { markCompactionDirty } from '../../destination/compaction-state.ts';
import { type Proof, proveDayEmpty, proveFewerRows, proveJobRows } from '../../destination/gate.ts';
import { markKept, type UnitManifest } from '../../destination/manifest.ts';
import { PagingDriftError } from '../../errors.ts';
import { type Compression, confirmEmpty, exportListing } from '../../export/listing-export.ts';
import { type Logger, silentLogger } from '../../log.ts';
import type { Sink } from '../../storage/sink.ts';
import { type CostContext, costTable } from '../../tables/costs.ts';
import type { AnalyzeTotals } from '../planning/plan-units.ts';
import { type DataSourceInfo, expectLinksFor } from '../sources/data-sources.ts';
import { costManifestKey, costObjectKey } from '../sources/day-keys.ts';
import { FingerprintBuilder, type GroupStat } from '../sources/fingerprint.ts';
import { analyzeMonth } from '../sources/source-state.ts';

export interface CostUnit {
  readonly dataSource: DataSourceInfo;
  readonly date: string;
  /** Publish only this sync job's rows: the day also holds a failed sync's leftovers. */
  readonly jobId?: string;
  /** Cloudforet's analyze totals of the day when planned; recorded in the manifest and ledger. */
  readonly analyzed?: AnalyzeTotals;
  /** The plan's reason (e.g. cost-changed): why a published day is superseded, in the revisions ledger. */
  readonly reason?: string;
}

export interface CostUnitDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly workspaceOfVirtual: ReadonlyMap<string, string | undefined>;
  readonly now?: () => Date;
  readonly log?: Logger;
  readonly rowGroupRows?: number;
  /** Parquet page codec (PARQUET_COMPRESSION); the writer's default unless set. */
  readonly compression?: Compression;
  /** Days older than this have left Cloudforet's retention: an empty answer never removes them. */
  readonly archiveAfterDays?: number;
  /** The last_synchronized_at each data source was last seen with, in this run. */
  readonly syncStamps: SyncStamps;
  /** Aborting it ends the unit and every request it started. */
  readonly signal?: AbortSignal;
  /** The unit's last page has come (ListingExportDeps.pagingDone). */
  readonly pagingDone?: () => void;
}

/**
 * data source id -> last_synchronized_at as last seen in this run, once it moved after the run
 * listed the data sources. Owned by the run (one per unit executor), never by the module.
 */
export type SyncStamps = Map<string, string | undefined>;

export interface CostUnitResult {
  readonly dataSourceId: string;
  readonly date: string;
  /**
   * written: a new object; removed: the day has no rows, so no object; kept: Cloudforet has no
   * rows for a day past its retention, so the archived object is left as it was.
   */
  readonly outcome: 'written' | 'removed' | 'empty' | 'kept';
  readonly rows: number;
  readonly costSum: number;
  readonly bytes: number;
  /** Row count and cost sum per attribution of what was written (what restatements compare). */
  readonly groups: readonly GroupStat[];
  /** A removal's proof that the day has no rows (the restatement line records it). */
  readonly evidence?: string;
}

/** Cloudforet keeps about 12 months; past ~11 an empty day means purged, not restated to zero. */
export const DEFAULT_ARCHIVE_AFTER_DAYS = 330;

/**
 * Where a day's keyset listing is cut in two, paged at once (one page in flight each). Cloudforet's
 * cost_id is `cost-` and 12 random lowercase hex digits (python-core utils.generate_id, 6 bytes of
 * secrets.token_hex), so `lt "cost-8"` and `gte "cost-8"` hold about half a day each; its query
 * filter passes `lt`/`gte` to MongoDB as they are (python-core filter_operator.py), which compares
 * strings as we do. Ids of any other shape are still all listed, only not evenly split.
 */
export const COST_ID_SPLIT: readonly string[] = ['cost-8'];

/**
 * The listing of one data source's cost rows of one billed day (of one sync job, if given), in
 * keyset pages by cost_id: the server's sort then holds one page, not the day (docs/incremental-exports.md),
 * in two ranges of ids at once (COST_ID_SPLIT).
 */
export function costDayRequest(dataSourceId: string, date: string, jobId?: string): ListRequest {
  return {
    path: '/cost-analysis/cost/list',
    params: { data_source_id: dataSourceId },
    filter: [{ k: 'billed_date', v: date, o: 'eq' }, ...(jobId ? [{ k: 'job_id', v: jobId, o: 'eq' }] : [])],
    idKey: 'cost_id',
    keyset: true,
    split: COST_ID_SPLIT,
  };
}

export async function exportCostUnit(deps: CostUnitDeps, unit: CostUnit): Promise<CostUnitResult> {
  const { dataSource: ds, date } = unit;
  const now = deps.now?.() ?? new Date();
  const list = costDayRequest(ds.id, date, unit.jobId);
  const syncedBefore = deps.syncStamps.has(ds.id) ? deps.syncStamps.get(ds.id) : ds.lastSynchronizedAt;
  const pastRetention = dayCount(date, utcDay(now)) > (deps.archiveAfterDays ?? DEFAULT_ARCHIVE_AFTER_DAYS);
  let costSum = 0;
  let evidence: string | undefined;
  /** Built once, when the manifest is (the unit's result reports the same groups). */
  let groups: GroupStat[] = [];
  const fingerprint = new FingerprintBuilder(deps.workspaceOfVirtual);
  const context: CostContext = {
    currency: ds.currency,
    workspaceOfVirtual: deps.workspaceOfVirtual,
    exportedAtMs: now.getTime(),
  };
  // A compacted month whose day is about to change is marked, for the compaction step (the run
  // lowered the state below its planned months before any unit started).
  const leaveCompaction = () => markCompactionDirty(deps.sink, costTable.name, date.slice(0, 7), ds.id);
  let result: Awaited<ReturnType<typeof exportListing>>;
  try {
    result = await exportListing(deps, {
      list,
      table: costTable,
      context,
      key: costObjectKey(ds.id, date),
      manifestKey: costManifestKey(ds.id, date),
      kvMetadata: { data_source_id: ds.id, billed_date: date, run_id: deps.runId },
      rowGroupRows: deps.rowGroupRows,
      revisionReason: unit.reason ?? 'exported again',
      onPage: (page) => {
        for (const row of page) {
          costSum += typeof row.cost === 'number' ? row.cost : 0;
          expectLinksFor(row.workspace_id, deps.workspaceOfVirtual);
        }
        fingerprint.add(page);
      },
      beforePublish: async (pages, signal) => {
        if (pages > 1) await expectNoSyncFinished(deps, ds, syncedBefore, date, signal);
        if (pages > 0) await leaveCompaction();
      },
      whenEmpty: async (signal, published) => {
        // The job's rows went (a sync succeeded since the plan): the day has other rows now.
        if (unit.jobId)
          throw new PagingDriftError(`${ds.id} ${date}: job ${unit.jobId} has no rows of it any more`);
        // Past retention Cloudforet answers empty for purged days: keep the archive (if any).
        if (pastRetention && published) {
          await markKept(deps.sink, costManifestKey(ds.id, date), now);
          return 'keep';
        }
        if (!published) return 'none';
        const proof = await proveEmptyDay(deps, unit, list, signal);
        evidence = proof.evidence;
        await leaveCompaction();
        return proof;
      },
      whenFewer: async (signal, before, written) => {
        if (unit.jobId) return proveJobRows(unit.jobId, written, before);
        const analyzed = await analyzeMonth(deps.client, ds.id, date.slice(0, 7), signal);
        // A month not known (no results at all) counts nothing: no count, so no proof.
        const counted = analyzed.complete ? (analyzed.days.get(date)?.rows ?? 0) : undefined;
        return proveFewerRows({
          what: `${ds.id} ${date}`,
          published: before,
          written,
          counted,
          by: 'cost/analyze',
        });
      },
      manifest: (published): UnitManifest => {
        groups = published.rows > 0 ? fingerprint.build() : [];
        return {
          table: costTable.name,
          partition: date,
          dataSourceId: ds.id,
          ...published,
          totalCount: published.rows,
          costSum: published.rows > 0 ? costSum : 0,
          groups,
          ...(unit.jobId && { jobId: unit.jobId }),
          ...(unit.analyzed && { analyzeRows: unit.analyzed.rows, analyzeCostSum: unit.analyzed.costSum }),
          schemaVersion: costTable.schemaVersion,
          lastSynchronizedAt: ds.lastSynchronizedAt,
          runId: deps.runId,
          exportedAt: now.toISOString(),
        };
      },
    });
  } catch (error) {
    // The day moved under us: the next attempt starts from the data source's current sync stamp.
    if (error instanceof PagingDriftError) await syncStamp(deps, ds, deps.signal).catch(() => undefined);
    throw error;
  }
  const log = deps.log ?? silentLogger;
  const fields = { dataSourceId: ds.id, billedDate: date, ...(unit.jobId && { jobId: unit.jobId }) };
  if (result.outcome === 'kept') log.warn('no rows past retention; archived object kept', fields);
  else log.info('cost unit exported', { ...fields, rows: result.rows, bytes: result.bytes });
  const { outcome, rows, bytes } = result;
  const sum = rows > 0 ? costSum : 0;
  return {
    dataSourceId: ds.id,
    date,
    outcome,
    rows,
    costSum: sum,
    bytes,
    groups,
    ...(evidence && { evidence }),
  };
}

/**
 * An empty cost/list removes a published day only with the gate's proof (destination/gate.ts): the
 * month's cost/analyze answer, asked now (a sync may have emptied the day since the plan), counts
 * rows on other days of the data source and none on this one, and a second look at the listing
 * agrees. `{}` from analyze (no row at all) or a day analyze counts rows in keeps the day.
 */
async function proveEmptyDay(
  deps: CostUnitDeps,
  unit: CostUnit,
  list: ListRequest,
  signal: AbortSignal,
): Promise<Proof> {
  const what = `${unit.dataSource.id} ${unit.date}`;
  const analyzed = await analyzeMonth(deps.client, unit.dataSource.id, unit.date.slice(0, 7), signal);
  const days = [...analyzed.days].map(([date, d]) => ({ date, rows: d.rows }));
  await confirmEmpty(deps.client, list, what, signal); // throws unless the second look is empty too
  return proveDayEmpty({ what, date: unit.date, month: { complete: analyzed.complete, days } });
}

/**
 * A re-sync replaces a day's rows with the same count under new ids, which offset paging cannot
 * see: a day paged across a finished sync would mix two versions. The data source's
 * last_synchronized_at, unchanged since before the first page, proves no sync finished.
 */
async function expectNoSyncFinished(
  deps: CostUnitDeps,
  ds: DataSourceInfo,
  before: string | undefined,
  date: string,
  signal: AbortSignal,
): Promise<void> {
  const after = await syncStamp(deps, ds, signal);
  if (after === before) return;
  throw new PagingDriftError(
    `/cost-analysis/cost/list: data source ${ds.id} finished a sync while ${date} was paged ` +
      `(last_synchronized_at ${before ?? 'none'} -> ${after ?? 'none'})`,
  );
}

async function syncStamp(
  deps: { client: CloudforetClient; syncStamps: SyncStamps },
  ds: DataSourceInfo,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const answer = await deps.client.call(
    '/cost-analysis/data-source/get',
    { data_source_id: ds.id },
    { signal },
  );
  const stamp = typeof answer.last_synchronized_at === 'string' ? answer.last_synchronized_at : undefined;
  deps.syncStamps.set(ds.id, stamp);
  return stamp;
}
