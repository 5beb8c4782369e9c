// The one gate for destructive writes. Removing a published object, replacing it by fewer rows,
// keeping a superseded object as a revision before it goes, and creating an archived version
// (written once, never rewritten) all go through here, for every table; `test/unit/gate-rule.test.ts` fails when any other module calls `sink.remove` or
// `sink.createIfAbsent`. A removal or a shrink takes a `Proof`, which only the constructors below
// build, and only from evidence that positively shows the new state: an answer with no rows at
// all, a missing field, a bare 2xx or a lost race never makes one (docs/guarantees.md).
import { createHash } from 'node:crypto';
import { ExportError, UnprovenRemovalError } from '../errors.ts';
import type { Sink } from '../storage/sink.ts';
import { revisionKey, setAsideKey } from './layout.ts';

declare const PROVEN: unique symbol;

/** Evidence that a destructive write shows the source's true new state; built only in this module. */
export interface Proof {
  /** What proved it, in words the run ledger and the restatement lines keep. */
  readonly evidence: string;
  readonly [PROVEN]: true;
}

const proof = (evidence: string): Proof => ({ evidence }) as Proof;

/** One result row of a `cost/analyze` DAILY answer for one data source and one calendar month. */
export interface AnalyzeDay {
  readonly date: string;
  readonly rows: number;
}

/** A month's `cost/analyze` DAILY answer, read page by page. */
export interface AnalyzeMonth {
  /**
   * Every page was a well-formed answer (a results list) and the last one ended the answer (`more`
   * false, or a short page nothing said was short). A month cut at a page proves nothing.
   */
  readonly complete: boolean;
  readonly days: readonly AnalyzeDay[];
}

/**
 * A published cost day may go only when Cloudforet positively shows it empty: the month's
 * `cost/analyze` answer, complete, holds rows of the data source's other days (so it is an answer
 * about this data source, not `{}` from a gateway) and none of this day. `{}` for the month (no
 * row at all) or an answer cut short proves nothing. The caller has already seen the day's listing
 * empty twice (confirmEmpty throws otherwise) inside retention (past it, the archive is kept and
 * no proof is asked).
 */
export function proveDayEmpty(e: {
  readonly what: string;
  readonly date: string;
  /** The month's analyze answer, asked at removal time. */
  readonly month: AnalyzeMonth;
}): Proof {
  if (!e.month.complete) {
    throw new UnprovenRemovalError(
      'REMOVAL_UNPROVEN',
      `cost/list answered no rows for ${e.what}, and cost/analyze gave no complete answer for the data source's ` +
        'month (a page without results proves nothing): the published day is kept. Rerun; if it persists, check ' +
        'what stands before the API (a proxy or cache answering {})',
    );
  }
  const days = e.month.days;
  const today = days.filter((d) => d.date === e.date).reduce((n, d) => n + d.rows, 0);
  if (today > 0) {
    throw new UnprovenRemovalError(
      'EMPTY_ANSWER_CONTRADICTED',
      `cost/list answered no rows for ${e.what}, but cost/analyze counts ${today}: the published day is kept; ` +
        'rerun, and check what stands before the API (a proxy answering {}?) if it persists',
    );
  }
  const otherDays = new Set(days.filter((d) => d.rows > 0).map((d) => d.date)).size;
  if (otherDays === 0) {
    throw new UnprovenRemovalError(
      'REMOVAL_UNPROVEN',
      `cost/list answered no rows for ${e.what}, and cost/analyze answered no row for any day of the data ` +
        "source's month (an empty answer proves nothing): the published day is kept. If the day really lost " +
        'every row, it is removed once Cloudforet shows other days of the month; otherwise check what stands before the API',
    );
  }
  return proof(
    `cost/list empty twice; cost/analyze counts 0 rows for the day and rows on ${otherDays} other day(s) of the month; inside retention`,
  );
}

/**
 * A derived object (a FOCUS unit) follows its source's proven removal: the source's manifest
 * records that its object was removed and what proved it.
 */
export function proveSourceRemoved(source: {
  readonly key: string | null;
  readonly rows: number;
  readonly removedBecause?: string;
}): Proof | undefined {
  if (source.key !== null || source.rows !== 0 || !source.removedBecause) return undefined;
  return proof(`its source was removed: ${source.removedBecause}`);
}

