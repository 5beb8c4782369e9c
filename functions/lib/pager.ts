// Offset paging over a Cloudforet list verb, as an async generator of pages.
// page.start is a 1-based ROW offset and the server caps a page at 1000 rows, silently.
// Paging live data can skip or repeat rows, so any sign of drift aborts the whole unit.
import type { CloudforetClient } from './cloudforet-client.ts';
import { PagingDriftError } from './errors.ts';

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
 */
export async function* listPages(client: CloudforetClient, req: ListRequest): AsyncGenerator<ApiRecord[]> {
  let pageSize = Math.min(req.pageLimit ?? PAGE_LIMIT, PAGE_LIMIT);
  let inFlight: Promise<ListAnswer>[] = [];
  let nextStart = 1;
  const request = () => {
    const answer = client.call<ListAnswer>(req.path, pageBody(req, nextStart, pageSize));
    answer.catch(() => {}); // a page asked ahead may be abandoned when the unit fails; it is awaited otherwise
    inFlight.push(answer);
    nextStart += pageSize;
  };
  const seen = new SeenIds();
  let expected: number | undefined;
  let received = 0;
  request();
  for (let next = inFlight.shift(); next; next = inFlight.shift()) {
    const answer: ListAnswer = await next;
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
    if (rows.length > 0) yield rows;
  }
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
 * The ids of one listing so far. Answers are sorted by id, so while each id is above the last a
 * sorted array proves there is no repeat (no hashing, half a Set's memory); the first id out of
 * that order moves them all into a Set, which checks from then on.
 */
class SeenIds {
  private ascending: Array<string | number> = [];
  private set: Set<unknown> | undefined;

  /** False when the id came before. */
  add(id: unknown): boolean {
    if (!this.set) {
      const last = this.ascending[this.ascending.length - 1];
      const comparable = typeof id === 'string' || typeof id === 'number';
      if (comparable && (last === undefined || (typeof last === typeof id && id > last))) {
        this.ascending.push(id);
        return true;
      }
      this.set = new Set(this.ascending);
      this.ascending = [];
    }
    if (this.set.has(id)) return false;
    this.set.add(id);
    return true;
  }
}
