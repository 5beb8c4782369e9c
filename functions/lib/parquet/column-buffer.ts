// One column of an open Parquet row group, encoded as values arrive: definition levels, and a
// dictionary with its indexes or, once too many values are distinct, plain bytes. Flat OPTIONAL
// columns of BYTE_ARRAY (UTF8), DOUBLE and INT64 only: what columns.ts declares.
import type { Encoding, SchemaElement, Statistics } from 'hyparquet';
import { type DataPage, dictionaryPages, PAGE_BYTES, type PageCut, plainPages } from './data-pages.ts';
import { EMPTY, indexesOf, type Scratch, spare } from './scratch.ts';
import { before } from './utf8-order.ts';

export interface ColumnPages {
  readonly element: SchemaElement;
  /** Path of a nested leaf (a map's key or value); a flat column's is its name. */
  readonly path?: readonly string[];
  /** Level entries of a nested leaf; a flat column has one a row. */
  readonly values?: number;
  readonly encoding: Encoding;
  /** The dictionary page, PLAIN, uncompressed. */
  readonly dictionary?: Uint8Array;
  readonly dictionarySize: number;
  /** V1 data pages of about PAGE_BYTES each, uncompressed. */
  readonly pages: DataPage[];
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
  /** Where data pages end, and the PLAIN size at which the current one will. */
  private cuts: PageCut[] = [];
  private nextCut = PAGE_BYTES;

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
      if (this.plainBytes >= this.nextCut) this.cut();
    }
  }

  /**
   * Each row's dictionary index (-1 where null), the key rows are ordered by; undefined once
   * the column is plain.
   */
  rowKeys(): Int32Array | undefined {
    if (!this.dictionary) return undefined;
    const { defs, indexes } = this.scratch;
    // Entries ranked by value, so that like values (ids of one prefix) sit together too.
    const byValue = this.entries.map((_, i) => i).sort((a, b) => compare(this.entries[a], this.entries[b]));
    const rank = new Int32Array(this.entries.length);
    for (let i = 0; i < byValue.length; i++) rank[byValue[i]!] = i;
    const keys = new Int32Array(this.rows);
    for (let r = 0, p = 0; r < this.rows; r++) keys[r] = defs[r] ? rank[indexes[p++]!]! : -1;
    return keys;
  }

  /** The dictionary's size so far: the radix of this column's keys. */
  get dictionaryEntries(): number {
    return this.entries.length;
  }

  /**
   * Reorders the row group's values: row r becomes row order[r]. Page cuts are drawn again in
   * the new order (they depend on the sizes of the values before each).
   */
  permute(order: Int32Array): void {
    const rows = this.rows;
    const { defs } = this.scratch;
    const at = new Int32Array(rows);
    for (let r = 0, p = 0; r < rows; r++) at[r] = defs[r] ? p++ : -1;
    const newDefs = new Uint8Array(rows);
    for (let r = 0; r < rows; r++) newDefs[r] = defs[order[r]!]!;
    defs.set(newDefs);
    if (this.dictionary) {
      const { indexes } = this.scratch;
      const moved = new (indexes.constructor as typeof Int32Array)(this.present);
      for (let r = 0, p = 0; r < rows; r++) {
        const from = at[order[r]!]!;
        if (from >= 0) moved[p++] = indexes[from]!;
      }
      // Entries renumbered in order of first appearance: the indexes of sorted rows then climb
      // in runs, and the dictionary page lists its values in the rows' order.
      const renumbered = new Int32Array(this.entries.length).fill(-1);
      const entries: unknown[] = [];
      const entrySizes: number[] = [];
      for (let i = 0; i < this.present; i++) {
        const old = moved[i]!;
        if (renumbered[old] === -1) {
          renumbered[old] = entries.length;
          entries.push(this.entries[old]);
          entrySizes.push(this.entrySizes[old]!);
        }
        indexes[i] = renumbered[old]!;
      }
      this.entries = entries;
      this.entrySizes = entrySizes;
    } else {
      this.permutePlain(order, at);
    }
    if (this.cuts.length > 0) this.recut();
  }

  private permutePlain(order: Int32Array, at: Int32Array): void {
    const plain = this.scratch.plain.view() as Buffer;
    const moved = Buffer.allocUnsafeSlow(plain.length);
    if (this.kind !== 'bytes') {
      // Eight bytes a value, copied as two 32-bit words: the bits exactly (a NaN's payload too).
      const from = new Uint32Array(plain.buffer, plain.byteOffset, plain.length / 4);
      const to = new Uint32Array(moved.buffer, moved.byteOffset, moved.length / 4);
      for (let r = 0, p = 0; r < this.rows; r++) {
        const i = at[order[r]!]!;
        if (i < 0) continue;
        to[p++] = from[2 * i]!;
        to[p++] = from[2 * i + 1]!;
      }
    } else {
      const starts = new Int32Array(this.present + 1);
      for (let i = 0, o = 0; i < this.present; i++) {
        starts[i] = o;
        o += 4 + plain.readUInt32LE(o);
      }
      starts[this.present] = plain.length;
      for (let r = 0, o = 0; r < this.rows; r++) {
        const i = at[order[r]!]!;
        if (i < 0) continue;
        o += plain.copy(moved, o, starts[i]!, starts[i + 1]!);
      }
    }
    this.scratch.plain.overwrite(moved);
  }

  /** Page cuts drawn again over the values in their present order. */
  private recut(): void {
    const { defs, indexes } = this.scratch;
    const plain = this.scratch.plain.view();
    const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
    this.cuts = [];
    let bytes = 0;
    let next = PAGE_BYTES;
    for (let r = 0, p = 0; r < this.rows; r++) {
      if (defs[r]) {
        if (this.dictionary) bytes += this.entrySizes[indexes[p]!]!;
        else bytes += this.kind === 'bytes' ? 4 + view.getUint32(bytes, true) : 8;
        p++;
      }
      if (bytes >= next) {
        this.cuts.push({ rows: r + 1, present: p, plainBytes: bytes });
        next = bytes + PAGE_BYTES;
      }
    }
    this.nextCut = next;
  }

  /** The row group's pages; they borrow this buffer's memory until reset(). */
  takePages(): ColumnPages[] {
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
    const chunk = { defs, rows: this.rows, present: this.present, cuts: this.cuts };
    if (!this.dictionary) {
      return [{ ...this.described('PLAIN', 0), pages: plainPages(chunk, plain.view()) }];
    }
    for (const entry of this.entries) this.track(entry);
    const pages = dictionaryPages(chunk, indexes, bitWidth);
    plain.reset();
    for (const entry of this.entries) this.writePlain(entry);
    return [
      {
        ...this.described('RLE_DICTIONARY', this.entries.length),
        dictionary: plain.view(),
        pages,
      },
    ];
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
    this.cuts = [];
    this.nextCut = PAGE_BYTES;
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

  /** The data page ends here: its PLAIN values reached PAGE_BYTES (a dictionary's are fewer). */
  private cut(): void {
    this.cuts.push({ rows: this.rows, present: this.present, plainBytes: this.plainBytes });
    this.nextCut = this.plainBytes + PAGE_BYTES;
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

/** Order of two dictionary entries (strings by UTF-16 code units, numbers by value). */
const compare = (a: unknown, b: unknown): number => ((a as number) < (b as number) ? -1 : a === b ? 0 : 1);

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
