// A MAP<string, string> column of an open row group, encoded as values arrive: Parquet's
// three-level MAP (an OPTIONAL group of a REPEATED key_value group of a REQUIRED key and an
// OPTIONAL value), two leaf columns with repetition and definition levels, PLAIN values.
import type { SchemaElement, Statistics } from 'hyparquet';
import type { ColumnPages } from './column-buffer.ts';
import { type DataPage, PAGE_BYTES } from './data-pages.ts';
import { levelBytes } from './levels.ts';
import { GrowingBytes } from './scratch.ts';
import { before, isAscii } from './utf8-order.ts';

/** A map's entries, in order; a key appears once. NULL values are kept (a key without a value). */
export type MapEntries = ReadonlyArray<readonly [string, string | null]>;

/**
 * Definition level of the value leaf, per level entry: the key leaf's is min(d, KEY_DEF).
 * 0 the map is NULL; 1 the map is empty; 2 an entry whose value is NULL; 3 an entry with a value.
 */
const KEY_DEF = 2;
const VALUE_DEF = 3;

/** The schema elements of a MAP<string, string> column named `name`, parent first. */
export function mapElements(name: string): SchemaElement[] {
  const utf8 = { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } } as const;
  return [
    {
      name,
      repetition_type: 'OPTIONAL',
      num_children: 1,
      converted_type: 'MAP',
      logical_type: { type: 'MAP' },
    },
    { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
    { name: 'key', repetition_type: 'REQUIRED', ...utf8 },
    { name: 'value', repetition_type: 'OPTIONAL', ...utf8 },
  ];
}

/** A growable byte array: the levels of a row group, one byte each. */
class Levels {
  bytes = new Uint8Array(1024);
  length = 0;
  push(level: number): void {
    if (this.length === this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes[this.length++] = level;
  }
}

/** Where each row begins: its first level entry and its first key and value bytes. */
class RowStarts {
  at = new Int32Array(3 * 1024);
  rows = 0;
  push(level: number, keyByte: number, valueByte: number): void {
    if (3 * this.rows + 3 > this.at.length) {
      const next = new Int32Array(this.at.length * 2);
      next.set(this.at);
      this.at = next;
    }
    this.at.set([level, keyByte, valueByte], 3 * this.rows++);
  }
}

export class MapColumnBuffer {
  readonly name: string;
  private readonly elements: SchemaElement[];
  private defs = new Levels();
  private starts = new RowStarts();
  private keys = new GrowingBytes();
  private values = new GrowingBytes();
  private readonly keyStats = new MinMax();
  private readonly valueStats = new MinMax();

  constructor(name: string) {
    this.name = name;
    this.elements = mapElements(name);
  }

  addRows<R, C>(records: readonly R[], from: number, to: number, value: (r: R, c: C) => unknown, ctx: C) {
    for (let i = from; i < to; i++) this.addRow(value(records[i]!, ctx));
  }

  private addRow(raw: unknown): void {
    this.starts.push(this.defs.length, this.keys.view().length, this.values.view().length);
    if (raw === null || raw === undefined) {
      this.defs.push(0);
      return;
    }
    const entries = entriesOf(raw, this.name);
    if (entries.length === 0) {
      this.defs.push(1);
      return;
    }
    for (const [key, value] of entries) {
      this.keys.string(key);
      this.keyStats.track(key);
      if (value === null) {
        this.defs.push(KEY_DEF);
      } else {
        this.values.string(value);
        this.valueStats.track(value);
        this.defs.push(VALUE_DEF);
      }
    }
  }

  /** Reorders the row group's rows: row r becomes row order[r] (see ColumnBuffer.permute). */
  permute(order: Int32Array): void {
    const { rows } = this.starts;
    const defs = new Levels();
    const starts = new RowStarts();
    const keys = new GrowingBytes(this.keys.view().length + 16);
    const values = new GrowingBytes(this.values.view().length + 16);
    const end = this.ends();
    for (let r = 0; r < rows; r++) {
      const s = this.rowSpan(order[r]!, end);
      starts.push(defs.length, keys.view().length, values.view().length);
      for (let l = s.level; l < s.levelEnd; l++) defs.push(this.defs.bytes[l]!);
      keys.append(this.keys.view().subarray(s.keyByte, s.keyEnd));
      values.append(this.values.view().subarray(s.valueByte, s.valueEnd));
    }
    this.defs = defs;
    this.starts = starts;
    this.keys = keys;
    this.values = values;
  }

