// The compaction step of a cost run: each month Cloudforet confirmed (its unified costs say so,
// as the month_status view does) gets one object per data source in costs_monthly and
// focus_monthly, holding exactly the rows of that month's daily objects, read back one row group
// at a time (each checked against its manifest's checksum first) and written by the export's own
// flow with bounded row groups. A monthly object is rebuilt when its manifest's list of daily
// units (key, checksum, rows) is not the month's list now: a restated day, a new data source, a
// removed day. A month whose list is unchanged is called current only when its monthly object is
// still there and as its manifest says (one listing of the monthly table: size, ETag, a moved
// mtime then the checksum; the object's checksum read whole when the listing fails); a missing,
// truncated or replaced monthly object is rebuilt. Then the compaction state moves to the last
// month up to which every month with daily objects is confirmed and compacted, so views read those
// months compacted, the rest daily.
import { createHash } from 'node:crypto';
import type { CloudforetClient } from '../cloudforet/client.ts';
import { errorCode, errorMessage, ExportError } from '../errors.ts';
import { type Compression, exportListing } from '../export/listing-export.ts';
import { type Logger, silentLogger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import { parquetRowGroups } from '../published/read-objects.ts';
import { compactedThrough, writeCompactionState } from '../storage/compaction-state.ts';
import { proveCompactedFrom } from '../storage/gate.ts';
import { MANIFESTS_DIR, manifestKey, objectKey } from '../storage/layout.ts';
import { parseManifest, type UnitManifest } from '../storage/manifest.ts';
import { objectDifference } from '../storage/object-check.ts';
import type { Sink, StoredObject } from '../storage/sink.ts';
import { type CompactedTable, compactedTables } from '../tables/compacted.ts';

export interface CompactionDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly log?: Logger;
  readonly now?: () => Date;
  readonly compression?: Compression;
  readonly rowGroupRows?: number;
  readonly signal?: AbortSignal;
  readonly shouldStartUnit?: () => boolean;
}

/** One daily unit a monthly object was built from. */
export interface CompactedSource {
  readonly key: string | null;
  readonly sha256?: string;
  readonly rows: number;
  /** The daily table's partition value (YYYY-MM-DD). */
  readonly day: string;
}

export interface CompactedManifest extends UnitManifest {
  readonly sources: readonly CompactedSource[];
}

export interface CompactionTableSummary {
  readonly table: string;
  /** Months views now read from the compacted table: up to this one (none: undefined). */
  readonly throughMonth?: string;
  readonly written: number;
  readonly removed: number;
  readonly current: number;
  readonly rows: number;
  readonly failures: ReadonlyArray<{ dataSourceId: string; month: string; code: string; message: string }>;
  /** Units left for the next run: the run's time ran short. */
  readonly notStarted: number;
}

export interface CompactionSummary {
  readonly tables: readonly CompactionTableSummary[];
}

/** Months whose unified costs are confirmed (any scope), from the published unified-cost manifests. */
export async function confirmedMonths(sink: Sink): Promise<Set<string>> {
  const keys = (await sink.list(`${MANIFESTS_DIR}/unified_costs/`)).filter((k) => k.endsWith('.json'));
  const months = new Set<string>();
  for (const key of keys) {
    const manifest = parseManifest(await sink.read(key)) as
      | (UnitManifest & { isConfirmed?: boolean })
      | undefined;
    if (manifest?.isConfirmed === true) months.add(manifest.partition);
  }
  return months;
}

/** The daily units of a table by month, then data source: their manifest keys. */
async function dailyUnits(sink: Sink, table: CompactedTable): Promise<Map<string, Map<string, string[]>>> {
  const prefix = `${MANIFESTS_DIR}/${table.daily.name}/`;
  const byMonth = new Map<string, Map<string, string[]>>();
  const pattern = table.daily.dayKey
    ? new RegExp(
        `^${prefix}${table.daily.partitionKey}=(\\d{4}-\\d\\d)/${table.daily.dayKey}=\\d\\d/([^/]+)\\.json$`,
      )
    : new RegExp(`^${prefix}${table.daily.partitionKey}=(\\d{4}-\\d\\d)-\\d\\d/([^/]+)\\.json$`);
  for (const key of await sink.list(prefix)) {
    const match = pattern.exec(key);
    if (!match) continue;
    const [, month, dataSourceId] = match as unknown as [string, string, string];
    const sources = byMonth.get(month) ?? new Map<string, string[]>();
    byMonth.set(month, sources);
    sources.set(dataSourceId, [...(sources.get(dataSourceId) ?? []), key]);
  }
  return byMonth;
}

