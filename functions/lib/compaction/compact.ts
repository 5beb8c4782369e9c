// The compaction step of a cost run: each month Cloudforet confirmed (its unified costs say so,
// as the month_status view does) gets one object per data source in costs_monthly and
// focus_monthly, holding exactly the rows of that month's daily objects, read back one row group
// at a time (each checked against its manifest's checksum first) and written by the export's own
// flow with bounded row groups. A monthly object is rebuilt when its manifest's list of daily
// units (key, checksum, rows) is not the month's list now: a restated day, a new data source, a
// removed day. A month whose list is unchanged is called current only when its monthly object is
// still there and as its manifest says (one listing of the monthly table: size, ETag, a moved
// mtime then the checksum; the object's checksum read whole when the listing fails); a missing,
// truncated or replaced monthly object is rebuilt. Whether the list is unchanged is told from the
// listing of the daily manifests when it can be: each source records its daily manifest as listed
// when the month was built (size, ETag or mtime), and while every one lists the same (and no
// manifest came or went) the daily manifests are not read; otherwise they are, as before. A day
// the monthly manifest names leaves the month only when its own daily manifest records a proven
// removal: a missing one fails the unit and keeps the monthly object (absence.ts). Then
// the compaction state moves to the last
// month up to which every month with daily objects is confirmed and compacted, so views read those
// months compacted, the rest daily.
import { createHash } from 'node:crypto';
import type { CloudforetClient } from '../cloudforet/client.ts';
import {
  type CompactionStateRead,
  dirtyMarks,
  readCompactionState,
  writeCompactionState,
} from '../destination/compaction-state.ts';
import { unprovenDrops } from '../destination/day-drops.ts';
import { ownScratch, proveCompactedFrom, removeProven } from '../destination/gate.ts';
import { MANIFESTS_DIR, manifestKey, objectKey } from '../destination/layout.ts';
import { parseManifest, type UnitManifest } from '../destination/manifest.ts';
import { objectDifference } from '../destination/object-check.ts';
import { ExportError, errorCode, errorMessage } from '../errors.ts';
import { type Compression, exportListing } from '../export/listing-export.ts';
import { type Logger, silentLogger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import { parquetRowGroups } from '../published/read-objects.ts';
import type { Sink, StoredObject } from '../storage/sink.ts';
import { type CompactedTable, compactedTables } from '../tables/compacted.ts';
import { DAY_MISSING, DayMissingError, monthlyUnits } from './absence.ts';

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
  /**
   * The state each daily table had when the run started, before it lowered it for its plan
   * (destination/compaction-state.ts leaveCompactionFor): what a correction is said against.
   */
  readonly stateAtStart?: ReadonlyMap<string, CompactionStateRead>;
}

/** One daily unit a monthly object was built from. */
export interface CompactedSource {
  readonly key: string | null;
  readonly sha256?: string;
  readonly rows: number;
  /** The daily table's partition value (YYYY-MM-DD). */
  readonly day: string;
  /**
   * The daily unit's manifest as listed when the month was built from it (absent in manifests
   * written before): while it lists the same, the unit is the one the month was built from.
   */
  readonly manifest?: ListedManifest;
}

/** A daily manifest as a listing gave it: a rewrite changes its ETag (S3) or mtime (a directory). */
export interface ListedManifest {
  readonly key: string;
  readonly size: number;
  readonly etag?: string;
  readonly mtimeMs?: number;
}

