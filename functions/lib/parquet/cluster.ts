// The order of a row group's rows by the table's clustering columns, from their dictionary
// indexes: rows alike end up side by side, which shortens runs of dictionary indexes and gives
// the codec repeats to find. Measured with tools/bench (docs/performance.md).
import type { ColumnBuffer } from './column-buffer.ts';

/**
 * The permutation (new row -> old row) that sorts the rows by the keys of `columns` in turn,
 * ties kept in arrival order; undefined when no column can take part (none dictionary-encoded).
 */
export function clusterOrder(columns: readonly ColumnBuffer[], rows: number): Int32Array | undefined {
  const keys: { keys: Int32Array; radix: number }[] = [];
  for (const column of columns) {
    const k = column.rowKeys();
    // One value (or none) orders nothing.
    if (k && column.dictionaryEntries > 1) keys.push({ keys: k, radix: column.dictionaryEntries + 1 });
  }
  if (keys.length === 0 || rows < 2) return undefined;
  const order = new Int32Array(rows);
  for (let r = 0; r < rows; r++) order[r] = r;
  const span = keys.reduce((n, k) => n * k.radix, 1) * rows;
  if (span <= Number.MAX_SAFE_INTEGER) {
    // One number a row (the keys in mixed radix, then the row): a numeric sort, no comparator.
    const packed = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      let v = 0;
      for (const k of keys) v = v * k.radix + k.keys[r]! + 1;
      packed[r] = v * rows + r;
    }
    packed.sort();
    for (let r = 0; r < rows; r++) order[r] = packed[r]! % rows;
    return order;
  }
  return order.sort((a, b) => {
    for (const k of keys) {
      const d = k.keys[a]! - k.keys[b]!;
      if (d !== 0) return d;
    }
    return a - b;
  });
}
