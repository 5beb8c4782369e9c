// Paging over a Cloudforet list verb, as an async generator of pages: by keyset (`idKey gt` the
// last id seen, sorted by the id, from row 1: what costs and cloud services use, so the server's
// sort never holds more than a page) or by offset (page.start, a 1-based ROW offset, for the small
// listings). The server caps a page at 1000 rows, silently. Paging live data can skip or repeat
// rows, so any sign of drift aborts the whole unit.
// However the listing ends (its end, a failure, the caller letting go), every request it started
// has settled or been aborted before it returns, and no retry of one starts after.

import { setImmediate as turnOfTheLoop } from 'node:timers/promises';
import { PagingDriftError } from '../errors.ts';
import type { CloudforetClient, PendingAnswer } from './client.ts';
import type { AnswerCheck } from './parse-answer.ts';
import { checkIds, SeenIds } from './seen-ids.ts';

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
  /**
   * Keyset paging: each page is `idKey gt <last id seen>`, sorted by the id alone, from row 1.
   * For listings whose id is unique and ordered as the server compares it (string ids).
   */
  readonly keyset?: boolean;
  /** query.only: the fields each record keeps (the id key is added), to keep big records small. */
  readonly only?: readonly string[];
  /**
   * Keyset only: ids that cut the id space into ranges (`idKey lt` the first, `gte` it and `lt`
   * the next, …), each paged by keyset on its own and all at once: one page in flight per range.
   * Pages then come in no overall id order. Any ids are correct (the ranges cover every string);
   * ids spread evenly across the ranges make the ranges end together.
   */
  readonly split?: readonly string[];
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
  if (req.keyset) {
    yield* req.split && req.split.length > 0
      ? listRangesAtOnce(client, req, req.split, signal)
      : listKeysetPages(client, req, signal, {});
    return;
  }
  let pageSize = Math.min(req.pageLimit ?? PAGE_LIMIT, PAGE_LIMIT);
  const own = new AbortController();
  const opts = { signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal };
  // Pages ahead wait unparsed (see CloudforetClient.receive).
  let inFlight: Promise<PendingAnswer<ListAnswer>>[] = [];
  /** Requests not settled yet: awaited when the listing ends, so none outlives it. */
  const unsettled = new Set<Promise<void>>();
  let nextStart = 1;
  const request = () => {
    const answer = client.receive<ListAnswer>(req.path, pageBody(req, nextStart, pageSize), {
      ...opts,
      check: rowsFrom(nextStart),
    });
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
      const asked = nextStart;
      page.rows = accept(await (await next).read());
      // Pages just asked for leave before the caller's work on this one (see sendBeforeWork).
      if (nextStart !== asked) await sendBeforeWork();
      if (page.rows.length > 0) yield take();
    }
  } finally {
    own.abort();
    await Promise.all(unsettled);
  }
}

/**
 * Keyset pages: the server's top-k sort holds one page on every page (an offset makes it hold
 * every row before the page too), and rows that vanish before the last id cannot shift the pages.
 * A page's request needs the last id of the page before, so pages come one after the other. The
 * next is asked for as soon as a page has come, before it is parsed: its last id is guessed from
 * the bytes (PendingAnswer.peek), and the guess is kept only if the parsed page ends with that id;
 * otherwise that request is dropped and the next page asked for after the real last id. It then
 * travels while this page is parsed and encoded.
 * Drift: total_count counts the rows after the last id, so it must fall by exactly the rows
 * received, and ids must keep ascending.
 */
