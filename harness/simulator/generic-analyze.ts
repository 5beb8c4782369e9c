// python-core's generic analyze over in-memory records: filter, group_by, named fields with an
// operator, sort, page; answered {results, more} (no total_count), as MongoModel.analyze does.

import { requiredParameter, unknownError } from './api-error.ts';
import { readPath } from './filters.ts';
import { buildPredicate, type ParsedQuery, parseQuery, sortRecords } from './query.ts';
import type { ApiRecord } from './world.ts';

/** api's core.v2 AnalyzeQuery fields beyond the common ones (identity's workspace/analyze). */
export const ANALYZE_QUERY_FIELDS = ['group_by', 'fields', 'select', 'field_group'];
/** TimeSeriesAnalyzeQuery adds a granularity and a date range (budget-usage/analyze). */
export const TIME_SERIES_QUERY_FIELDS = [...ANALYZE_QUERY_FIELDS, 'granularity', 'start', 'end'];
const OPERATORS = new Set(['sum', 'max', 'min', 'count', 'average']);

interface FieldSpec {
  readonly name: string;
  readonly key?: string;
  readonly operator: string;
}

// python-core model/mongo_model MongoModel.analyze: group, sort, page with limit + 1 to set `more`.
export function analyzeRecords(
  records: readonly ApiRecord[],
  rawQuery: unknown,
  queryFields: readonly string[] = TIME_SERIES_QUERY_FIELDS,
): string {
  if (rawQuery === undefined) throw requiredParameter('query');
  const query = parseQuery(rawQuery, queryFields);
  const granularity = query.extra['granularity'];
  if (granularity !== undefined && granularity !== 'MONTHLY') {
    throw unknownError(`granularity ${String(granularity)} is not supported.`);
  }
  const groupBy = stringList(query.extra['group_by'], 'group_by');
  const fields = fieldSpecs(query.extra['fields']);
  const predicate = buildPredicate(query);
  const groups = new Map<string, { row: ApiRecord; members: ApiRecord[] }>();
  for (const record of records) {
    if (!predicate(record)) continue;
    const keys = groupBy.map((k) => readPath(record, k.split('.')));
    const id = JSON.stringify(keys);
    let group = groups.get(id);
    if (!group) {
      group = { row: Object.fromEntries(groupBy.map((k, i) => [k, keys[i]])), members: [] };
      groups.set(id, group);
    }
    group.members.push(record);
  }
  const rows = [...groups.values()].map(({ row, members }) => ({ ...row, ...aggregate(fields, members) }));
  return page(query, sortRecords(rows, query.sort));
}

function page(query: ParsedQuery, rows: ApiRecord[]): string {
  const clean = (r: ApiRecord) => Object.fromEntries(Object.entries(r).filter(([, v]) => v != null));
  if (query.limit === undefined) return JSON.stringify({ results: rows.map(clean) });
  const from = query.start - 1;
  const slice = rows.slice(from, from + query.limit);
  return JSON.stringify({ results: slice.map(clean), more: rows.length > from + query.limit });
}

function aggregate(fields: readonly FieldSpec[], members: readonly ApiRecord[]): ApiRecord {
  const out: ApiRecord = {};
  for (const f of fields) {
    const values = members.map((m) => (f.key ? readPath(m, f.key.split('.')) : undefined));
    const numbers = values.filter((v): v is number => typeof v === 'number');
    if (f.operator === 'count') out[f.name] = members.length;
    else if (f.operator === 'sum') out[f.name] = numbers.reduce((a, b) => a + b, 0);
    else if (f.operator === 'max') out[f.name] = numbers.length ? Math.max(...numbers) : null;
    else if (f.operator === 'min') out[f.name] = numbers.length ? Math.min(...numbers) : null;
    else out[f.name] = numbers.length ? numbers.reduce((a, b) => a + b, 0) / numbers.length : null;
  }
  return out;
}

function fieldSpecs(raw: unknown): FieldSpec[] {
  if (raw === undefined) throw requiredParameter('fields');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw unknownError('Failed to parse query.fields: an object is expected.');
  return Object.entries(raw as Record<string, unknown>).map(([name, spec]) => {
    const s = (spec ?? {}) as Record<string, unknown>;
    const operator = String(s['operator'] ?? '');
    if (!OPERATORS.has(operator))
      throw unknownError(`query.fields.${name}: unsupported operator ${operator}.`);
    if (operator !== 'count' && typeof s['key'] !== 'string') throw requiredParameter(`fields.${name}.key`);
    return { name, key: s['key'] as string | undefined, operator };
  });
}

function stringList(raw: unknown, name: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((v) => typeof v !== 'string'))
    throw unknownError(`Failed to parse query.${name}: a list of strings is expected.`);
  return raw as string[];
}
