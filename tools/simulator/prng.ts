// Deterministic randomness: every generated value is a pure function of the seed and of the
// integers that name it (data source, day, row), so any slice of the data can be rebuilt alone.

/** Mixes integers into one 32-bit hash (murmur3 finaliser per step). */
export function hashInts(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    // Numbers above 2^32 (ids, large counters) keep their high bits too.
    h = Math.imul(h ^ Math.floor(part / 0x100000000), 0x27d4eb2f) ^ (h >>> 15);
  }
  return h >>> 0;
}

export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: tiny, fast, good enough for synthetic data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.int(0x10000).toString(16).padStart(4, '0');
    return out.slice(0, length);
  }
}

const MASK24 = 0xffffff;

/** A keyed bijection on 48-bit integers: unique counters in, unique random-looking ids out. */
export function permute48(value: number, key: number): number {
  let left = Math.floor(value / 0x1000000) & MASK24;
  let right = value % 0x1000000;
  for (let round = 0; round < 4; round++) {
    const mixed = hashInts(right, key, round) & MASK24;
    [left, right] = [right, (left ^ mixed) & MASK24];
  }
  return left * 0x1000000 + right;
}

export const hex12 = (value: number): string => value.toString(16).padStart(12, '0');

/** A stable `<prefix>-<12 hex>` id for a named thing. */
export function stableId(prefix: string, seed: number, ...parts: (string | number)[]): string {
  const ints = parts.map((part) => (typeof part === 'number' ? part : hashString(part)));
  const high = hashInts(seed, 1, ...ints) & 0xffffff;
  const low = hashInts(seed, 2, ...ints) & 0xffffff;
  return `${prefix}-${hex12(high * 0x1000000 + low)}`;
}

export const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;
