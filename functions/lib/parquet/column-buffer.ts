// One column of an open Parquet row group, encoded as values arrive: definition levels, and a
// dictionary with its indexes or, once too many values are distinct, plain bytes. Flat OPTIONAL
// columns of BYTE_ARRAY (UTF8), DOUBLE and INT64 only: what columns.ts declares.
import type { Encoding, SchemaElement, Statistics } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';

export interface ColumnPages {
  readonly element: SchemaElement;
  readonly encoding: Encoding;
  /** The dictionary page, PLAIN, uncompressed. */
  readonly dictionary?: Uint8Array;
  readonly dictionarySize: number;
  /** A V1 data page, uncompressed and in parts: definition levels (length-prefixed), values. */
  readonly data: Uint8Array[];
  readonly statistics: Statistics;
}

type Kind = 'bytes' | 'double' | 'int64';
const NEGATIVE_ZERO = Symbol('-0');
const NOTHING = Symbol('nothing');
/** Past this many entries, a dictionary holding more than half the values gives way to plain. */
const DICTIONARY_PROBE = 4096;

export class ColumnBuffer {
  readonly element: SchemaElement;
  private readonly kind: Kind;
  /** Definition levels, dictionary indexes and plain bytes: borrowed from a pool until release(). */
  private scratch: Scratch = EMPTY;
  private rows = 0;
  private present = 0;
  /** Value -> index, while the column is dictionary-encoded; filled only once `inOrder` ends. */
  private dictionary: Map<unknown, number> | undefined = new Map();
  /**
   * Whether every entry so far came above the one before (an id column of a listing sorted by
   * it): then a value above the last entry is new without a lookup, and the map stays empty. A
   * column of distinct ids gives way to plain at 4096 entries each row group, and building that
   * map only to drop it cost ~0.4 MB a row group of short-lived tables the GC had to promote.
   */
  private inOrder = true;
  private entries: unknown[] = [];
  private entrySizes: number[] = [];
  private dictionaryBytes = 0;
  /** What PLAIN would take: the yardstick for the dictionary. */
  private plainBytes = 0;
  private min: unknown;
  private max: unknown;
  private nans = 0;
  private last: unknown = NOTHING;
  private lastIndex = 0;
  private lastSize = 0;

  constructor(element: SchemaElement) {
    this.element = element;
    this.kind = element.type === 'DOUBLE' ? 'double' : element.type === 'INT64' ? 'int64' : 'bytes';
  }

  addRows<R, C>(records: readonly R[], from: number, to: number, value: (r: R, c: C) => unknown, ctx: C) {
    if (this.scratch === EMPTY) this.scratch = spare.take(this.element.name);
    if (this.rows + to - from > this.scratch.defs.length) this.grow(this.rows + to - from);
    const { defs } = this.scratch;
    for (let i = from; i < to; i++) {
      const raw = value(records[i]!, ctx);
      if (raw === null || raw === undefined) {
        defs[this.rows++] = 0;
      } else if (raw === this.last) {
        // Runs of one value are common (an account, a product over many rows): skip the lookup.
        defs[this.rows++] = 1;
        this.plainBytes += this.lastSize;
        this.scratch.indexes[this.present++] = this.lastIndex;
      } else {
        defs[this.rows++] = 1;
        this.add(raw);
      }
    }
  }

  /** The row group's pages; they borrow this buffer's memory until reset(). */
  takePages(): ColumnPages {
    const bitWidth = this.entries.length <= 1 ? 0 : 32 - Math.clz32(this.entries.length - 1);
    const indexBytes = Math.ceil((this.present * bitWidth) / 8);
    // hyparquet-writer's rule: a dictionary must at least halve the plain bytes.
    if (
      this.dictionary &&
      (this.present === 0 || 2 * (this.dictionaryBytes + indexBytes) > this.plainBytes)
    ) {
      this.dropDictionary();
    }
    const { defs, indexes, plain } = this.scratch;
    const levels = definitionLevels(defs, this.rows, this.present === this.rows);
    if (!this.dictionary) {
      return { ...this.described('PLAIN', 0), data: [levels, plain.view()] };
    }
    for (const entry of this.entries) this.track(entry);
    const values = new ByteWriter(indexBytes + 64);
    values.appendUint8(bitWidth);
    writeRleBitPackedHybrid(values, indexes.subarray(0, this.present) as Int32Array, bitWidth);
    plain.reset();
    for (const entry of this.entries) this.writePlain(entry);
    return {
      ...this.described('RLE_DICTIONARY', this.entries.length),
      dictionary: plain.view(),
      data: [levels, values.getBytes()],
    };
  }

  /** Empty for the next row group, keeping the memory. */
  reset(): void {
    this.rows = 0;
    this.present = 0;
    if (!this.dictionary || this.dictionary.size > 0) this.dictionary = new Map();
    this.inOrder = true;
    this.entries = [];
    this.entrySizes = [];
    this.dictionaryBytes = 0;
    this.plainBytes = 0;
    this.scratch.plain.reset();
    this.min = undefined;
    this.max = undefined;
    this.nans = 0;
    this.last = NOTHING;
    this.scratch.indexes = indexesOf(this.scratch, Uint8Array, this.scratch.indexes.length);
  }