/**
 * Fewer rows than published replace an object only when another verb counts exactly the new rows
 * (a cost day: cost/analyze, asked after the listing), never because the listing alone says so.
 */
export function proveFewerRows(e: {
  readonly what: string;
  readonly published: number;
  readonly written: number;
  readonly counted: number | undefined;
  readonly by: string;
}): Proof {
  if (e.counted === e.written) {
    return proof(`${e.by} counts ${e.counted} rows, the listing gave ${e.written} (was ${e.published})`);
  }
  throw new UnprovenRemovalError(
    'EMPTY_ANSWER_CONTRADICTED',
    `${e.what}: the listing gave ${e.written} rows where ${e.published} are published, and ${e.by} ` +
      `${e.counted === undefined ? 'gave no count' : `counts ${e.counted}`}: the published object is kept; rerun`,
  );
}

/**
 * The default for tables with no second verb to count them (inventory, identity, budgets): the
 * listing's pages came whole, their total_count agreeing with the rows received (the pager
 * checks every page), so the smaller set is the source's own statement, not a silence.
 */
export function proveListed(written: number, published: number): Proof {
  if (written <= 0) throw new Error('proveListed: an empty listing is never a proof');
  return proof(`a complete listing of ${written} rows (was ${published})`);
}

/**
 * A derived object (FOCUS) holds one row per row of its source object, whose bytes were checked
 * against the source's manifest before they were read: it follows the source, shrinking with it.
 */
export function proveDerivedFrom(sourceKey: string, sha256: string | undefined, rows: number): Proof {
  if (!sha256) throw new Error(`${sourceKey}: a source without a checksum proves nothing`);
  return proof(`derived row for row from ${sourceKey} (${rows} rows, sha256 ${sha256.slice(0, 12)}…)`);
}

/**
 * A derived table rebuilt whole from every published object it derives from (the identity names'
 * ranges from every snapshot day): it holds what those objects say, shrinking when they do.
 */
export function proveRebuiltFrom(what: string, objects: number): Proof {
  if (objects <= 0) throw new Error(`proveRebuiltFrom: no ${what} read proves nothing`);
  return proof(`rebuilt whole from ${objects} published day(s) of ${what}`);
}

/**
 * A compacted object (one data source's confirmed month) holds exactly the rows of the daily
 * objects its manifest names, each checked against its own manifest's checksum before it was
 * read: it follows them, shrinking with them or going when none has an object left. Every daily
 * unit of the month is named; one with an object but no checksum proves nothing.
 */
export function proveCompactedFrom(
  what: string,
  sources: ReadonlyArray<{ readonly key: string | null; readonly sha256?: string; readonly rows: number }>,
  written: number,
): Proof {
  if (sources.length === 0) throw new Error(`${what}: no daily unit is never a proof`);
  const unchecked = sources.find((s) => s.key !== null && !s.sha256);
  if (unchecked) throw new Error(`${what}: ${unchecked.key} has no checksum, so it proves nothing`);
  const rows = sources.reduce((n, s) => n + (s.key === null ? 0 : s.rows), 0);
  if (rows !== written) throw new Error(`${what}: its days count ${rows} rows, ${written} were written`);
  const objects = sources.filter((s) => s.key !== null).length;
  return proof(
    `compacted from ${objects} checked daily object(s) of ${sources.length} unit(s), ${rows} rows`,
  );
}

/** A mixed day publishes only the rows of the newest successful sync job: fewer rows by design. */
export function proveJobRows(jobId: string, written: number, published: number): Proof {
  return proof(`only the ${written} rows of successful sync job ${jobId} (was ${published})`);
}

/**
 * An object moved into a tenant's folder (destination/tenant-move.ts): its copy was read back and its
 * SHA-256 is the source's. What proves a source object may go, and a manifest may be rewritten to
 * name its object's copy as the store describes it (an ETag S3 gave the copy, a file's new mtime).
 */
export function proveCopied(
  key: string,
  sourceSha256: string | undefined,
  copySha256: string | undefined,
): Proof {
  if (!sourceSha256 || sourceSha256 !== copySha256) {
    throw new Error(
      `${key}: its copy reads back ${copySha256 ?? 'nothing'}, the source ${sourceSha256 ?? 'nothing'}: no proof of a move`,
    );
  }
  return proof(`moved: its copy reads back the same SHA-256 ${sourceSha256.slice(0, 12)}…`);
}

