// cost/list over a lazily generated table: prune days from the date conditions, walk them in
// answer order, and page without materialising anything the page does not need.

import { daysIn, dayWindow } from './cost-days.ts';
import type { CostRecord } from './cost-rows.ts';
import type { CostStore } from './cost-store.ts';
import type { Condition, Predicate } from './filters.ts';
import { Lru } from './lru.ts';
import {
  answer,
  arraySource,
  buildPredicate,
  chargeSort,
  effectiveSort,
  type PageSource,
  type ParsedQuery,
  type SortKey,
  sortRecords,
} from './query.ts';
import type { DataSource } from './world.ts';

export interface CostListRequest {
  readonly ds: DataSource;
  readonly query: ParsedQuery;
  /** Conditions of the caller's own (workspace scope, top-level fields); none = whole domain. */
  readonly extra: readonly Predicate[];
  /** Names `extra` for the answer cache. */
  readonly extraKey: string;
}

/** Without a sort, rows come newest day first (Cloudforet's order is no contract either). */
const DEFAULT_SORT: SortKey[] = [{ key: 'billed_date', desc: true }];

/** Matches kept sorted between pages of the same query; bounded by rows referenced. */
const CACHED_MATCHES = 300_000;
const answers = new WeakMap<CostStore, Lru<CostRecord[]>>();

function answerCache(store: CostStore): Lru<CostRecord[]> {
  let cache = answers.get(store);
  if (!cache) {
    cache = new Lru<CostRecord[]>(CACHED_MATCHES);
    answers.set(store, cache);
  }
  return cache;
}

/** Day order that already is the answer order, or undefined when rows need a real sort. */
function walkOrder(sort: readonly SortKey[], dayCount: number): 'asc' | 'desc' | undefined {
  const [first, second] = sort;
  const byId = (s: SortKey | undefined) => s?.key === 'cost_id' && !s.desc;
  if (sort.length === 1 && byId(first) && dayCount <= 1) return 'asc';
  if (sort.length === 2 && first?.key === 'billed_date' && byId(second)) return first.desc ? 'desc' : 'asc';
  return undefined;
}

/** `data_source_id eq <this one>` restates the request: it cannot change the answer. */
const restatesSource = (ds: DataSource) => (c: Condition) =>
  c.key === 'data_source_id' && c.operator === 'eq' && c.value === ds.id;

// cost-analysis service/cost_service.py CostService.list: page limit 1000, total_count of every match.
export function listCosts(store: CostStore, req: CostListRequest): string {
  const { ds, query } = req;
  const keyset = query.filter.filter(isIdRange);
  const dateConditions = query.filter.filter((c) => !restatesSource(ds)(c) && !keyset.includes(c));
  const window = dayWindow(dateConditions);
  const days = daysIn(window, store.candidateDays(ds));
  const sort = effectiveSort(query.sort.length > 0 ? query.sort : DEFAULT_SORT, 'cost_id');
  const order = walkOrder(sort, days.length);
  if (order === 'desc') days.reverse();
  const plain =
    window.exact &&
    query.filterOr.length === 0 &&
    query.keyword === undefined &&
    req.extra.length === 0 &&
    !days.some((day) => store.mixed(ds, day));
  const examined = days.reduce((n, day) => n + store.count(ds, day), 0);
  if (plain && order && (keyset.length === 0 || (order === 'asc' && days.length === 1))) {
    const [skip, end] = days[0] === undefined ? [0, undefined] : idSpan(store, ds, days[0], keyset);
    return answerByCounts(store, ds, days, query, skip, examined, end);
  }
  const matches = matchingRows(store, req, days, order === undefined ? sort : undefined);
  chargeSort(store, query, matches.length, examined);
  return answer(query, matches.length, arraySource(matches), { capped: true });
}

/**
 * `cost_id gt <id>` (a keyset page), and `gte`, `lt`, `lte` (a range of ids, as an exporter paging
 * a day in two ranges at once asks): answered from the id order without filtering rows, with the
 * same string comparison the row filter (filters.ts) and MongoDB make.
 */
const isIdRange = (c: Condition) =>
  c.key === 'cost_id' && ['gt', 'gte', 'lt', 'lte'].includes(c.operator) && typeof c.value === 'string';

/** The positions [skip, end) of the day's rows, in id order, that every id condition admits. */
function idSpan(store: CostStore, ds: DataSource, day: number, conditions: readonly Condition[]) {
  let skip = 0;
  let end = Number.POSITIVE_INFINITY;
  for (const { operator, value } of conditions) {
    const id = String(value);
    if (operator === 'gt') skip = Math.max(skip, store.rowsThrough(ds, day, id));
    if (operator === 'gte') skip = Math.max(skip, store.rowsBelow(ds, day, id));
    if (operator === 'lt') end = Math.min(end, store.rowsBelow(ds, day, id));
    if (operator === 'lte') end = Math.min(end, store.rowsThrough(ds, day, id));
  }
  return [skip, Math.max(skip, end)] as const;
}

/**
 * No row-level conditions: counts are known without generating, pages touch only their days.
 * `skip` rows at the start are out of the answer (a keyset page: the ids up to the last one seen),
 * and so are the rows from `end` on.
 */
function answerByCounts(
  store: CostStore,
  ds: DataSource,
  days: number[],
  query: ParsedQuery,
  skip: number,
  examined: number,
  /** Rows from this position on are out of the answer too (a range of ids). */
  end = Number.POSITIVE_INFINITY,
): string {
  const counts = days.map((day) => store.count(ds, day));
  const total =
    Math.min(
      counts.reduce((a, b) => a + b, 0),
      end,
    ) - skip;
  chargeSort(store, query, total, examined);
  const json = (from: number, to: number): string[] => {
    const rows: string[] = [];
    let offset = -skip;
    days.forEach((day, i) => {
      const count = counts[i] ?? 0;
      if (offset + count > from && offset < to) {
        rows.push(...store.json(ds, day, Math.max(0, from - offset), to - offset));
      }
      offset += count;
    });
    return rows;
  };
  const source: PageSource = { json, records: (from, to) => json(from, to).map((row) => JSON.parse(row)) };
  return answer(query, total, source, { capped: true });
}

function matchingRows(
  store: CostStore,
  req: CostListRequest,
  days: number[],
  sort?: SortKey[],
): CostRecord[] {
  const { ds, query } = req;
  const key = JSON.stringify([
    ds.id,
    store.epoch,
    req.extraKey,
    query.filter,
    query.filterOr,
    query.keyword ?? null,
    query.sort,
  ]);
  const cache = answerCache(store);
  const cached = cache.get(key);
  if (cached) return cached;
  const predicate = buildPredicate(query, {
    extra: req.extra,
    keywordFields: ['cost_id', 'product', 'usage_type', 'resource'],
  });
  let matches: CostRecord[] = [];
  for (const day of days) {
    for (const row of store.records(ds, day)) if (predicate(row)) matches.push(row);
  }
  if (sort) matches = sortRecords(matches, sort);
  if (matches.length <= CACHED_MATCHES) cache.set(key, matches, matches.length);
  return matches;
}
