// Reading what the export published, through a sink (a directory or S3): the Parquet objects of
// one partition of a table, and which partition of a snapshot table is the newest.
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import type { Sink } from '../storage/sink.ts';

export type Row = Record<string, unknown>;

const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
};

/** Every row of every `.parquet` object directly under `folder` (e.g. `budgets/snapshot_date=D/`). */
export async function readParquetFolder(sink: Sink, folder: string): Promise<Row[]> {
  const keys = (await sink.list(folder))
    .filter((k) => k.endsWith('.parquet') && !k.slice(folder.length).includes('/'))
    .sort();
  const rows: Row[] = [];
  for (const key of keys) rows.push(...(await readParquetObject(sink, key)));
  return rows;
}

/** The rows of one Parquet object; none when it is not there. */
export async function readParquetObject(sink: Sink, key: string): Promise<Row[]> {
  const bytes = await sink.readBytes(key);
  if (bytes === undefined) return [];
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file, compressors })) as Row[];
}

/** The newest `<partitionKey>=<value>` folder under `<table>/` (values sort as dates do), if any. */
export async function newestPartition(
  sink: Sink,
  table: { readonly name: string; readonly partitionKey: string },
): Promise<string | undefined> {
  const pattern = new RegExp(`^${table.name}/${table.partitionKey}=([^/]+)/[^/]+\\.parquet$`);
  const values = (await sink.list(`${table.name}/`))
    .map((k) => pattern.exec(k)?.[1])
    .filter((v): v is string => v !== undefined)
    .sort();
  return values.at(-1);
}
