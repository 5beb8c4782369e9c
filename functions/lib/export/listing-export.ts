// The one export flow: one Cloudforet listing into one Parquet object under a fixed key, then its
// manifest. Pages -> column encoder -> pending upload -> commit or abort -> manifest, in that
// order: nothing is published on failure (the previous object and manifest stay as they were),
// and a manifest never names an object that is not there. Every table goes through here, so every
// table's units get their run-ledger row (export/ledger.ts), written just before the manifest.
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { CloudforetClient } from '../cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages, nextPage, pageBody } from '../cloudforet/pager.ts';
import { PagingDriftError } from '../errors.ts';
import type { TableDef } from '../parquet/columns.ts';
import type { Compression } from '../parquet/compression.ts';
import { ParquetRowWriter } from '../parquet/row-writer.ts';

export type { Compression };

import {
  type KeptRevision,
  keepRevision,
  type Proof,
  proveListed,
  removeProven,
} from '../destination/gate.ts';
import { parseManifest } from '../destination/manifest.ts';
import type { ObjectUpload, Sink } from '../storage/sink.ts';
import { revisedTables } from '../tables/revisions.ts';
import { recordExportUnit } from './ledger.ts';
import { recordRevision } from './revisions.ts';

const REVISED = new Set(revisedTables.map((t) => t.name));

export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';
/** Rows encoded between two turns of the event loop (~2.5 ms at ~10 µs a row). */
const ENCODE_SLICE_ROWS = 250;

export interface ListingExportDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  /** The unit's signal: aborting it ends the listing and every request it started. */
  readonly signal?: AbortSignal;
  /** Parquet page codec (PARQUET_COMPRESSION); the writer's default unless set. */
  readonly compression?: Compression;
  /**
   * Called once the last page has come, before the unit publishes: frees the unit's paging place
   * (costs/run.ts), so the next unit pages while this one publishes.
   */
  readonly pagingDone?: () => void;
}

/** What one object holds, once published (key null: the listing was empty, so no object). */
export interface Published {
  readonly key: string | null;
  readonly rows: number;
  readonly bytes: number;
  /** The object's SHA-256 (hex), computed as it was written; what a later check compares with. */
  readonly sha256?: string;
  /** S3: the object's ETag, which a listing gives back for the cheap check. */
  readonly etag?: string;
  /** A directory: the file's modification time; when it moved, the checksum is compared. */
  readonly mtimeMs?: number;
}

export interface ListingExport<C> {
  readonly list: ListRequest;
  /** Pages from another source than the list verb (an analyze verb); `list` then only names it. */
  readonly pages?: (signal: AbortSignal) => AsyncGenerator<ApiRecord[]>;
  readonly table: TableDef<ApiRecord, C>;
  /** The table for this listing, chosen from its first page (columns that depend on the data). */
  readonly tableFor?: (firstPage: readonly ApiRecord[]) => TableDef<ApiRecord, C>;
  readonly context: C;
  readonly key: string;
  readonly manifestKey: string;
  readonly kvMetadata: Record<string, string>;
  readonly rowGroupRows?: number;
  /** Sees each page before it is encoded (e.g. to sum its cost); must not keep it. */
  readonly onPage?: (page: readonly ApiRecord[]) => void;
  /** Proves, after the last page and before anything is published, that the pages are one version. */
  readonly beforePublish?: (pages: number, signal: AbortSignal) => Promise<void>;
  /**
   * An empty listing: remove what is published, given the gate's proof that the period is empty
   * (throw when there is none), or 'keep' it and write no manifest. An empty answer alone proves
   * nothing (Cloudforet answers an empty list as `{}`, and so can a broken gateway): without this,
   * a published object is kept and the outcome says so. With nothing published, 'none' writes the
   * manifest of an empty unit.
   */
  readonly whenEmpty?: (signal: AbortSignal, published: boolean) => Promise<Proof | 'keep' | 'none'>;
  /**
   * Fewer rows than the published object holds: the gate's proof that the source has exactly
   * these rows now (destination/gate.ts), asked before the new object is committed; throwing keeps
   * the published object. Without it, the listing's own completeness is the evidence.
   */
  readonly whenFewer?: (signal: AbortSignal, published: number, written: number) => Promise<Proof>;
  /** The manifest written after the object: its own fields plus what was published. */
  readonly manifest: (published: Published) => object;
  /** Why a published object would be superseded (the revisions ledger's reason). */
  readonly revisionReason?: string;
}

