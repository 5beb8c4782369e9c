// The `query` object every list verb shares: parsing, matching, sorting, paging, projection.
// Implemented once; cost/list adds day pruning on top (cost-query.ts).

import { ApiError, unknownError, unknownField } from './api-error.ts';
import type { QueryCost } from './cost-store.ts';
import { type Condition, compileCondition, type Predicate, parseCondition, readPath } from './filters.ts';
import { recordsJson } from './record-json.ts';
import type { ApiRecord } from './world.ts';

export interface SortKey {
  readonly key: string;
  readonly desc: boolean;
}

export interface ParsedQuery {
  readonly filter: Condition[];
  readonly filterOr: Condition[];
  readonly sort: SortKey[];
  readonly start: number;
  readonly limit?: number;
  readonly only?: string[];
  readonly countOnly: boolean;
  readonly minimal: boolean;
  readonly keyword?: string;
  /** Verb-specific fields (analyze's granularity, fields, ...), unvalidated. */
  readonly extra: Record<string, unknown>;
}

const COMMON_FIELDS = ['filter', 'filter_or', 'sort', 'page', 'only', 'count_only', 'minimal', 'keyword'];
export const CAP = 1000;

function listOf(value: unknown, name: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unknownError(`Failed to parse query.${name}: a list is expected.`);
  return value;
}

export function parseQuery(raw: unknown, extraFields: readonly string[] = []): ParsedQuery {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw unknownError('Failed to parse query: an object is expected.');
  const query = raw as Record<string, unknown>;
  const extra: Record<string, unknown> = {};
  for (const field of Object.keys(query)) {
    if (extraFields.includes(field)) extra[field] = query[field];
    else if (!COMMON_FIELDS.includes(field)) throw unknownField('Query', field);
  }
  const page = parsePage(query['page']);
  const only = query['only'] === undefined ? undefined : listOf(query['only'], 'only');
  if (only?.some((f) => typeof f !== 'string'))
    throw unknownError('Failed to parse query.only: strings are expected.');
  return {
    filter: listOf(query['filter'], 'filter').map(parseCondition),
    filterOr: listOf(query['filter_or'], 'filter_or').map(parseCondition),
    sort: listOf(query['sort'], 'sort').map(parseSortKey),
    ...page,
    only: only as string[] | undefined,
    countOnly: flag(query['count_only'], 'count_only'),
    minimal: flag(query['minimal'], 'minimal'),
    keyword: typeof query['keyword'] === 'string' && query['keyword'] !== '' ? query['keyword'] : undefined,
    extra,
  };
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw unknownError(`Failed to parse query.${name}: a boolean is expected.`);
  return value;
}

function parsePage(raw: unknown): { start: number; limit?: number } {
  if (raw === undefined || raw === null) return { start: 1 };
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw unknownError('Failed to parse query.page: an object is expected.');
  const page = raw as Record<string, unknown>;
  for (const field of Object.keys(page))
    if (field !== 'start' && field !== 'limit') throw unknownField('Page', field);
  const number = (value: unknown, name: string) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw unknownError(`Failed to parse query.page.${name}.`);
    return value;
  };
  const start = number(page['start'], 'start') ?? 1;
  const limit = number(page['limit'], 'limit');
  return { start: Math.max(1, start), limit: limit !== undefined && limit > 0 ? limit : undefined };
}

function parseSortKey(raw: unknown): SortKey {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw unknownError('Failed to parse query.sort item.');
  const item = raw as Record<string, unknown>;
  for (const field of Object.keys(item))
    if (field !== 'key' && field !== 'desc') throw unknownField('Sort', field);
  if (typeof item['key'] !== 'string') throw unknownError('Failed to parse query.sort: key is required.');
  return { key: item['key'], desc: item['desc'] === true };
}

export interface MatchOptions {
  readonly keywordFields?: readonly string[];
  readonly extra?: readonly Predicate[];
}

/** All of `filter`, any of `filter_or`, the keyword, and the verb's own conditions. */
export function buildPredicate(query: ParsedQuery, opts: MatchOptions = {}): Predicate {
  const all = [...query.filter.map(compileCondition), ...(opts.extra ?? [])];
  const any = query.filterOr.map(compileCondition);
  if (query.keyword !== undefined) all.push(keywordPredicate(query.keyword, opts.keywordFields ?? []));
  return (record) => all.every((p) => p(record)) && (any.length === 0 || any.some((p) => p(record)));
}

function keywordPredicate(keyword: string, fields: readonly string[]): Predicate {
  const needle = keyword.toLowerCase();
  const paths = fields.map((f) => f.split('.'));
  return (record) =>
    paths.some((path) => {
      const value = readPath(record, path);
      return typeof value === 'string' && value.toLowerCase().includes(needle);
    });
}

/** MongoDB's cross-type order: missing/null, numbers, strings, objects, booleans. */
function rank(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (typeof value === 'boolean') return 4;
  return 3;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return (a as number) - (b as number);
  if (ra === 2) return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
  if (ra === 3) return compareValues(JSON.stringify(a), JSON.stringify(b));
  return Number(a) - Number(b);
}

/** The sort the server really applies: the requested keys, then the record id. */
// python-core MongoModel.query: any sort gets the record id appended as a tiebreaker.
export function effectiveSort(sort: readonly SortKey[], idKey: string): SortKey[] {
  return sort.some((s) => s.key === idKey) ? [...sort] : [...sort, { key: idKey, desc: false }];
}

