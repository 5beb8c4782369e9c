// cost/analyze with DAILY granularity: per-day (and per group) sums and counts over at most
// 31 days, computed from the same rows cost/list pages through.

import { ApiError, invalidParameter, requiredParameter } from './api-error.ts';
import { dayNumber, dayToDate, isDate } from './calendar.ts';
import type { CostStore, DayTruth } from './cost-store.ts';
import { type Predicate, readPath } from './filters.ts';
import { buildPredicate, parseQuery, sortRecords } from './query.ts';
import type { ApiRecord, DataSource } from './world.ts';

const ANALYZE_FIELDS = ['granularity', 'start', 'end', 'fields', 'group_by', 'field_group', 'select'];
const MAX_DAYS = 31;

interface Field {
  readonly name: string;
  readonly operator: 'sum' | 'count' | 'add_to_set';
  readonly path: string[];
}

function parseFields(raw: unknown): Field[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw requiredParameter('query.fields');
  return Object.entries(raw as Record<string, unknown>).map(([name, spec]) => {
    const { key, operator } = (spec ?? {}) as { key?: unknown; operator?: unknown };
    if (operator !== 'sum' && operator !== 'count' && operator !== 'add_to_set') {
      throw invalidParameter(`query.fields.${name}.operator`, `unsupported operator ${String(operator)}`);
    }
    if (operator !== 'count' && typeof key !== 'string') throw requiredParameter(`query.fields.${name}.key`);
    return { name, operator, path: typeof key === 'string' ? key.split('.') : [] };
  });
}

function dateRange(extra: Record<string, unknown>): [number, number] {
  if (extra['granularity'] === undefined) throw requiredParameter('query.granularity');
  if (extra['granularity'] !== 'DAILY')
    throw invalidParameter('query.granularity', 'only DAILY is simulated');
  const { start, end } = extra;
  if (start === undefined) throw requiredParameter('query.start');
  if (end === undefined) throw requiredParameter('query.end');
  if (!isDate(start) || !isDate(end)) {
    throw new ApiError(
      400,
      'ERROR_INVALID_DATE_RANGE',
      'Invalid date range. (reason = start and end must be YYYY-MM-DD)',
    );
  }
  const [from, to] = [dayNumber(start), dayNumber(end)];
  if (to < from || to - from + 1 > MAX_DAYS) {
    throw new ApiError(
      400,
      'ERROR_INVALID_DATE_RANGE',
      `Invalid date range. (reason = DAILY allows at most ${MAX_DAYS} days)`,
    );
  }
  return [from, to];
}

function parseGroupBy(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((g) => typeof g !== 'string')) {
    throw invalidParameter('query.group_by', 'a list of keys is expected');
  }
  return raw as string[];
}

// cost-analysis manager/cost_manager.py analyze_costs_by_granularity, then
// _change_response_workspace_group_by (linkedWorkspaces below; docs/cloudforet-behaviour.md, seam 1).
export function analyzeCosts(
  store: CostStore,
  ds: DataSource,
  rawQuery: unknown,
  extra: readonly Predicate[],
): string {
  const query = parseQuery(rawQuery, ANALYZE_FIELDS);
  const [from, to] = dateRange(query.extra);
  const fields = parseFields(query.extra['fields']);
  const groupBy = parseGroupBy(query.extra['group_by']);
  const predicate = buildPredicate(query, { extra });
  const wholeDays =
    extra.length === 0 &&
    query.filter.length === 0 &&
    query.filterOr.length === 0 &&
    groupBy.length === 0 &&
    fields.every(
      (f) => f.operator === 'count' || (f.operator === 'sum' && TRUTH_KEYS.includes(f.path.join('.'))),
    );
  const results: ApiRecord[] = [];
  for (let day = from; day <= to; day++) {
    if (store.count(ds, day) === 0) continue;
    const date = dayToDate(day);
    if (wholeDays && !store.mixed(ds, day)) results.push(truthRow(store.truth(ds, day), date, fields));
    else results.push(...aggregateDay(store.records(ds, day), date, predicate, fields, groupBy));
  }
  if (groupBy.includes('workspace_id')) linkedWorkspaces(ds, results);
  const sorted = query.sort.length > 0 ? sortRecords(results, query.sort) : results;
  const end = query.limit ? query.start - 1 + query.limit : undefined;
  // python-core's MongoModel.analyze: `more` whenever a page is asked (it fetches limit + 1).
  // A range without any group is `{}` here, where Cloudforet's Struct keeps `"results": []`.
  if (sorted.length === 0) return '{}';
  const page = sorted.slice(query.start - 1, end);
  return JSON.stringify(end === undefined ? { results: page } : { results: page, more: sorted.length > end });
}

/**
 * As cost-analysis' CostManager._change_response_workspace_group_by does, after grouping: a
 * result's virtual workspace id becomes the workspace its account is linked to, or null when it
 * is unlinked. Results are not merged afterwards, so two may share one (project, workspace,
 * service account) key. cost/list returns the stored virtual ids (../shared/cloudforet-wire.md,
 * "Virtual workspaces").
 */
function linkedWorkspaces(ds: DataSource, results: ApiRecord[]): void {
  const linked = new Map(ds.accounts.map((a) => [a.vWorkspaceId, a.linked ? a.workspaceId : null]));
  for (const result of results) {
    const id = result['workspace_id'];
    if (typeof id === 'string' && linked.has(id)) result['workspace_id'] = linked.get(id) ?? null;
  }
}

const TRUTH_KEYS = ['cost', 'usage_quantity'];

/** Whole-day sums need no rows: the store keeps them per day. */
function truthRow(truth: DayTruth, date: string, fields: readonly Field[]): ApiRecord {
  const row: ApiRecord = { date };
  for (const field of fields) {
    if (field.operator === 'count') row[field.name] = truth.rows;
    else row[field.name] = field.path[0] === 'cost' ? truth.costSum : truth.usageQuantitySum;
  }
  return row;
}

/** Sums in micro-units like the store's truth: exact, whatever the row order. */
function aggregateDay(
  rows: readonly ApiRecord[],
  date: string,
  predicate: Predicate,
  fields: readonly Field[],
  groupBy: readonly string[],
): ApiRecord[] {
  const groups = new Map<string, { row: ApiRecord; sums: number[]; sets: Set<unknown>[] }>();
  const groupPaths = groupBy.map((g) => g.split('.'));
  for (const row of rows) {
    if (!predicate(row)) continue;
    const values = groupPaths.map((path) => readPath(row, path) ?? null);
    const key = JSON.stringify(values);
    let group = groups.get(key);
    if (!group) {
      group = {
        row: { date, ...Object.fromEntries(groupBy.map((name, i) => [name, values[i]])) },
        sums: fields.map(() => 0),
        sets: fields.map(() => new Set()),
      };
      groups.set(key, group);
    }
    const { sums, sets } = group;
    fields.forEach((field, i) => {
      const value = field.operator === 'count' ? 1 : readPath(row, field.path);
      if (field.operator === 'add_to_set') sets[i]?.add(value ?? null);
      else if (typeof value === 'number') sums[i] = (sums[i] ?? 0) + Math.round(value * 1e6);
    });
  }
  return [...groups.values()].map(({ row, sums, sets }) => {
    fields.forEach((field, i) => {
      row[field.name] = field.operator === 'add_to_set' ? [...(sets[i] ?? [])] : (sums[i] ?? 0) / 1e6;
    });
    return row;
  });
}