  /** The key and value leaves' pages, cut at rows after about PAGE_BYTES of keys and values. */
  takePages(): ColumnPages[] {
    const end = this.ends();
    const cuts: number[] = [0];
    let since = 0;
    for (let r = 0; r < this.starts.rows; r++) {
      const s = this.rowSpan(r, end);
      since += s.keyEnd - s.keyByte + s.valueEnd - s.valueByte;
      if (since >= PAGE_BYTES && r + 1 < this.starts.rows) {
        cuts.push(r + 1);
        since = 0;
      }
    }
    cuts.push(this.starts.rows);
    const key: DataPage[] = [];
    const value: DataPage[] = [];
    for (let c = 0; c + 1 < cuts.length; c++) {
      const a = this.rowSpan(cuts[c]!, end);
      const b = cuts[c + 1]! < this.starts.rows ? this.rowSpan(cuts[c + 1]!, end) : end;
      const defs = this.defs.bytes.subarray(a.level, b.level);
      const reps = repetitionLevels(this.starts, cuts[c]!, cuts[c + 1]!, a.level, b.level);
      const keyDefs = defs.map((d) => Math.min(d, KEY_DEF));
      key.push(this.page(reps, keyDefs, KEY_DEF, this.keys.view().subarray(a.keyByte, b.keyByte)));
      value.push(this.page(reps, defs, VALUE_DEF, this.values.view().subarray(a.valueByte, b.valueByte)));
    }
    const levels = this.defs.length;
    const nulls = (max: number) => {
      let n = 0;
      for (let l = 0; l < levels; l++) if (this.defs.bytes[l]! < max) n++;
      return BigInt(n);
    };
    const leaf = (element: SchemaElement, pages: DataPage[], max: number, stats: MinMax): ColumnPages => ({
      element,
      path: [this.name, 'key_value', element.name],
      values: levels,
      encoding: 'PLAIN',
      dictionarySize: 0,
      pages,
      statistics: { null_count: nulls(max), min_value: stats.min, max_value: stats.max } as Statistics,
    });
    return [
      leaf(this.elements[2]!, key, KEY_DEF, this.keyStats),
      leaf(this.elements[3]!, value, VALUE_DEF, this.valueStats),
    ];
  }

  /** Empty for the next row group, keeping the memory. */
  reset(): void {
    this.defs.length = 0;
    this.starts.rows = 0;
    this.keys.reset();
    this.values.reset();
    this.keyStats.clear();
    this.valueStats.clear();
  }

  release(): void {}

  private page(reps: Uint8Array, defs: Uint8Array, maxDef: number, plain: Uint8Array): DataPage {
    return {
      rows: defs.length,
      parts: [levelBytes(reps, 1), levelBytes(defs, 32 - Math.clz32(maxDef)), plain],
    };
  }

  private ends() {
    return {
      level: this.defs.length,
      keyByte: this.keys.view().length,
      valueByte: this.values.view().length,
    };
  }

  /** Row r's level entries and key and value bytes, [start, end). */
  private rowSpan(r: number, end: { level: number; keyByte: number; valueByte: number }) {
    const at = this.starts.at;
    const next = r + 1 < this.starts.rows;
    return {
      level: at[3 * r]!,
      keyByte: at[3 * r + 1]!,
      valueByte: at[3 * r + 2]!,
      levelEnd: next ? at[3 * r + 3]! : end.level,
      keyEnd: next ? at[3 * r + 4]! : end.keyByte,
      valueEnd: next ? at[3 * r + 5]! : end.valueByte,
    };
  }
}

/** Repetition levels of rows [from, to): 0 where a row begins, 1 for its further entries. */
function repetitionLevels(
  starts: RowStarts,
  from: number,
  to: number,
  first: number,
  last: number,
): Uint8Array {
  const reps = new Uint8Array(last - first).fill(1);
  for (let r = from; r < to; r++) reps[starts.at[3 * r]! - first] = 0;
  return reps;
}

/** A map value as entries: an object's own properties or a list of pairs; strings only. */
function entriesOf(raw: unknown, column: string): MapEntries {
  const entries = Array.isArray(raw) ? (raw as [unknown, unknown][]) : Object.entries(raw as object);
  for (const [key, value] of entries) {
    if (typeof key !== 'string' || (value !== null && typeof value !== 'string')) {
      throw new TypeError(`parquet: map column ${column} takes string keys and string or null values`);
    }
  }
  return entries as MapEntries;
}

/** Min and max of strings in Parquet's order (UTF-8 bytes). */
class MinMax {
  min: string | undefined;
  max: string | undefined;
  track(value: string): void {
    const ascii = isAscii(value);
    if (this.min === undefined || before(value, this.min, ascii)) this.min = value;
    if (this.max === undefined || before(this.max, value, ascii)) this.max = value;
  }
  clear(): void {
    this.min = undefined;
    this.max = undefined;
  }
}