  /** Done with the file: the memory goes back for the next writer. */
  release(): void {
    if (this.scratch !== EMPTY) spare.give(this.element.name, this.scratch);
    this.scratch = EMPTY;
  }

  private add(raw: unknown): void {
    const value = this.kind === 'bytes' && typeof raw !== 'string' ? String(raw) : checked(this.kind, raw);
    if (this.kind === 'double' && Number.isNaN(value)) this.nans++;
    if (!this.dictionary) {
      this.plainBytes += this.writePlain(value);
      this.present++;
      return;
    }
    const key = dictionaryKey(value);
    let index: number | undefined;
    if (this.inOrder) {
      const count = this.entries.length;
      // Above every entry means equal to none (SameValueZero implies neither is above the other).
      if (count > 0 && !((value as number) > (this.entries[count - 1] as number))) {
        this.inOrder = false;
        for (let i = 0; i < count; i++) this.dictionary.set(dictionaryKey(this.entries[i]), i);
        index = this.dictionary.get(key);
      }
    } else {
      index = this.dictionary.get(key);
    }
    if (index === undefined) {
      if (this.entries.length >= DICTIONARY_PROBE && this.entries.length * 2 > this.present) {
        this.dropDictionary();
        this.plainBytes += this.writePlain(value);
        this.present++;
        return;
      }
      index = this.entries.length;
      if (index === 256 || index === 65_536) this.widenIndexes(index === 256 ? Uint16Array : Int32Array);
      const size = this.kind === 'bytes' ? Buffer.byteLength(value as string) + 4 : 8;
      if (!this.inOrder) this.dictionary.set(key, index);
      this.entries.push(value);
      this.entrySizes.push(size);
      this.dictionaryBytes += size;
    }
    const size = this.entrySizes[index]!;
    this.plainBytes += size;
    this.scratch.indexes[this.present++] = index;
    // Zero and NaN never take the shortcut: -0 must stay apart from 0, and NaN equals nothing.
    if (value !== 0 && !Number.isNaN(value)) {
      this.last = raw;
      this.lastIndex = index;
      this.lastSize = size;
    }
  }

  private described(encoding: Encoding, dictionarySize: number) {
    let { min, max } = this;
    if (min === 0) min = -0;
    if (max === 0) max = 0;
    const nanCount = this.kind === 'double' ? { nan_count: BigInt(this.nans) } : {};
    const statistics = {
      null_count: BigInt(this.rows - this.present),
      min_value: min,
      max_value: max,
      ...nanCount,
    };
    return { element: this.element, encoding, dictionarySize, statistics: statistics as Statistics };
  }

  /** Switch to plain values, writing out those the dictionary holds so far. */
  private dropDictionary(): void {
    if (!this.dictionary) return;
    this.dictionary = undefined;
    this.last = NOTHING;
    const { indexes, plain } = this.scratch;
    plain.reset();
    for (let i = 0; i < this.present; i++) this.writePlain(this.entries[indexes[i]!]);
    this.entries = [];
    this.entrySizes = [];
  }

  private writePlain(value: unknown): number {
    const { plain } = this.scratch;
    if (this.kind === 'bytes') {
      const text = value as string;
      const n = plain.string(text);
      if (!this.dictionary) this.track(text, n === text.length);
      return n + 4;
    }
    if (this.kind === 'double') plain.double(value as number);
    else plain.int64(value as number | bigint);
    if (!this.dictionary) this.track(value);
    return 8;
  }

  /** Min and max in Parquet order: numbers by value, strings by UTF-8 bytes, NaN left out. */
  private track(value: unknown, ascii?: boolean): void {
    if (this.kind === 'double' && Number.isNaN(value)) return;
    if (this.min === undefined || before(value, this.min, ascii)) this.min = value;
    if (this.max === undefined || before(this.max, value, ascii)) this.max = value;
  }

  private grow(rows: number): void {
    const { scratch } = this;
    let size = scratch.defs.length;
    while (size < rows) size *= 2;
    const defs = new Uint8Array(size);
    defs.set(scratch.defs.subarray(0, this.rows));
    scratch.defs = defs;
    this.widenIndexes(scratch.indexes.constructor as typeof Int32Array, size);
  }

  private widenIndexes(
    kind: typeof Uint16Array | typeof Int32Array,
    size = this.scratch.indexes.length,
  ): void {
    const indexes = indexesOf(this.scratch, kind, size);
    indexes.set(this.scratch.indexes.subarray(0, this.present));
    this.scratch.indexes = indexes;
  }
}

/** The map key of a value: -0 apart from 0, which a Map would take as one. */
const dictionaryKey = (value: unknown): unknown =>
  value === 0 && 1 / (value as number) < 0 ? NEGATIVE_ZERO : value;

