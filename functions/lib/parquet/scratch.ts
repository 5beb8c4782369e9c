// The memory a column encodes into: levels, dictionary indexes and plain bytes, pooled between
// files so that a run writing file after file reuses its buffers instead of waiting for the GC.
/** A byte buffer that doubles when full. */
export class GrowingBytes {
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

  /** Appends raw bytes (values already length-prefixed). */
  append(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Replaces the bytes held by as many others (the same values in another order). */
  overwrite(bytes: Uint8Array): void {
    if (bytes.length !== this.length) throw new Error('GrowingBytes.overwrite: length differs');
    this.buffer.set(bytes, 0);
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

export type Indexes = Uint8Array | Uint16Array | Int32Array;

export interface Scratch {
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
export function indexesOf(
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

export const EMPTY: Scratch = newScratch(0, new GrowingBytes(0));
const scratchBytes = (s: Scratch) => {
  let bytes = s.defs.byteLength + s.plain.capacity;
  for (const indexes of s.byWidth.values()) bytes += indexes.byteLength;
  return bytes;
};

/**
 * The memory of finished files, reused by the next file's column of the same name (so a wide
 * column's buffer does not go to a narrow one): a run writes file after file, and fresh
 * megabyte buffers for each would wait for a full GC to be freed. At most 32 MB are kept.
 * Deliberately module-level, like a warm Lambda's caches: it holds memory only, never values
 * (a buffer is reset before it is reused), so nothing one file wrote can reach another.
 */
export const spare = {
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
