// Page compression: ZSTD (the default, chosen with tools/bench: docs/performance.md) or GZIP.
// Both are read by Trino's Parquet reader (Athena engine 3: ParquetCompressionUtils decompresses
// GZIP and ZSTD), DuckDB, arrow-rs and hyparquet. Node 24 (the Lambda runtime) has ZSTD in zlib.

import type { Transform } from 'node:stream';
import { constants, createGzip, createZstdCompress, gzipSync, zstdCompressSync } from 'node:zlib';
import type { Compression } from '../codecs.ts';

export { type Compression, DEFAULT_COMPRESSION } from '../codecs.ts';

const GZIP_LEVEL = 6;
/** Measured against levels 1-19 on the bench's rows (docs/performance.md, "Bytes, round 4"). */
const ZSTD_LEVEL = 8;
/** zlib's default output buffer, kept for pages that compress to more. */
const CHUNK = 16 * 1024;

export const byteLength = (parts: readonly Uint8Array[]) => parts.reduce((n, part) => n + part.length, 0);

/** An output buffer the size of the input and a few bytes more, up to zlib's default. */
const chunkSize = (inputBytes: number) => Math.min(CHUNK, Math.ceil((inputBytes + 64) / 64) * 64);

/**
 * Level 8's match finder tables for a page over 256 KB (2^21 and more entries) cost 20-30 MB of peak
 * RSS with a dozen compressions at once; 2^18 each kept the bytes (+0.16 %) and the CPU
 * (docs/performance.md, "Bytes, round 4").
 */
const ZSTD_TABLE_LOG = 18;

/**
 * The frame records the page's size (pledgedSrcSize), so a decoder can size its output from the
 * frame alone as well as from the page header.
 */
const zstdOptions = (bytes: number) => ({
  chunkSize: chunkSize(bytes),
  pledgedSrcSize: bytes,
  params: {
    [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL,
    [constants.ZSTD_c_hashLog]: ZSTD_TABLE_LOG,
    [constants.ZSTD_c_chainLog]: ZSTD_TABLE_LOG,
  },
});

/** A small page compressed at once, on this thread; the same bytes as compressParts gives. */
export function compressSmall(codec: Compression, parts: readonly Uint8Array[]): Buffer {
  const input = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return codec === 'ZSTD'
    ? zstdCompressSync(input, zstdOptions(input.length))
    : gzipSync(input, { level: GZIP_LEVEL, chunkSize: chunkSize(input.length) });
}

/**
 * The parts compressed as one stream on zlib's thread pool, without first copying them together.
 * zlib's output buffer is 16 KB unless told otherwise, allocated with the stream: most pages
 * compress to tens of bytes, so a buffer sized to the input saves ~0.7 MB a row group.
 */
export function compressParts(codec: Compression, parts: readonly Uint8Array[]): Promise<Buffer[]> {
  const bytes = byteLength(parts);
  const stream: Transform =
    codec === 'ZSTD'
      ? createZstdCompress(zstdOptions(bytes))
      : createGzip({ level: GZIP_LEVEL, chunkSize: chunkSize(bytes) });
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    stream.on('end', () => resolve(out));
    stream.on('error', reject);
    for (const part of parts) stream.write(part);
    stream.end();
  });
}