async function* listKeysetPages(
  client: CloudforetClient,
  req: ListRequest,
  signal: AbortSignal | undefined,
  range: IdRange,
  /** Awaited after the next page is asked for and before this one is parsed (listRangesAtOnce). */
  beforeParse?: () => Promise<void>,
): AsyncGenerator<ApiRecord[]> {
  const limit = Math.min(req.pageLimit ?? PAGE_LIMIT, PAGE_LIMIT);
  const own = new AbortController();
  const listing = signal ? AbortSignal.any([signal, own.signal]) : own.signal;
  const unsettled = new Set<Promise<void>>();
  interface Asked {
    readonly after: string | undefined;
    readonly answer: Promise<PendingAnswer<ListAnswer>>;
    readonly drop: AbortController;
  }
  const ask = (after: string | undefined): Asked => {
    const drop = new AbortController();
    const answer = client.receive<ListAnswer>(req.path, keysetBody(req, after, limit, range), {
      signal: AbortSignal.any([listing, drop.signal]),
      check: rowsFrom(1),
    });
    const settled = answer.then(
      () => undefined,
      () => undefined,
    );
    unsettled.add(settled);
    void settled.then(() => unsettled.delete(settled));
    return { after, answer, drop };
  };
  let remaining: number | undefined;
  let last: string | undefined;
  let next: Asked | undefined = ask(undefined);
  /** The page after the guessed last id, asked before this one is parsed. */
  let guessed: Asked | undefined;
  /** The checks of one answer, and the page after it asked for (the guessed one if right); its rows. */
  const accept = ({ total_count: total = 0, results: rows = [] }: ListAnswer): ApiRecord[] => {
    if (remaining !== undefined && total !== remaining) {
      throw new PagingDriftError(
        `${req.path}: ${total} rows after ${req.idKey} ${last}, expected ${remaining}, while paging`,
      );
    }
    if (rows.length > total || (rows.length === 0 && total > 0)) {
      throw new PagingDriftError(`${req.path}: a page of ${rows.length} rows with ${total} rows left`);
    }
    last = checkAscending(req, rows, last);
    checkInRange(req, rows, range);
    remaining = total - rows.length;
    const guess = guessed;
    guessed = undefined;
    if (guess && (remaining === 0 || guess.after !== last)) guess.drop.abort();
    if (remaining > 0) next = guess?.after === last ? guess : ask(last);
    return rows;
  };
  /** The answer asked for last, parsed; nothing keeps it but the caller. */
  const readNext = async (): Promise<ListAnswer> => {
    const pending = await next!.answer;
    next = undefined;
    // More rows than a page after this one's start: there is a next page; guess where it starts.
    const total = pending.peek('total_count');
    const after = pending.peek(req.idKey);
    if (typeof total === 'number' && total > limit && typeof after === 'string') {
      guessed = ask(after);
      await sendBeforeWork();
    }
    if (beforeParse) await beforeParse();
    return pending.read();
  };
  // Yielded out of a holder, as in listPages: a suspended generator keeps its locals.
  const page: { rows: ApiRecord[] | undefined } = { rows: undefined };
  const take = (): ApiRecord[] => {
    const rows = page.rows!;
    page.rows = undefined;
    return rows;
  };
  try {
    while (next) {
      page.rows = accept(await readNext());
      if (page.rows.length > 0) yield take();
    }
  } finally {
    own.abort();
    await Promise.all(unsettled);
  }
}

/**
 * One turn of the event loop, taken after asking for a page and before parsing or handing over
 * the one in hand. undici writes a request on a reused keep-alive socket only from a setImmediate
 * (it first lets the poll phase see whether the server closed the socket), so a request asked
 * just before a page's parse and encode (~10-30 ms of synchronous work) left only after them:
 * ~8 ms a page at 100 ms a page (docs/performance.md, round 4, fourth session). Immediates run
 * in the order they were set, so undici's goes first and the request is written now.
 */
const sendBeforeWork = (): Promise<void> => turnOfTheLoop();

/** Ids from `from` (inclusive) to `below` (exclusive); either end open when not given. */
interface IdRange {
  readonly from?: string;
  readonly below?: string;
}

/**
 * A keyset listing cut by `split` into ranges, each paged on its own (listKeysetPages: its own
 * checks, its own total_count falling by the rows it received, its own guess of the next page)
 * and all at once. Each range's rows are checked to lie in it, so a
 * server that ignored a bound would fail the listing rather than repeat rows. The ranges cover
 * every id between them, so every row is in exactly one. Pages are yielded a range at a time in
 * turn, each range's next page in flight meanwhile, and parsed at their turn. Ends as
 * listKeysetPages does: every request of every range settled or aborted before it returns.
 */