function checked(kind: Kind, value: unknown): unknown {
  if (kind === 'double' && typeof value !== 'number') {
    throw new TypeError(`parquet expected a number, got ${typeof value}`);
  }
  if (kind === 'int64' && typeof value !== 'number' && typeof value !== 'bigint') {
    throw new TypeError(`parquet expected an integer, got ${typeof value}`);
  }
  return value;
}

/**
 * a < b in Parquet's order. JS compares strings by UTF-16 code unit, UTF-8 bytes by code point;
 * the two differ only where a surrogate meets U+E000..U+FFFF, never when either side is ASCII.
 */
function before(a: unknown, b: unknown, ascii?: boolean): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || ascii || isAscii(a) || isAscii(b)) {
    return (a as number) < (b as number);
  }
  const surrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (surrogate(x) !== surrogate(y) && Math.max(x, y) >= 0xe000) return surrogate(y);
    return x < y;
  }
  return a.length < b.length;
}

const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;

/** V1 definition levels of a flat OPTIONAL column: bit width 1, RLE/bit-packed, length-prefixed. */
function definitionLevels(defs: Uint8Array, rows: number, allPresent: boolean): Uint8Array {
  const levels = new ByteWriter(rows / 8 + 16);
  levels.appendUint32(0);
  if (allPresent) {
    levels.appendVarInt(rows << 1);
    levels.appendUint8(1);
  } else {
    writeRleBitPackedHybrid(levels, defs.subarray(0, rows), 1);
  }
  levels.view.setUint32(0, levels.offset - 4, true);
  return levels.getBytes();
}

/** A byte buffer that doubles when full. */
class GrowingBytes {
  private buffer: Buffer;
  private length = 0;

  constructor(size = 4096) {
    this.buffer = Buffer.allocUnsafeSlow(size);
  }

  get capacity(): number {
    return this.buffer.length;
  }

  /** Length-prefixed UTF-8; returns the byte length of the text. */
  string(text: string): number {
    this.ensure(4 + 3 * text.length);
    const n = this.buffer.write(text, this.length + 4, 'utf8');
    this.buffer.writeUInt32LE(n, this.length);
    this.length += 4 + n;
    return n;
  }

  double(value: number): void {
    this.ensure(8);
    this.length = this.buffer.writeDoubleLE(value, this.length);
  }

  int64(value: number | bigint): void {
    this.ensure(8);
    this.length = this.buffer.writeBigInt64LE(BigInt(value), this.length);
  }

  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }

  private ensure(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.length + bytes, 4096));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}

type Indexes = Uint8Array | Uint16Array | Int32Array;

interface Scratch {
  defs: Uint8Array;
  /** The dictionary indexes of the row group: one of the arrays below, the narrowest that fits. */
  indexes: Indexes;
  /**
   * Index arrays by width, kept: a row group past 256 or 65,536 distinct values widens its
   * indexes, and the next one starts narrow again. Fresh arrays each time would be ~0.5 MB a
   * row group, alive for the whole group and so freed by a full GC only.
   */
  readonly byWidth: Map<typeof Uint8Array | typeof Uint16Array | typeof Int32Array, Indexes>;
  readonly plain: GrowingBytes;
}

/** This scratch's index array of one width with room for `size`, from before when it has it. */
function indexesOf(
  scratch: Scratch,
  kind: typeof Uint8Array | typeof Uint16Array | typeof Int32Array,
  size: number,
): Indexes {
  const kept = scratch.byWidth.get(kind);
  if (kept && kept.length >= size) return kept;
  const indexes = new kind(size);
  scratch.byWidth.set(kind, indexes);
  return indexes;
}

const newScratch = (rows: number, plain: GrowingBytes): Scratch => {
  const indexes = new Uint8Array(rows);
  return { defs: new Uint8Array(rows), indexes, byWidth: new Map([[Uint8Array, indexes]]), plain };
};

const EMPTY: Scratch = newScratch(0, new GrowingBytes(0));
const scratchBytes = (s: Scratch) => {
  let bytes = s.defs.byteLength + s.plain.capacity;
  for (const indexes of s.byWidth.values()) bytes += indexes.byteLength;
  return bytes;
};

/**
 * The memory of finished files, reused by the next file's column of the same name (so a wide
 * column's buffer does not go to a narrow one): a run writes file after file, and fresh
 * megabyte buffers for each would wait for a full GC to be freed. At most 32 MB are kept.
 */
const spare = {
  pools: new Map<string, Scratch[]>(),
  pooled: 0,
  take(column: string): Scratch {
    const scratch = this.pools.get(column)?.pop();
    if (!scratch) return newScratch(1024, new GrowingBytes());
    this.pooled -= scratchBytes(scratch);
    return scratch;
  },
  give(column: string, scratch: Scratch): void {
    if (this.pooled + scratchBytes(scratch) > 32 * 1024 * 1024) return;
    scratch.plain.reset();
    const pool = this.pools.get(column) ?? [];
    pool.push(scratch);
    this.pools.set(column, pool);
    this.pooled += scratchBytes(scratch);
  },
};
