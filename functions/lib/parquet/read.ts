// Reading back what the product wrote: a Parquet object's rows, one row group at a time, with
// node:zlib's decompressors (hyparquet's core decompresses SNAPPY only).
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';

export const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
};

export type ParquetRow = Record<string, unknown>;

/** The rows of a Parquet file, a row group per yield: one group's rows are in memory at a time. */
export async function* parquetRowGroups(bytes: Uint8Array): AsyncGenerator<ParquetRow[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    if (rowEnd > rowStart) {
      yield (await parquetReadObjects({ file, metadata, compressors, rowStart, rowEnd })) as ParquetRow[];
    }
    rowStart = rowEnd;
  }
}
