// A column chunk's values cut into V1 data pages of bounded size, so that no page (and no single
// allocation a reader makes for it) grows with the row group: a row group of large JSON objects
// once made one 127 MB page.
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { definitionLevels } from './levels.ts';

/**
 * Uncompressed values a data page holds before the next begins (parquet-mr's and arrow-rs'
 * default). A page ends at a row, so one value larger than this is a page of its own.
 */
export const PAGE_BYTES = 1024 * 1024;

export interface DataPage {
  /** The page header's num_values: rows, or a nested leaf's level entries. */
  readonly rows: number;
  /** Uncompressed, in parts: definition levels (length-prefixed), then values. */
  readonly parts: Uint8Array[];
}

/** Where a page ends: after `rows` rows, `present` values and `plainBytes` of PLAIN values. */
export interface PageCut {
  readonly rows: number;
  readonly present: number;
  readonly plainBytes: number;
}

export interface ChunkValues {
  readonly defs: Uint8Array;
  readonly rows: number;
  readonly present: number;
  /** Cuts before the end, in order; the last page ends at rows/present. */
  readonly cuts: readonly PageCut[];
}

/** Pages of PLAIN values: `plain` holds them all, each page a slice of it. */
export function plainPages(chunk: ChunkValues, plain: Uint8Array): DataPage[] {
  return eachPage(chunk, plain.length, (from, to) => plain.subarray(from.plainBytes, to.plainBytes));
}

/** Pages of dictionary indexes, each RLE/bit-packed on its own behind its bit width. */
export function dictionaryPages(
  chunk: ChunkValues,
  indexes: ArrayLike<number>,
  bitWidth: number,
): DataPage[] {
  const all = indexes as Int32Array;
  return eachPage(chunk, 0, (from, to) => {
    const values = new ByteWriter(Math.ceil(((to.present - from.present) * bitWidth) / 8) + 64);
    values.appendUint8(bitWidth);
    writeRleBitPackedHybrid(values, all.subarray(from.present, to.present), bitWidth);
    return values.getBytes();
  });
}

function eachPage(
  chunk: ChunkValues,
  plainEnd: number,
  values: (from: PageCut, to: PageCut) => Uint8Array,
): DataPage[] {
  const ends = [...chunk.cuts, { rows: chunk.rows, present: chunk.present, plainBytes: plainEnd }];
  const pages: DataPage[] = [];
  let from: PageCut = { rows: 0, present: 0, plainBytes: 0 };
  for (const to of ends) {
    if (to.rows === from.rows) continue;
    const rows = to.rows - from.rows;
    const levels = definitionLevels(
      chunk.defs.subarray(from.rows, to.rows),
      rows,
      to.present - from.present === rows,
    );
    pages.push({ rows, parts: [levels, values(from, to)] });
    from = to;
  }
  return pages;
}