/** 'removed': the unit's published object was deleted (its listing is empty now); 'empty': an empty
 * listing where nothing was published, so nothing was removed (only a manifest saying so). */
export type ListingOutcome = 'written' | 'removed' | 'empty' | 'kept';

export interface ListingResult extends Published {
  readonly outcome: ListingOutcome;
}

export async function exportListing<C>(
  deps: ListingExportDeps,
  spec: ListingExport<C>,
): Promise<ListingResult> {
  const unit = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, unit.signal]) : unit.signal;
  try {
    // What is published now, read while the listing pages (no wait added): the gate needs it
    // before a smaller object is committed, and to tell a removal from an empty unit.
    const reading = deps.sink.read(spec.manifestKey).then(parseManifest);
    reading.catch(() => undefined); // awaited below; a failure then fails the unit
    // What is out now is kept for good before anything replaces or removes it (destination/gate.ts).
    let kept: KeptRevision | undefined;
    // Only the tables a restatement replaces keep revisions (costs, unified costs): a snapshot
    // taken again the same day replaces the day's snapshot, as it always did.
    const keepCurrent = async () => {
      if (!REVISED.has(spec.table.name)) return;
      const before = await reading;
      if (await isPublished(deps.sink, spec.key, before))
        kept = await keepRevision(deps.sink, spec.key, before?.sha256);
    };
    const { rows, bytes, stored, shrunk } = await writeObject(
      deps,
      spec,
      signal,
      async () => (await reading)?.rows ?? 0,
      keepCurrent,
    );
    const before = await reading;
    let removedBecause: string | undefined;
    if (rows === 0) {
      const published = await isPublished(deps.sink, spec.key, before);
      const verdict = spec.whenEmpty ? await spec.whenEmpty(signal, published) : published ? 'keep' : 'none';
      if (verdict === 'keep') return { outcome: 'kept', key: null, rows: 0, bytes: 0 };
      if (published && verdict === 'none') {
        throw new Error(`${spec.key}: an empty listing may not remove a published object without proof`);
      }
      if (published && verdict !== 'none') {
        await keepCurrent();
        removedBecause = await removeProven(deps.sink, spec.key, verdict);
      }
      // Still empty after a proven removal: the proof stays on record for what derives from it.
      else if (before?.key === null) removedBecause = before.removedBecause;
    }
    const published: Published =
      rows > 0 ? { key: spec.key, rows, bytes, ...stored } : { key: null, rows, bytes };
    const manifest = {
      ...spec.manifest(published),
      ...published,
      ...(removedBecause && { removedBecause }),
      ...(shrunk && { shrunkBecause: shrunk.evidence }),
    };
    if (kept) {
      await recordRevision(deps.sink, spec.manifestKey, {
        key: spec.key,
        kept,
        before,
        after: manifest,
        reason: spec.revisionReason ?? 'exported again',
        evidence: removedBecause ?? shrunk?.evidence,
      });
    }
    // The ledger row first: every manifest then has its row, and a failure between them re-exports.
    await recordExportUnit(deps.sink, spec.manifestKey, manifest);
    await deps.sink.put(spec.manifestKey, `${JSON.stringify(manifest, null, 2)}\n`, 'application/json');
    // 'removed' only when a published object was deleted; an empty unit with nothing out is 'empty'.
    const emptyOutcome = removedBecause !== undefined && before?.key !== null ? 'removed' : 'empty';
    return { outcome: rows > 0 ? 'written' : emptyOutcome, ...published };
  } finally {
    unit.abort(); // whatever the unit started and did not wait for ends here
  }
}

/** Whether the unit has an object out: its manifest names one, or (no manifest) the key is listed. */
async function isPublished(
  sink: Sink,
  key: string,
  manifest: ReturnType<typeof parseManifest>,
): Promise<boolean> {
  if (manifest) return manifest.key !== null;
  const folder = key.slice(0, key.lastIndexOf('/') + 1);
  return (await sink.list(folder)).includes(key);
}