/** A daily unit: its manifest's key and what the listing said of it (none: its manifest is read). */
interface DailyUnit {
  readonly key: string;
  readonly listed?: StoredObject;
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
  readonly failures: ReadonlyArray<{
    dataSourceId: string;
    month: string;
    code: string;
    message: string;
    /** COMPACTION_DAY_MISSING: the days its monthly object holds that the daily side lacks. */
    days?: readonly string[];
  }>;
  /** Units left for the next run: the run's time ran short. */
  readonly notStarted: number;
  /**
   * Set when the compaction step found compaction_state unreadable, or saying more months were
   * read compacted than it could keep (raised by hand, or a month no longer compacted and
   * current): what it said and what it holds now. Never corrected silently.
   */
  readonly stateCorrected?: string;
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

/**
 * The daily units of a table by month, then data source: their manifests, from one listing. When
 * the listing with sizes fails, the keys alone (every unit's manifest is then read, as before).
 */
async function dailyUnits(
  sink: Sink,
  table: CompactedTable,
  log: Logger,
): Promise<Map<string, Map<string, DailyUnit[]>>> {
  const prefix = `${MANIFESTS_DIR}/${table.daily.name}/`;
  const byMonth = new Map<string, Map<string, DailyUnit[]>>();
  const pattern = table.daily.dayKey
    ? new RegExp(
        `^${prefix}${table.daily.partitionKey}=(\\d{4}-\\d\\d)/${table.daily.dayKey}=\\d\\d/([^/]+)\\.json$`,
      )
    : new RegExp(`^${prefix}${table.daily.partitionKey}=(\\d{4}-\\d\\d)-\\d\\d/([^/]+)\\.json$`);
  const listing = await sink.listObjects(prefix).catch(async (error: unknown) => {
    log.warn('compaction could not list the daily manifests with their sizes; reading each one', {
      table: table.name,
      code: errorCode(error),
      message: errorMessage(error),
    });
    return new Map<string, StoredObject | undefined>((await sink.list(prefix)).map((k) => [k, undefined]));
  });
  for (const [key, listed] of listing) {
    const match = pattern.exec(key);
    if (!match) continue;
    const [, month, dataSourceId] = match as unknown as [string, string, string];
    const sources = byMonth.get(month) ?? new Map<string, DailyUnit[]>();
    byMonth.set(month, sources);
    sources.set(dataSourceId, [...(sources.get(dataSourceId) ?? []), { key, ...(listed && { listed }) }]);
  }
  return byMonth;
}

/**
 * Whether the listing alone shows the monthly manifest's daily units unchanged: the same manifests
 * (keys, in order), each listed as when the month was built (size, and its ETag or mtime). False
 * (read the daily manifests) for a manifest written before sources recorded this.
 */
export function listedAsBuilt(
  monthly: CompactedManifest | undefined,
  units: ReadonlyArray<{ readonly key: string; readonly listed?: StoredObject }>,
): boolean {
  if (!monthly || !Array.isArray(monthly.sources) || monthly.sources.length !== units.length) return false;
  return monthly.sources.every((s, i) => {
    const was = s.manifest;
    const { key, listed } = units[i]!;
    if (!was || !listed || was.key !== key || was.size !== listed.size) return false;
    const byEtag = was.etag !== undefined && listed.etag !== undefined;
    const byMtime = was.mtimeMs !== undefined && listed.mtimeMs !== undefined;
    if (!byEtag && !byMtime) return false; // a size alone is no evidence
    return (!byEtag || was.etag === listed.etag) && (!byMtime || was.mtimeMs === listed.mtimeMs);
  });
}

/** What a listing said of a daily manifest, as a source records it (nothing without a listing). */
function listedManifest(unit: DailyUnit): ListedManifest | undefined {
  if (!unit.listed) return undefined;
  return {
    key: unit.key,
    size: unit.listed.size,
    ...(unit.listed.etag !== undefined && { etag: unit.listed.etag }),
    ...(unit.listed.mtimeMs !== undefined && { mtimeMs: unit.listed.mtimeMs }),
  };
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
  const byMonth = await dailyUnits(deps.sink, table, log);
  // A month compacted before is looked at even when none of its days is listed any more.
  for (const [month, dataSources] of await monthlyUnits(deps.sink, table)) {
    const sources = byMonth.get(month) ?? new Map<string, DailyUnit[]>();
    byMonth.set(month, sources);
    for (const dataSourceId of dataSources) if (!sources.has(dataSourceId)) sources.set(dataSourceId, []);
  }
  // Derived, so never fatal: an unreadable state is computed again below (and said to be).
  const state = await readCompactionState(deps.sink, table.daily.name);
  // Months a unit changed a day of since they were compacted: listed before any daily manifest is
  // read, so a mark removed below is one this pass has seen through.
  const marks = await dirtyMarks(deps.sink, table.daily.name);
  const dirty = new Set(marks.map((m) => m.month));
  let written = 0;
  let removed = 0;
  let current = 0;
  let rows = 0;
  let notStarted = 0;
  const failures: Array<CompactionTableSummary['failures'][number]> = [];
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
  /**
   * Months whose only failures are days missing from the daily side: their monthly objects, kept,
   * still hold those days (the views keep reading them compacted if they did).
   */
  const held = new Set<string>();
  for (const month of months) {
    if (!confirmed.has(month)) continue;
    let whole = true;
    let missing = false;
    for (const [dataSourceId, units] of [...byMonth.get(month)!.entries()].sort()) {
      if (deps.shouldStartUnit?.() === false || deps.signal?.aborted) {
        notStarted++;
        whole = false;
        continue;
      }
      try {
        const outcome = await compactUnit(deps, log, table, month, dataSourceId, units, listed);
        if (outcome.outcome === 'current') current++;
        else if (outcome.outcome === 'removed') removed++;
        else written++;
        rows += outcome.rows;
      } catch (error) {
        if (error instanceof DayMissingError && error.monthlyIntact) missing = true;
        else whole = false;
        const failure = {
          dataSourceId,
          month,
          code: errorCode(error),
          message: errorMessage(error),
          ...(error instanceof DayMissingError && { days: error.days }),
        };
        log.warn(
          failure.code === DAY_MISSING
            ? 'compaction unit failed: a day its monthly object holds is missing; the monthly object is kept'
            : 'compaction unit failed; the month stays read from its days',
          { table: table.name, ...failure },
        );
        failures.push(failure);
      }
    }
    if (whole && !missing) done.add(month);
    else if (whole) held.add(month);
  }
  // The views' line: every month with daily units up to it is confirmed and compacted (or, at or
  // below the line already drawn, kept whole in its monthly objects while days are missing).
  let through: string | undefined;
  for (const month of months) {
    const kept =
      held.has(month) && !dirty.has(month) && state.through !== undefined && month <= state.through;
    if (!done.has(month) && !kept) break;
    through = month;
  }
  const stateCorrected = correction(deps.stateAtStart?.get(table.daily.name) ?? state, through);
  if (stateCorrected !== undefined) {
    log.warn('compaction_state corrected', { table: table.daily.name, stateCorrected });
  }
  if (state.unreadable !== undefined || state.through !== through) {
    await writeCompactionState(deps.sink, table.daily.name, through);
  }
  // A marked month made fresh: its marks are done with (a later mark stays for the next pass).
  const consumed = marks.filter((m) => done.has(m.month));
  await forEachLimit(consumed, 16, async (m) => {
    await removeProven(deps.sink, m.key, ownScratch('a compaction mark of a month compacted again'));
  });
  return {
    table: table.name,
    ...(through !== undefined && { throughMonth: through }),
    written,
    removed,
    current,
    rows,
    failures,
    notStarted,
    ...(stateCorrected !== undefined && { stateCorrected }),
  };
}

/** What to say when the state file was unreadable or read more months compacted than it now may. */
function correction(
  state: { readonly through: string | undefined; readonly unreadable?: string },
  through: string | undefined,
): string | undefined {
  if (state.unreadable !== undefined) {
    return `unreadable (${state.unreadable}); rewritten: through ${through ?? 'none'}`;
  }
  if (state.through === undefined || (through !== undefined && through >= state.through)) return undefined;
  return (
    `said through ${state.through}, but the months compacted and current reach ${through ?? 'none'} ` +
    `(raised by hand, or a month failed or was left for the next run): lowered to ${through ?? 'none'}`
  );
}

/** The day of a daily unit's manifest (its partition value, YYYY-MM-DD). */
function dayOf(manifest: UnitManifest, table: CompactedTable): string {
  return table.daily.dayKey ? manifest.partition : manifest.partition.slice(0, 10);
}

/**
 * Why the monthly object is not what its manifest says ('missing', 'size', 'etag', 'checksum'), or
 * undefined when it is (an empty month's manifest names no object). From the table's listing, as
 * planning, the focus pass and the verifier check theirs (destination/object-check.ts); when the
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

/** The monthly manifest with its sources' daily manifests as listed now (what the month was built from). */
async function recordListed(
  sink: Sink,
  key: string,
  monthly: CompactedManifest,
  sources: readonly CompactedSource[],
): Promise<void> {
  const listed = sources.map((s) => s.manifest);
  // Without a listing (it failed) there is nothing to record.
  if (listed.some((m) => m === undefined)) return;
  const same = monthly.sources.every((s, i) => {
    const was = s.manifest;
    const now = listed[i]!;
    return (
      was?.key === now.key && was.size === now.size && was.etag === now.etag && was.mtimeMs === now.mtimeMs
    );
  });
  if (same) return;
  const recorded: CompactedManifest = {
    ...monthly,
    sources: monthly.sources.map((s, i) => ({ ...s, manifest: listed[i]! })),
  };
  await sink.put(key, `${JSON.stringify(recorded, null, 2)}\n`, 'application/json');
}

/** The day of a daily manifest's key (costs: billed_date=D; focus: x_billing_period=M/x_charge_day=DD). */
function dayOfManifestKey(key: string): string | undefined {
  const daily = /billed_date=(\d{4}-\d\d-\d\d)\//.exec(key)?.[1];
  if (daily) return daily;
  const focus = /x_billing_period=(\d{4}-\d\d)\/x_charge_day=(\d\d)\//.exec(key);
  return focus ? `${focus[1]}-${focus[2]}` : undefined;
}

async function compactUnit(
  deps: CompactionDeps,
  log: Logger,
  table: CompactedTable,
  month: string,
  dataSourceId: string,
  dailyUnits: readonly DailyUnit[],
  listed: () => Promise<ReadonlyMap<string, StoredObject>>,
): Promise<{ outcome: 'current' | 'written' | 'removed' | 'empty' | 'kept'; rows: number }> {
  const units = [...dailyUnits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  /** Each day's proven removal, as its daily manifest records it (read with the sources). */
  const removed = new Map<string, string>();
  /** The month's daily manifests, read 16 at a time (a year of 20 data sources is ~7,300 of them). */
  const readSources = async (): Promise<CompactedSource[]> => {
    const dailies: Array<UnitManifest | undefined> = new Array(units.length);
    await forEachLimit(units, 16, async (unit, i) => {
      dailies[i] = parseManifest(await deps.sink.read(unit.key));
    });
    return units.map((unit, i) => {
      const daily = dailies[i];
      // A daily manifest that does not parse proves nothing of its day: the day is missing, and a
      // cost run exports it again while Cloudforet holds it (costs/job/steps.ts, compaction).
      if (!daily) {
        const day = dayOfManifestKey(unit.key);
        if (!day) throw new ExportError('COMPACTION_SOURCE_DAMAGED', `${unit.key} is not a manifest`);
        throw new DayMissingError(
          what,
          [{ day, why: `its daily manifest ${unit.key} does not parse` }],
          false,
        );
      }
      if (daily.removedBecause) removed.set(dayOf(daily, table), daily.removedBecause);
      return {
        key: daily.key,
        ...(daily.sha256 && { sha256: daily.sha256 }),
        rows: daily.key === null ? 0 : daily.rows,
        day: dayOf(daily, table),
        ...(unit.listed && { manifest: listedManifest(unit) }),
      };
    });
  };
  const monthlyManifestKey = manifestKey(table, month, dataSourceId);
  const monthly = parseManifest(await deps.sink.read(monthlyManifestKey)) as CompactedManifest | undefined;
  const what = `${table.name} ${month} ${dataSourceId}`;
  let sources: CompactedSource[] | undefined;
  if (monthly?.schemaVersion === table.schemaVersion) {
    // Built from these days: the listing shows every daily manifest as it was, or (else) they say so.
    const unchanged = listedAsBuilt(monthly, units);
    if (!unchanged) sources = await readSources();
    if (unchanged || compactedFrom(monthly, sources!)) {
      // Current only if its object is still the one the manifest describes.
      const why = await monthlyDifference(deps.sink, log, monthly, listed);
      if (why === undefined) {
        // The daily manifests were read (rewritten without a change, or recorded before): the
        // listing's facts recorded, so the next run tells from the listing alone.
        if (sources) await recordListed(deps.sink, monthlyManifestKey, monthly, sources);
        return { outcome: 'current', rows: 0 };
      }
      log.warn('monthly object is not as its manifest says; rebuilding it from its days', {
        table: table.name,
        month,
        dataSourceId,
        key: monthly.key,
        why,
      });
    }
  }
  sources ??= await readSources();
  // Only a day's own proven removal takes it out of the month; a missing one keeps the month as is.
  const drops = unprovenDrops(
    monthly?.sources,
    sources.map((s) => ({ day: s.day, key: s.key, removedBecause: removed.get(s.day) })),
  );
  if (drops.length > 0) {
    // Views may go on reading the month compacted only while its object is the one recorded.
    const intact =
      monthly !== undefined && (await monthlyDifference(deps.sink, log, monthly, listed)) === undefined;
    throw new DayMissingError(what, drops, intact);
  }
  if (sources.length === 0) {
    throw new ExportError(
      'COMPACTION_SOURCE_DAMAGED',
      `${monthlyManifestKey} is not a monthly manifest, and no daily unit of the month is listed: nothing is changed`,
    );
  }
  /** The daily units the monthly object was built from (key and checksum). */
  const builtFrom = new Set(
    (Array.isArray(monthly?.sources) ? monthly.sources : []).map((s) => `${s.key} ${s.sha256}`),
  );
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
          if (!bytes && builtFrom.has(`${source.key} ${source.sha256}`)) {
            throw new DayMissingError(
              what,
              [{ day: source.day, why: `its daily object ${source.key} is missing` }],
              false,
            );
          }
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
      revisionReason: 'compacted again: a day of the month changed since',
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
