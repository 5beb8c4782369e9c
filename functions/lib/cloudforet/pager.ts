// Offset paging over a Cloudforet list verb, as an async generator of pages.
// page.start is a 1-based ROW offset and the server caps a page at 1000 rows, silently.
// Paging live data can skip or repeat rows, so any sign of drift aborts the whole unit.
// However the listing ends (its end, a failure, the caller letting go), every request it started
// has settled or been aborted before it returns, and no retry of one starts after.
import type { CloudforetClient, PendingAnswer } from './client.ts';
import { PagingDriftError } from '../errors.ts';

export const PAGE_LIMIT = 1000;

export type ApiRecord = Record<string, unknown>;

export interface ListRequest {
  readonly path: string;
  /** The verb's own fields (e.g. data_source_id); `query` is built here. */
  readonly params?: Record<string, unknown>;
  readonly filter?: ReadonlyArray<{ k: string; v: unknown; o: string }>;
  /** Sort keys; the id key is always appended last so the order is total. */
  readonly sort?: readonly string[];
  readonly idKey: string;
  /** What makes a record unique, when the id key alone does not (default: the id key). */
  readonly identify?: (record: ApiRecord) => unknown;
  readonly pageLimit?: number;
}

interface ListAnswer {
  results?: ApiRecord[];
  total_count?: number;
}

/** Pages requested ahead of the one being handled: enough to hide ~20 ms of latency per page. */
export const PAGES_AHEAD = 2;

/**
 * Pages of records, in order; while the caller handles one, the next PAGES_AHEAD are on their way.
 * Offsets ahead assume full pages; a short page before the end (a server paging smaller than
 * asked) drops them and pages on from the row after it, at that size.
 * The signal (the unit's) aborts every request of the listing; so does the listing's own end.
 */
export async function* listPages(
  client: CloudforetClient,
  req: ListRequest,
  signal?: AbortSignal,
): AsyncGenerator<ApiRecord[]> {
  let pageSize = Math.min(req.pageLimit ?? PAGE_LIMIT, PAGE_LIMIT);
  const own = new AbortController();
  const opts = { signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal };
  // Pages ahead wait unparsed (see CloudforetClient.receive).
  let inFlight: Promise<PendingAnswer<ListAnswer>>[] = [];
  /** Requests not settled yet: awaited when the listing ends, so none outlives it. */
  const unsettled = new Set<Promise<void>>();
  let nextStart = 1;
  const request = () => {
    const answer = client.receive<ListAnswer>(req.path, pageBody(req, nextStart, pageSize), opts);
    const settled = answer.then(
      () => undefined,
      () => undefined, // a page asked ahead may be dropped when the listing fails
    );
    unsettled.add(settled);
    void settled.then(() => unsettled.delete(settled));
    inFlight.push(answer);
    nextStart += pageSize;
  };
  const seen = new SeenIds();
  let expected: number | undefined;
  let received = 0;
  /** The checks of one answer, and the pages after it asked for; its rows. */
  const accept = (answer: ListAnswer): ApiRecord[] => {
    const total = answer.total_count ?? 0;
    const rows = answer.results ?? [];
    if (expected !== undefined && total !== expected) {
      throw new PagingDriftError(`${req.path}: total_count moved from ${expected} to ${total} while paging`);
    }
    expected = total;
    received += rows.length;
    if (rows.length === 0 && received < total) {
      throw new PagingDriftError(`${req.path}: an empty page at row ${received + 1} of ${total}`);
    }
    if (received > total) {
      throw new PagingDriftError(`${req.path}: received ${received} rows, more than total_count ${total}`);
    }
    if (rows.length < pageSize && received < total) {
      pageSize = rows.length;
      inFlight = [];
      nextStart = received + 1;
    }
    while (inFlight.length < PAGES_AHEAD && nextStart <= total) request();
    checkIds(req, rows, seen);
    return rows;
  };
  // The page is yielded out of a holder, never out of a local: a suspended generator keeps its
  // locals, so `yield rows` would hold each page until the caller asks for the next one, through
  // the caller's wait for a row group to be compressed and written (~0.2 s), long enough for
  // the GC to promote the page to the old generation only for it to die there.
  const page: { rows: ApiRecord[] | undefined } = { rows: undefined };
  const take = (): ApiRecord[] => {
    const rows = page.rows!;
    page.rows = undefined;
    return rows;
  };
  try {
    request();
    for (let next = inFlight.shift(); next; next = inFlight.shift()) {
      page.rows = accept(await (await next).read());
      if (page.rows.length > 0) yield take();
    }
  } finally {
    own.abort();
    await Promise.all(unsettled);
  }
}