/** Whether the monthly manifest was built from exactly these daily units. */
export function compactedFrom(
  monthly: CompactedManifest | undefined,
  sources: readonly CompactedSource[],
): boolean {
  if (!monthly || !Array.isArray(monthly.sources) || monthly.sources.length !== sources.length) return false;
  return monthly.sources.every((s, i) => {
    const now = sources[i]!;
    return s.key === now.key && s.sha256 === now.sha256 && s.rows === now.rows && s.day === now.day;
  });
}

export async function compactConfirmedMonths(deps: CompactionDeps): Promise<CompactionSummary> {
  const log = deps.log ?? silentLogger;
  const confirmed = await confirmedMonths(deps.sink);
  const tables: CompactionTableSummary[] = [];
  for (const table of compactedTables) tables.push(await compactTable(deps, log, table, confirmed));
  log.info('compaction finished', { tables });
  return { tables };
}

async function compactTable(
  deps: CompactionDeps,
  log: Logger,
  table: CompactedTable,
  confirmed: ReadonlySet<string>,
): Promise<CompactionTableSummary> {
  const byMonth = await dailyUnits(deps.sink, table);
  let written = 0;
  let removed = 0;
  let current = 0;
  let rows = 0;
  let notStarted = 0;
  const failures: Array<{ dataSourceId: string; month: string; code: string; message: string }> = [];
  // The monthly table's objects, listed once, when a unit first needs them: inside the unit's
  // try, so a failed listing is that unit's (and it falls back to the object's checksum).
  let listing: Promise<ReadonlyMap<string, StoredObject>> | undefined;
  const listed = () => {
    listing ??= deps.sink.listObjects(`${table.name}/`);
    return listing;
  };
  const months = [...byMonth.keys()].sort();
  /** Months whose every data source's monthly object is fresh after this pass. */
  const done = new Set<string>();
  for (const month of months) {
    if (!confirmed.has(month)) continue;
    let whole = true;
    for (const [dataSourceId, keys] of [...byMonth.get(month)!.entries()].sort()) {
      if (deps.shouldStartUnit?.() === false || deps.signal?.aborted) {
        notStarted++;
        whole = false;
        continue;
      }
      try {
        const outcome = await compactUnit(deps, log, table, month, dataSourceId, keys, listed);
        if (outcome.outcome === 'current') current++;
        else if (outcome.outcome === 'removed') removed++;
        else written++;
        rows += outcome.rows;
      } catch (error) {
        whole = false;
        const failure = { dataSourceId, month, code: errorCode(error), message: errorMessage(error) };
        log.warn('compaction unit failed; the month stays read from its days', {
          table: table.name,
          ...failure,
        });
        failures.push(failure);
      }
    }
    if (whole) done.add(month);
  }
  // The views' line: every month with daily units up to it is confirmed and compacted.
  let through: string | undefined;
  for (const month of months) {
    if (!done.has(month)) break;
    through = month;
  }
  const before = await compactedThrough(deps.sink, table.daily.name);
  if (before !== through) {
    await writeCompactionState(deps.sink, table.daily.name, through);
  }
  return {
    table: table.name,
    ...(through !== undefined && { throughMonth: through }),
    written,
    removed,
    current,
    rows,
    failures,
    notStarted,
  };
}

/** The day of a daily unit's manifest (its partition value, YYYY-MM-DD). */
function dayOf(manifest: UnitManifest, table: CompactedTable): string {
  return table.daily.dayKey ? manifest.partition : manifest.partition.slice(0, 10);
}

/**
 * Why the monthly object is not what its manifest says ('missing', 'size', 'etag', 'checksum'), or
 * undefined when it is (an empty month's manifest names no object). From the table's listing, as
 * planning, the focus pass and the verifier check theirs (storage/object-check.ts); when the
 * listing fails, the object's own checksum, read whole, is the evidence instead.
 */
async function monthlyDifference(
  sink: Sink,
  log: Logger,
  monthly: CompactedManifest,
  listed: () => Promise<ReadonlyMap<string, StoredObject>>,
): Promise<string | undefined> {
  if (monthly.key === null) return undefined;
  let objects: ReadonlyMap<string, StoredObject>;
  try {
    objects = await listed();
  } catch (error) {
    log.warn('compaction could not list the monthly objects; checking this one by its checksum', {
      key: monthly.key,
      code: errorCode(error),
      message: errorMessage(error),
    });
    const sha = sink.sha256
      ? await sink.sha256(monthly.key)
      : await sink
          .readBytes(monthly.key)
          .then((bytes) => bytes && createHash('sha256').update(bytes).digest('hex'));
    if (sha === undefined) return 'missing';
    return monthly.sha256 !== undefined && sha === monthly.sha256 ? undefined : 'checksum';
  }
  return objectDifference(sink, monthly, monthly.key, objects.get(monthly.key), false);
}