export function sortRecords(records: ApiRecord[], sort: readonly SortKey[]): ApiRecord[] {
  const paths = sort.map((s) => ({ path: s.key.split('.'), sign: s.desc ? -1 : 1 }));
  const decorated = records.map((record) => ({ record, keys: paths.map((p) => readPath(record, p.path)) }));
  decorated.sort((x, y) => {
    for (let i = 0; i < paths.length; i++) {
      const d = compareValues(x.keys[i], y.keys[i]);
      if (d !== 0) return d * (paths[i]?.sign ?? 1);
    }
    return 0;
  });
  return decorated.map((d) => d.record);
}

export interface AnswerOptions {
  readonly capped: boolean;
  readonly minimalFields?: readonly string[];
}

/** Rows of the sorted matches by position; `json` when they exist serialised already. */
export interface PageSource {
  records(from: number, to: number): ApiRecord[];
  json?(from: number, to: number): string[];
}

export const arraySource = (rows: readonly ApiRecord[]): PageSource => ({
  records: (from, to) => rows.slice(from, to),
});

/** The JSON answer for `total` sorted matches. */
// python-core MongoModel.query + proto3 JSON: total_count ignores the page; empty fields omitted.
export function answer(query: ParsedQuery, total: number, source: PageSource, opts: AnswerOptions): string {
  if (total === 0) return '{}';
  if (query.countOnly) return `{"total_count":${total}}`;
  const limit = opts.capped ? Math.min(query.limit ?? CAP, CAP) : (query.limit ?? total);
  const from = query.start - 1;
  const to = Math.min(total, from + limit);
  if (from >= to) return `{"total_count":${total}}`;
  const only = query.only ?? (query.minimal ? opts.minimalFields : undefined);
  let results: string;
  if (only) results = JSON.stringify(source.records(from, to).map((r) => project(r, only)));
  else if (source.json) results = `[${source.json(from, to).join(',')}]`;
  else results = recordsJson(source.records(from, to));
  return `{"results":${results},"total_count":${total}}`;
}

function project(record: ApiRecord, only: readonly string[]): ApiRecord {
  const out: ApiRecord = {};
  for (const key of only) {
    const path = key.split('.');
    const value = readPath(record, path);
    if (value === undefined) continue;
    let target = out;
    for (const segment of path.slice(0, -1)) {
      target[segment] ??= {};
      target = target[segment] as ApiRecord;
    }
    target[path[path.length - 1] as string] = value;
  }
  return out;
}

/** The database's sort memory, shared by every collection; what the last query cost it. */
export interface SortBudget {
  sortLimitRows: number | undefined;
  lastCost: QueryCost | undefined;
}

/**
 * MongoDB answers a sorted find with a blocking top-k sort of start - 1 + limit rows (the page
 * cap applies first); past its memory limit the query fails, and no retry helps.
 */
export function chargeSort(budget: SortBudget, query: ParsedQuery, matches: number, examined: number): void {
  const k = query.start - 1 + Math.min(query.limit ?? CAP, CAP);
  const sortHeld = query.countOnly ? 0 : Math.min(matches, k);
  budget.lastCost = { examined, sortHeld };
  if (budget.sortLimitRows !== undefined && sortHeld > budget.sortLimitRows) {
    throw new ApiError(
      500,
      'ERROR_DB_QUERY',
      ` Failed to query the database. (reason = Sort exceeded memory limit: ${sortHeld} rows held, limit ${budget.sortLimitRows})`,
    );
  }
}

/** The index of the first record after an `<idKey> gt <id>` condition (records sorted by id). */
function firstAfter(records: readonly ApiRecord[], idKey: string, filter: readonly Condition[]): number {
  const after = filter.find((c) => c.key === idKey && c.operator === 'gt' && typeof c.value === 'string');
  if (!after) return 0;
  let [lo, hi] = [0, records.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareValues(records[mid]![idKey], after.value) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Evaluates a query over an in-memory list (every verb but cost/list); `presorted`: by id.
 * `sortBudget`: the listing is big enough for its sort to count against the database's memory.
 */
export function runQuery(
  records: Iterable<ApiRecord>,
  query: ParsedQuery,
  opts: MatchOptions & AnswerOptions & { idKey: string; presorted?: boolean; sortBudget?: SortBudget },
): string {
  const predicate = buildPredicate(query, opts);
  const matches: ApiRecord[] = [];
  let examined = 0;
  // A keyset page over records kept in id order starts at the id, as an index range scan does.
  const list = Array.isArray(records) ? (records as ApiRecord[]) : [...records];
  const first = opts.presorted ? firstAfter(list, opts.idKey, query.filter) : 0;
  for (let i = first; i < list.length; i++) {
    const record = list[i]!;
    examined++;
    if (predicate(record)) matches.push(record);
  }
  if (opts.sortBudget) chargeSort(opts.sortBudget, query, matches.length, examined);
  const sort = effectiveSort(query.sort, opts.idKey);
  const sorted = opts.presorted && sort.length === 1 && !sort[0]?.desc ? matches : sortRecords(matches, sort);
  return answer(query, sorted.length, arraySource(sorted), opts);
}