/** Streams the listing into a pending upload and commits it; aborts it on any failure. */
async function writeObject<C>(
  deps: ListingExportDeps,
  spec: ListingExport<C>,
  signal: AbortSignal,
  publishedRows: () => Promise<number>,
  keepCurrent: () => Promise<void>,
): Promise<{
  rows: number;
  bytes: number;
  stored?: Pick<Published, 'sha256' | 'etag' | 'mtimeMs'>;
  shrunk?: Proof;
}> {
  const pages = spec.pages ? spec.pages(signal) : listPages(deps.client, spec.list, signal);
  let upload: ObjectUpload | undefined;
  const hash = createHash('sha256');
  let writer: ParquetRowWriter<ApiRecord, C> | undefined;
  let count = 0;
  try {
    // Not for-await: its loop variable would hold each page through the next page's wait and
    // through a row group's compression; a page let go once it is handed over dies young.
    for (let page = await nextPage(pages); page; page = await nextPage(pages)) {
      count++;
      if (!writer) {
        upload = deps.sink.begin(spec.key, PARQUET_CONTENT_TYPE);
        const out = upload;
        const hashed = {
          write: (chunk: Uint8Array) => {
            hash.update(chunk);
            return out.write(chunk);
          },
        };
        writer = new ParquetRowWriter(spec.tableFor?.(page) ?? spec.table, hashed, spec.context, {
          rowGroupRows: spec.rowGroupRows,
          kvMetadata: spec.kvMetadata,
          compression: deps.compression,
        });
      }
      spec.onPage?.(page);
      // In slices, letting I/O in between: other units' answers arrive while a page is encoded,
      // and an answer read only after a whole page's encoding (~10 ms) delays that unit's next
      // request by as much (docs/performance.md, Cloudforet-bound model).
      // The page is let go before its last slice is appended: that append may wait for a row
      // group's compression, which the page must not live through.
      let rows: ApiRecord[] | undefined = page;
      page = undefined;
      for (let from = 0; rows; from += ENCODE_SLICE_ROWS) {
        const whole = from === 0 && rows.length <= ENCODE_SLICE_ROWS;
        const slice = whole ? rows : rows.slice(from, from + ENCODE_SLICE_ROWS);
        if (from + ENCODE_SLICE_ROWS >= rows.length) rows = undefined;
        await writer.append(slice);
        if (rows) await setImmediate();
      }
    }
    deps.pagingDone?.();
    await spec.beforePublish?.(count, signal);
    if (!writer || !upload) return { rows: 0, bytes: 0 };
    const { bytes } = await writer.close();
    // Fewer rows than published: the gate's proof first, or the published object stays.
    const published = await publishedRows();
    const shrunk =
      writer.rows < published
        ? await (spec.whenFewer?.(signal, published, writer.rows) ?? proveListed(writer.rows, published))
        : undefined;
    signal.throwIfAborted();
    await keepCurrent();
    const stored = await commitUnlessStopped(upload, signal);
    return {
      rows: writer.rows,
      bytes,
      stored: { sha256: hash.digest('hex'), ...stored },
      ...(shrunk && { shrunk }),
    };
  } catch (error) {
    await pages.return(undefined); // as for-await would: the listing ends, its requests with it
    await upload?.abort();
    throw error;
  }
}

/** One stray `{}` must not remove a published object: ask once more before believing it is empty. */
export async function confirmEmpty(
  client: CloudforetClient,
  list: ListRequest,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const answer = await client.call(list.path, pageBody(list, 1, 1), { signal });
  const total = typeof answer.total_count === 'number' ? answer.total_count : 0;
  if (total > 0) {
    throw new PagingDriftError(`${list.path}: ${what} answered no rows, then ${total} on a second look`);
  }
}

/**
 * The upload's commit; a stop while it is out (an S3 request that hangs) aborts the upload, and the
 * commit's own outcome then decides: published whole (it finished first, its manifest follows) or
 * failed (nothing published). Never a published object whose unit goes on as if it had failed.
 */
async function commitUnlessStopped(
  upload: ObjectUpload,
  signal: AbortSignal,
): ReturnType<ObjectUpload['commit']> {
  signal.throwIfAborted(); // stopped before publishing: the caller aborts the upload, nothing is out
  const commit = upload.commit();
  let stop: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    stop = () => resolve('stopped');
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    const first = await Promise.race([
      commit.then(
        () => 'settled',
        () => 'settled',
      ),
      stopped,
    ]);
    if (first === 'stopped') await upload.abort();
    return await commit;
  } finally {
    signal.removeEventListener('abort', stop!);
  }
}
