// Reading what the export published, through a sink (a directory or S3): the Parquet objects of
// one partition of a table, and which partition of a snapshot table is the newest.
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { Sink } from '../storage/sink.ts';

export type Row = Record<string, unknown>;

/** node:zlib's decompressors: hyparquet's core decompresses SNAPPY only. */
const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
};

/** The rows of a Parquet file, a row group per yield: one group's rows are in memory at a time. */
export async function* parquetRowGroups(bytes: Uint8Array): AsyncGenerator<Row[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    if (rowEnd > rowStart) {
      yield (await parquetReadObjects({ file, metadata, compressors, rowStart, rowEnd })) as Row[];
    }
    rowStart = rowEnd;
  }
}

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