/** The next page of a listing, or undefined at its end; the iterator's result is not kept. */
export async function nextPage(pages: AsyncGenerator<ApiRecord[]>): Promise<ApiRecord[] | undefined> {
  const result = await pages.next();
  return result.done ? undefined : result.value;
}

/** The request body for one page: only fields the verb defines, never anything else. */
export function pageBody(req: ListRequest, start: number, limit: number): Record<string, unknown> {
  const sortKeys = [...(req.sort ?? []).filter((k) => k !== req.idKey), req.idKey];
  const query: Record<string, unknown> = {
    sort: sortKeys.map((key) => ({ key, desc: false })),
    page: { start, limit },
  };
  if (req.filter && req.filter.length > 0) query.filter = req.filter;
  return { ...req.params, query };
}

function checkIds(req: ListRequest, rows: ApiRecord[], seen: SeenIds): void {
  for (const row of rows) {
    const id = req.identify ? req.identify(row) : row[req.idKey];
    if (id === undefined) continue;
    if (!seen.add(id))
      throw new PagingDriftError(`${req.path}: ${req.idKey} ${String(id)} came twice while paging`);
  }
}

/**
 * The ids of one listing so far. Answers are sorted by id, so while each id is above the last the
 * ids in order prove there is no repeat (no hashing); the first id out of that order moves them
 * all into a Set, which checks from then on. In order, string ids are kept a chunk at a time as
 * one string with their lengths: about 20 bytes an id instead of a string object and an array
 * slot each (~50), and a handful of objects for the GC to trace instead of one an id.
 */
class SeenIds {
  /** The last id in order; undefined before the first. */
  private last: string | number | undefined;
  private readonly numbers: number[] = [];
  /** String ids in order: whole chunks joined, with each id's length, then the chunk being filled. */
  private readonly chunks: { text: string; lengths: Uint32Array }[] = [];
  private pending: string[] = [];
  private set: Set<unknown> | undefined;

  /** False when the id came before. */
  add(id: unknown): boolean {
    if (!this.set) {
      const { last } = this;
      if (
        (typeof id === 'string' || typeof id === 'number') &&
        (last === undefined || (typeof last === typeof id && id > last))
      ) {
        this.last = id;
        if (typeof id === 'number') this.numbers.push(id);
        else if (this.pending.push(id) === ID_CHUNK) this.seal();
        return true;
      }
      this.set = new Set(this.inOrder());
      this.chunks.length = 0;
      this.pending = [];
      this.numbers.length = 0;
    }
    if (this.set.has(id)) return false;
    this.set.add(id);
    return true;
  }

  private seal(): void {
    const lengths = new Uint32Array(this.pending.length);
    for (let i = 0; i < lengths.length; i++) lengths[i] = this.pending[i]!.length;
    this.chunks.push({ text: this.pending.join(''), lengths });
    this.pending = [];
  }

  private *inOrder(): Generator<string | number> {
    yield* this.numbers;
    for (const { text, lengths } of this.chunks) {
      let at = 0;
      for (const length of lengths) {
        yield text.slice(at, at + length);
        at += length;
      }
    }
    yield* this.pending;
  }
}

/** String ids joined at a time: ~17 KB strings for Cloudforet's ids. */
const ID_CHUNK = 1024;