async function compactUnit(
  deps: CompactionDeps,
  log: Logger,
  table: CompactedTable,
  month: string,
  dataSourceId: string,
  manifestKeys: readonly string[],
  listed: () => Promise<ReadonlyMap<string, StoredObject>>,
): Promise<{ outcome: 'current' | 'written' | 'removed' | 'empty' | 'kept'; rows: number }> {
  // The month's daily manifests, read 16 at a time (a year of 20 data sources is ~7,300 of them).
  const keys = [...manifestKeys].sort();
  const dailies: Array<UnitManifest | undefined> = new Array(keys.length);
  await forEachLimit(keys, 16, async (key, i) => {
    dailies[i] = parseManifest(await deps.sink.read(key));
  });
  const sources: CompactedSource[] = keys.map((key, i) => {
    const daily = dailies[i];
    if (!daily) throw new ExportError('COMPACTION_SOURCE_DAMAGED', `${key} is not a manifest`);
    return {
      key: daily.key,
      ...(daily.sha256 && { sha256: daily.sha256 }),
      rows: daily.key === null ? 0 : daily.rows,
      day: dayOf(daily, table),
    };
  });
  const monthlyManifestKey = manifestKey(table, month, dataSourceId);
  const monthly = parseManifest(await deps.sink.read(monthlyManifestKey)) as CompactedManifest | undefined;
  const what = `${table.name} ${month} ${dataSourceId}`;
  if (monthly?.schemaVersion === table.schemaVersion && compactedFrom(monthly, sources)) {
    // Built from these days: current only if its object is still the one the manifest describes.
    const why = await monthlyDifference(deps.sink, log, monthly, listed);
    if (why === undefined) return { outcome: 'current', rows: 0 };
    log.warn('monthly object is not as its manifest says; rebuilding it from its days', {
      table: table.name,
      month,
      dataSourceId,
      key: monthly.key,
      why,
    });
  }
  const expected = sources.reduce((n, s) => n + s.rows, 0);
  let read = 0;
  const now = deps.now?.() ?? new Date();
  const { sink } = deps;
  const result = await exportListing(
    { client: deps.client, sink, signal: deps.signal, compression: deps.compression },
    {
      list: { path: `${table.daily.name} objects of ${dataSourceId} in ${month}`, idKey: 'cost_id' },
      pages: async function* () {
        for (const source of sources) {
          if (source.key === null) continue;
          const bytes = await sink.readBytes(source.key);
          const sha = bytes && createHash('sha256').update(bytes).digest('hex');
          if (!bytes || !source.sha256 || sha !== source.sha256) {
            throw new ExportError(
              'COMPACTION_SOURCE_DAMAGED',
              `${source.key} ${bytes ? "does not match its manifest's checksum" : 'is missing'}: ` +
                'the month stays read from its days; the next cost run repairs the day',
            );
          }
          const day = table.daily.dayKey ? source.day.slice(8, 10) : source.day;
          for await (const group of parquetRowGroups(bytes)) {
            for (const row of group) {
              row[table.dayColumn] = day;
              if (table.monthColumn && row[table.monthColumn] !== month) {
                throw new ExportError(
                  'COMPACTION_MONTH_DIFFERS',
                  `${source.key}: a row's ${table.monthColumn} is ${String(row[table.monthColumn])}, not ${month}: ` +
                    'the month stays read from its days',
                );
              }
            }
            read += group.length;
            yield group;
          }
        }
      },
      table,
      context: undefined,
      key: objectKey(table, month, dataSourceId),
      manifestKey: monthlyManifestKey,
      kvMetadata: { data_source_id: dataSourceId, [table.partitionKey]: month, run_id: deps.runId },
      rowGroupRows: deps.rowGroupRows,
      beforePublish: async () => {
        if (read !== expected) {
          throw new ExportError(
            'COMPACTION_ROWS_DIFFER',
            `${what}: the daily manifests count ${expected} rows, their objects hold ${read}`,
          );
        }
      },
      whenEmpty: async (_signal, published) => (published ? proveCompactedFrom(what, sources, 0) : 'none'),
      whenFewer: async (_signal, _published, writtenRows) => proveCompactedFrom(what, sources, writtenRows),
      manifest: (published): CompactedManifest => ({
        table: table.name,
        partition: month,
        dataSourceId,
        ...published,
        totalCount: expected,
        sources,
        schemaVersion: table.schemaVersion,
        runId: deps.runId,
        exportedAt: now.toISOString(),
      }),
    },
  );
  return { outcome: result.outcome, rows: result.rows };
}
