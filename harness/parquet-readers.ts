// Independent readers for every Parquet file we write: DuckDB (C++), arrow-rs (parquet-wasm)
// decoded through apache-arrow, and hyparquet. None shares the writer's encoder.
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { readParquet } from 'parquet-wasm/node';

export type Row = Record<string, unknown>;

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

/**
 * All rows through hyparquet (pure JS). Its core decompresses SNAPPY only; GZIP and ZSTD come from
 * a decompressor it is given (hyparquet-compressors in a browser), here node:zlib's.
 */
export async function readWithHyparquet(bytes: Uint8Array): Promise<Row[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const compressors = {
    GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
    ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
  };
  return (await parquetReadObjects({ file, compressors })) as Row[];
}
