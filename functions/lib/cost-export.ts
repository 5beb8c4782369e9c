// One unit of cost export: every row of one data source on one billed_date, paged from
// Cloudforet into one Parquet object under a fixed key, replacing what was there.
import type { CloudforetClient } from './cloudforet-client.ts';
import { type CostContext, costTable } from './cost-columns.ts';
import type { DataSourceInfo } from './data-sources.ts';
import { dayCount, utcDay } from './dates.ts';
import { type Logger, silentLogger } from './log.ts';
import { manifestKey, type UnitManifest } from './manifest.ts';
import { PagingDriftError } from './errors.ts';
import { type ListRequest, listPages, nextPage, pageBody } from './pager.ts';
import { ParquetRowWriter } from './parquet-writer.ts';
import type { ObjectUpload, Sink } from './sink.ts';

export interface CostUnit {
  readonly dataSource: DataSourceInfo;
  readonly date: string;
}

export interface CostUnitDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly workspaceOfVirtual: ReadonlyMap<string, string | undefined>;
  readonly now?: () => Date;
  readonly log?: Logger;
  readonly rowGroupRows?: number;
  /** Days older than this have left Cloudforet's retention: an empty answer never removes them. */
  readonly archiveAfterDays?: number;
}

export interface CostUnitResult {
  readonly dataSourceId: string;
  readonly date: string;
  /**
   * written: a new object; removed: the day has no rows, so no object; kept: Cloudforet has no
   * rows for a day past its retention, so the archived object is left as it was.
   */
  readonly outcome: 'written' | 'removed' | 'kept';
  readonly rows: number;
  readonly costSum: number;
  readonly bytes: number;
}

export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';

/** Cloudforet keeps about 12 months; past ~11 an empty day means purged, not restated to zero. */
export const DEFAULT_ARCHIVE_AFTER_DAYS = 330;

export function costObjectKey(dataSourceId: string, date: string): string {
  return `${costTable.name}/${costTable.partitionKey}=${date}/${dataSourceId}.parquet`;
}

export const costManifestPrefix = `_manifests/${costTable.name}/`;

export function costManifestKey(dataSourceId: string, date: string): string {
  return manifestKey(costTable.name, costTable.partitionKey, date, dataSourceId);
}

/** The listing of one data source's cost rows of one billed day, sorted by cost_id. */
export function costDayRequest(dataSourceId: string, date: string): ListRequest {
  return {
    path: '/cost-analysis/cost/list',
    params: { data_source_id: dataSourceId },
    filter: [{ k: 'billed_date', v: date, o: 'eq' }],
    idKey: 'cost_id',
  };
}

