// hyparquet (pure JS) as a reader of the files we write: no native code, no server, so the unit
// tier reads back through it (harness/parquet-readers.ts adds DuckDB and arrow-rs beside it).
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';

export type Row = Record<string, unknown>;

/**
 * All rows through hyparquet. Its core decompresses SNAPPY only; GZIP and ZSTD come from a
 * decompressor it is given (hyparquet-compressors in a browser), here node:zlib's.
 */
export async function readWithHyparquet(bytes: Uint8Array): Promise<Row[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const compressors = {
    GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
    ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
  };
  return (await parquetReadObjects({ file, compressors })) as Row[];
}