async function* listRangesAtOnce(
  client: CloudforetClient,
  req: ListRequest,
  split: readonly string[],
  signal?: AbortSignal,
): AsyncGenerator<ApiRecord[]> {
  const cuts = [...split].sort();
  for (let i = 1; i < cuts.length; i++) {
    if (cuts[i] === cuts[i - 1]) throw new Error(`${req.path}: the split repeats ${cuts[i]}`);
  }
  const own = new AbortController();
  const listing = signal ? AbortSignal.any([signal, own.signal]) : own.signal;
  // A range's page that came before its turn waits as the bytes that came (off the V8 heap), its
  // next page already asked for, and is parsed when its turn comes: parsed early it was held as
  // ~3 MB of objects a unit through the other range's page, long enough to be promoted (parsed at
  // its turn: 21.7 -> 17.6 CPU us a row, docs/performance.md, round 4, third session).
  const parseWaiting = new Map<number, { go: () => void; stop: (reason: unknown) => void }>();
  let parsing = -1;
  const turnToParse = (range: number) => (): Promise<void> => {
    if (listing.aborted) return Promise.reject(listing.reason);
    if (range === parsing) return Promise.resolve();
    return new Promise<void>((go, stop) => parseWaiting.set(range, { go, stop }));
  };
  const letParse = (range: number) => {
    parsing = range;
    parseWaiting.get(range)?.go();
    parseWaiting.delete(range);
  };
  const ranges = [undefined, ...cuts].map((from, i) =>
    listKeysetPages(client, req, listing, { from, below: cuts[i] }, turnToParse(i)),
  );
  /** A range's next page, once it has come; emptied before it is yielded (see listPages). */
  interface Next {
    readonly range: number;
    result: IteratorResult<ApiRecord[]> | undefined;
  }
  const waiting = new Map<number, Promise<Next>>();
  const pull = (range: number): void => {
    const next = ranges[range]!.next().then((result): Next => ({ range, result }));
    // A range may fail while another's page is awaited or held: handled now, thrown at its turn.
    next.catch(() => undefined);
    waiting.set(range, next);
  };
  const page: { rows: ApiRecord[] | undefined } = { rows: undefined };
  const take = (): ApiRecord[] => {
    const rows = page.rows!;
    page.rows = undefined;
    return rows;
  };
  for (let i = 0; i < ranges.length; i++) pull(i);
  let turn = 0;
  try {
    while (waiting.size > 0) {
      // Ranges take turns, whichever answer came first: the same rows make the same object, byte
      // for byte (the rows of a row group are clustered with ties in arrival order), so a re-run
      // over unchanged rows gives the checksum that downstream steps compare.
      while (!waiting.has(turn)) turn = (turn + 1) % ranges.length;
      // The page goes into the holder and nowhere else: no local keeps it through the yield.
      letParse(turn);
      const next = await waiting.get(turn)!;
      const range = next.range;
      turn = (range + 1) % ranges.length;
      waiting.delete(range);
      if (!next.result!.done) page.rows = next.result!.value;
      next.result = undefined;
      if (!page.rows) continue;
      yield take();
      // The range's next request left when this page came (its guess); it is read from here on.
      pull(range);
    }
  } finally {
    own.abort();
    // A range still reading its answer ends on the abort; so does one waiting for its turn, unparsed
    // and asking nothing more.
    for (const waiting of parseWaiting.values()) waiting.stop(listing.reason);
    parseWaiting.clear();
    await Promise.allSettled(waiting.values());
    await Promise.allSettled(ranges.map((r) => r.return(undefined)));
  }
}

/** Every row's id inside the range the page was asked for (ids ascend: the first and last). */
function checkInRange(req: ListRequest, rows: readonly ApiRecord[], range: IdRange): void {
  if (rows.length === 0) return;
  const first = String(rows[0]![req.idKey]);
  const last = String(rows[rows.length - 1]![req.idKey]);
  if (
    (range.from !== undefined && first < range.from) ||
    (range.below !== undefined && last >= range.below)
  ) {
    throw new PagingDriftError(
      `${req.path}: ${req.idKey} ${first}..${last} outside the range asked for (from ${range.from ?? 'the start'} below ${range.below ?? 'the end'})`,
    );
  }
}

/**
 * A page whose offset the answer's own total_count reaches must hold results: `{}` is an empty
 * list and `{"total_count": N}` a page past the end, but total_count 5 with no results at row 1
 * is no answer, and taking it for an empty page would publish a day without its rows.
 */
export function rowsFrom(start: number): AnswerCheck {
  return ({ results, total_count: total }) =>
    results === undefined && typeof total === 'number' && total >= start
      ? `"total_count": ${total} and no "results" for rows from ${start}`
      : undefined;
}

/** Every id above the one before it (and above the last id asked after); the last id. */
function checkAscending(req: ListRequest, rows: readonly ApiRecord[], after: string | undefined) {
  let last = after;
  for (const row of rows) {
    const id = row[req.idKey];
    if (typeof id !== 'string' || (last !== undefined && id <= last)) {
      throw new PagingDriftError(`${req.path}: ${req.idKey} ${String(id)} is not after ${last} while paging`);
    }
    last = id;
  }
  return last;
}

/** A keyset page's body: the listing's filter plus `idKey gt after`, sorted by the id, from row 1. */
export function keysetBody(
  req: ListRequest,
  after: string | undefined,
  limit: number,
  range: IdRange = {},
): Record<string, unknown> {
  const filter = [
    ...(req.filter ?? []),
    ...(range.from === undefined ? [] : [{ k: req.idKey, v: range.from, o: 'gte' }]),
    ...(range.below === undefined ? [] : [{ k: req.idKey, v: range.below, o: 'lt' }]),
    ...(after === undefined ? [] : [{ k: req.idKey, v: after, o: 'gt' }]),
  ];
  const query: Record<string, unknown> = {
    sort: [{ key: req.idKey, desc: false }],
    page: { start: 1, limit },
  };
  if (filter.length > 0) query.filter = filter;
  if (req.only) query.only = onlyFields(req);
  return { ...req.params, query };
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
  if (req.only) query.only = onlyFields(req);
  return { ...req.params, query };
}

const onlyFields = (req: ListRequest): string[] => [...new Set([req.idKey, ...(req.only ?? [])])];
