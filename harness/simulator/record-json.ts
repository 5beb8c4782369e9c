// Records are immutable once built, so each one is serialised at most once and its JSON
// reused: a page of 1,000 rows becomes a string join instead of a JSON.stringify walk.

import type { ApiRecord } from './world.ts';

const cache = new WeakMap<ApiRecord, string>();

export function rememberJson<T extends ApiRecord>(record: T, json: string): T {
  cache.set(record, json);
  return record;
}

export function recordJson(record: ApiRecord): string {
  let json = cache.get(record);
  if (json === undefined) {
    json = JSON.stringify(record);
    cache.set(record, json);
  }
  return json;
}

export function recordsJson(records: readonly ApiRecord[]): string {
  return `[${records.map(recordJson).join(',')}]`;
}
