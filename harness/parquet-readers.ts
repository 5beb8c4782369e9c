// Independent readers for every Parquet file we write: DuckDB (C++), arrow-rs (parquet-wasm)
// decoded through apache-arrow, and hyparquet. None shares the writer's encoder.
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm/node';

import type { Row } from './hyparquet-reader.ts';

export { type Row, readWithHyparquet } from './hyparquet-reader.ts';

/** All rows of a Parquet file through arrow-rs, values as plain JS (int64 as bigint). */
export function readWithArrow(bytes: Uint8Array): {
  rows: Row[];
  schema: Array<{ name: string; type: string }>;
} {
  const wasmTable = readParquet(bytes);
  const table = tableFromIPC(wasmTable.intoIPCStream());
  const schema = table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) }));
  const rows = table.toArray().map((r) => ({ ...(r.toJSON() as Row) }));
  return { rows, schema };
}

/**
 * A MAP column through arrow-rs as each row's [key, value] pairs (null for a NULL map): read as
 * pairs, not built into an object, so a key such as "__proto__" is not lost on the way.
 */
export function readMapWithArrow(bytes: Uint8Array, column: string): Array<Array<[unknown, unknown]> | null> {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const map = table.getChild(column);
  if (!map) throw new Error(`no column ${column}`);
  return Array.from({ length: map.length }, (_, i) => {
    const row = map.get(i) as Iterable<[unknown, unknown]> | null;
    return row === null ? null : [...row];
  });
}

export interface DuckResult {
  rows: Row[];
  columns: Array<{ name: string; type: string }>;
}

/** Run SQL in a fresh in-memory DuckDB; returns rows as JS values and column types. */
export async function queryDuckDB(sql: string): Promise<DuckResult> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    const names = reader.columnNames();
    const types = reader.columnTypes().map((t) => t.toString());
    const rows = reader.getRowObjectsJS() as Row[];
    return { rows, columns: names.map((name, i) => ({ name, type: types[i]! })) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** DuckDB's view of one file's schema: column name -> DuckDB type. */
export async function duckSchema(path: string): Promise<Record<string, string>> {
  const { rows } = await queryDuckDB(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
  return Object.fromEntries(rows.map((r) => [String(r.column_name), String(r.column_type)]));
}
