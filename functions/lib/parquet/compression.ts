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
 * What a page holds. `text`: UTF-8 values or a dictionary of them (a BYTE_ARRAY column's PLAIN
 * pages and dictionary page); `other`: numbers, and the levels and dictionary indexes of any column.
 */
export type PageContent = 'text' | 'other';

/**
 * Text pages are compressed twice and the smaller frame kept (ZSTD only): at level 8 with matches
 * of 6 bytes or more, and at level 1. Random ids (`cost_id`, a dictionary of resource ids) gain
 * nothing from the short matches level 8 takes inside them, each dearer than the literals it
 * replaces: level 1 made `cost_id` 8 % smaller and level 8 with 6-byte matches 5 %; JSON text
 * (`data`) is smaller at level 8 with 6-byte matches than at either level 8 or 1. Numbers and
 * dictionary indexes lose with 6-byte matches (doubles +6-13 %), so they keep level 8 alone
 * (docs/performance.md, "Bytes, round 4").
 */
const TEXT_MIN_MATCH = 6;
const TEXT_FAST_LEVEL = 1;

/**
 * The frame records the page's size (pledgedSrcSize), so a decoder can size its output from the
 * frame alone as well as from the page header.
 */
export const zstdOptions = (bytes: number, tune: 'default' | 'text' | 'fast' = 'default') => ({
  chunkSize: chunkSize(bytes),
  pledgedSrcSize: bytes,
  params:
    tune === 'fast'
      ? { [constants.ZSTD_c_compressionLevel]: TEXT_FAST_LEVEL }
      : {
          [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL,
          [constants.ZSTD_c_hashLog]: ZSTD_TABLE_LOG,
          [constants.ZSTD_c_chainLog]: ZSTD_TABLE_LOG,
          ...(tune === 'text' && { [constants.ZSTD_c_minMatch]: TEXT_MIN_MATCH }),
        },
});

/** A small page compressed at once, on this thread; the same bytes as compressParts gives. */
export function compressSmall(
  codec: Compression,
  parts: readonly Uint8Array[],
  content: PageContent = 'other',
): Buffer {
  const input = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  if (codec !== 'ZSTD') return gzipSync(input, { level: GZIP_LEVEL, chunkSize: chunkSize(input.length) });
  if (content === 'other') return zstdCompressSync(input, zstdOptions(input.length));
  const text = zstdCompressSync(input, zstdOptions(input.length, 'text'));
  const fast = zstdCompressSync(input, zstdOptions(input.length, 'fast'));
  return fast.length < text.length ? fast : text;
}

/**
 * The parts compressed on zlib's thread pool, without first copying them together; a text page
 * twice, one after the other, the smaller kept (see PageContent).
 */
export async function compressParts(
  codec: Compression,
  parts: readonly Uint8Array[],
  content: PageContent = 'other',
): Promise<Buffer[]> {
  if (codec !== 'ZSTD' || content === 'other') return compressStream(codec, parts, 'default');
  const text = await compressStream(codec, parts, 'text');
  const fast = await compressStream(codec, parts, 'fast');
  return byteLength(fast) < byteLength(text) ? fast : text;
}

/**
 * One stream over the parts. zlib's output buffer is 16 KB unless told otherwise, allocated with
 * the stream: most pages compress to tens of bytes, so a buffer sized to the input saves ~0.7 MB a
 * row group.
 */
function compressStream(
  codec: Compression,
  parts: readonly Uint8Array[],
  tune: 'default' | 'text' | 'fast',
): Promise<Buffer[]> {
  const bytes = byteLength(parts);
  const stream: Transform =
    codec === 'ZSTD'
      ? createZstdCompress(zstdOptions(bytes, tune))
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