export async function exportCostUnit(deps: CostUnitDeps, unit: CostUnit): Promise<CostUnitResult> {
  const { dataSource: ds, date } = unit;
  const now = deps.now?.() ?? new Date();
  const key = costObjectKey(ds.id, date);
  const context: CostContext = {
    currency: ds.currency,
    workspaceOfVirtual: deps.workspaceOfVirtual,
    exportedAtMs: now.getTime(),
  };
  const list = costDayRequest(ds.id, date);
  const syncedBefore = lastSeenSync.has(ds) ? lastSeenSync.get(ds) : ds.lastSynchronizedAt;
  let pageCount = 0;
  let upload: ObjectUpload | undefined;
  let writer: ParquetRowWriter<Record<string, unknown>, CostContext> | undefined;
  let costSum = 0;
  let bytes = 0;
  const pages = listPages(deps.client, list);
  try {
    // Not for-await: its loop variable would hold each page through the next page's wait and
    // through a row group's compression; a page let go once it is handed over dies young.
    for (let page = await nextPage(pages); page; page = await nextPage(pages)) {
      pageCount++;
      if (!upload) {
        upload = deps.sink.begin(key, PARQUET_CONTENT_TYPE);
        writer = new ParquetRowWriter(costTable, upload, context, {
          rowGroupRows: deps.rowGroupRows,
          kvMetadata: { data_source_id: ds.id, billed_date: date, run_id: deps.runId },
        });
      }
      for (const row of page) costSum += typeof row.cost === 'number' ? row.cost : 0;
      const appended = writer!.append(page);
      page = undefined;
      await appended;
    }
    if (pageCount > 1) await expectNoSyncFinished(deps.client, ds, syncedBefore, date);
    if (upload && writer) {
      bytes = (await writer.close()).bytes;
      await upload.commit();
    }
  } catch (error) {
    await pages.return(undefined); // as for-await would: the listing is abandoned
    await upload?.abort();
    // The day moved under us: the next attempt starts from the data source's current sync stamp.
    if (error instanceof PagingDriftError) await syncStamp(deps.client, ds).catch(() => undefined);
    throw error;
  }
  const rows = writer?.rows ?? 0;
  if (rows === 0 && dayCount(date, utcDay(now)) > (deps.archiveAfterDays ?? DEFAULT_ARCHIVE_AFTER_DAYS)) {
    (deps.log ?? silentLogger).warn('no rows past retention; archived object kept', {
      dataSourceId: ds.id,
      billedDate: date,
    });
    return { dataSourceId: ds.id, date, outcome: 'kept', rows: 0, costSum: 0, bytes: 0 };
  }
  if (rows === 0) {
    await expectStillEmpty(deps.client, list, `${ds.id} ${date}`);
    await deps.sink.remove(key);
  }
  await writeManifest(deps, unit, { key: rows > 0 ? key : null, rows, costSum, bytes, now });
  (deps.log ?? silentLogger).info('cost unit exported', {
    dataSourceId: ds.id,
    billedDate: date,
    rows,
    bytes,
  });
  return { dataSourceId: ds.id, date, outcome: rows > 0 ? 'written' : 'removed', rows, costSum, bytes };
}

/** The last_synchronized_at seen per data source, once it moved after the run listed it. */
const lastSeenSync = new WeakMap<DataSourceInfo, string | undefined>();

/**
 * A re-sync replaces a day's rows with the same count under new ids, which offset paging cannot
 * see: a day paged across a finished sync would mix two versions. The data source's
 * last_synchronized_at, unchanged since before the first page, proves no sync finished.
 */
async function expectNoSyncFinished(
  client: CloudforetClient,
  ds: DataSourceInfo,
  before: string | undefined,
  date: string,
): Promise<void> {
  const after = await syncStamp(client, ds);
  if (after === before) return;
  throw new PagingDriftError(
    `/cost-analysis/cost/list: data source ${ds.id} finished a sync while ${date} was paged ` +
      `(last_synchronized_at ${before ?? 'none'} -> ${after ?? 'none'})`,
  );
}

async function syncStamp(client: CloudforetClient, ds: DataSourceInfo): Promise<string | undefined> {
  const answer = await client.call('/cost-analysis/data-source/get', { data_source_id: ds.id });
  const stamp = typeof answer.last_synchronized_at === 'string' ? answer.last_synchronized_at : undefined;
  lastSeenSync.set(ds, stamp);
  return stamp;
}

/** One stray `{}` must not remove a published day: ask once more before believing it is empty. */
async function expectStillEmpty(client: CloudforetClient, list: ListRequest, what: string): Promise<void> {
  const answer = await client.call(list.path, pageBody(list, 1, 1));
  const total = typeof answer.total_count === 'number' ? answer.total_count : 0;
  if (total > 0) {
    throw new PagingDriftError(`${list.path}: ${what} answered no rows, then ${total} on a second look`);
  }
}

async function writeManifest(
  deps: CostUnitDeps,
  unit: CostUnit,
  fields: { key: string | null; rows: number; costSum: number; bytes: number; now: Date },
): Promise<void> {
  const manifest: UnitManifest = {
    table: costTable.name,
    partition: unit.date,
    dataSourceId: unit.dataSource.id,
    key: fields.key,
    rows: fields.rows,
    totalCount: fields.rows,
    costSum: fields.costSum,
    bytes: fields.bytes,
    schemaVersion: costTable.schemaVersion,
    lastSynchronizedAt: unit.dataSource.lastSynchronizedAt,
    runId: deps.runId,
    exportedAt: fields.now.toISOString(),
  };
  const body = `${JSON.stringify(manifest, null, 2)}\n`;
  await deps.sink.put(costManifestKey(unit.dataSource.id, unit.date), body, 'application/json');
}