/**
 * A manifest rewritten so that it describes the copy of its object (and of the daily manifests a
 * compacted month names), given the proof that each such copy holds the source's bytes.
 */
export async function rewriteManifestForCopy(
  sink: Sink,
  key: string,
  body: string,
  why: readonly Proof[],
): Promise<void> {
  if (why.length === 0) throw new Error(`${key}: a manifest is rewritten only for copies proven whole`);
  await sink.put(key, body, 'application/json');
}

/** An object the run itself made for its own use (a claim, a probe), never an archived one. */
export function ownScratch(why: string): Proof {
  return proof(`own scratch object: ${why}`);
}

/**
 * Sets aside a bookkeeping file that does not parse (a ledger line, a rollup object): its bytes are
 * kept whole under `_damaged/` (outside every table) before it leaves its place, so no reader trips
 * on it and nothing of it is lost. Returns where the bytes are kept.
 */
export async function setAsideUnreadable(sink: Sink, key: string): Promise<string> {
  const keptAt = setAsideKey(key);
  const bytes = await sink.readBytes(key);
  if (bytes === undefined) return keptAt;
  const upload = sink.begin(keptAt, 'application/octet-stream');
  try {
    await upload.write(bytes);
    await upload.commit();
  } catch (error) {
    await upload.abort().catch(() => undefined);
    throw error;
  }
  await sink.remove(key);
  return keptAt;
}

/** A superseded object kept for good: where, and what it held. */
export interface KeptRevision {
  readonly key: string;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Keeps the object under `key` for good before it is replaced or removed: its bytes copied whole to
 * its revision key (layout.ts revisionKey, named by their checksum) unless a revision of these very
 * bytes is already there. Called before the replacing commit or the removal, so a crash in between
 * leaves the object and its copy (the same bytes twice, never none); a rerun finds the copy and
 * writes nothing. A revision is never rewritten nor removed. Undefined when no object is there.
 * Bytes that are not the ones the unit's manifest records (`published`: its SHA-256) may be damage,
 * which Athena would fail on inside a revisions table: they are kept whole under `_damaged/`
 * instead, outside every table. (So is the rare object a crashed attempt committed without its
 * manifest, current for the seconds until the rerun.)
 */
export async function keepRevision(
  sink: Sink,
  key: string,
  published: string | undefined,
): Promise<KeptRevision | undefined> {
  const bytes = await sink.readBytes(key);
  if (bytes === undefined) return undefined;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const revision = revisionKey(key, sha256);
  const recorded = published === undefined || published === sha256;
  const kept = { key: recorded ? revision : setAsideKey(revision), sha256, bytes: bytes.length };
  const folder = kept.key.slice(0, kept.key.lastIndexOf('/') + 1);
  if ((await sink.list(folder)).includes(kept.key)) return kept;
  const upload = sink.begin(kept.key, 'application/vnd.apache.parquet');
  try {
    await upload.write(bytes);
    await upload.commit();
  } catch (error) {
    await upload.abort().catch(() => undefined);
    throw error;
  }
  return kept;
}

/** Removes a published object, given the proof that the source no longer has it. */
export async function removeProven(sink: Sink, key: string, why: Proof): Promise<string> {
  await sink.remove(key);
  return why.evidence;
}

/**
 * Creates an object that is never rewritten once it exists (an archived statement, a record, a
 * claim): a conditional create on S3 and on a directory alike. When one is already there, it is
 * left as it is: 'same' when it holds these very bytes (a rerun of the same version), 'other'
 * otherwise (another run got there first, or a stopped run's leftover).
 */
export async function createOnce(
  sink: Sink,
  key: string,
  body: string,
  contentType: string,
): Promise<'created' | 'same' | 'other'> {
  if (await sink.createIfAbsent(key, body, contentType)) return 'created';
  return (await sink.read(key)) === body ? 'same' : 'other';
}

/** An archived object found holding other bytes than this run would write: the race is reported. */
export class ArchiveRaceError extends ExportError {
  readonly retryable = true;
  constructor(key: string, what: string) {
    super(
      'ARCHIVE_RACE',
      `${key} is already archived with other content (${what}); it is kept as first written: run again`,
    );
  }
}
