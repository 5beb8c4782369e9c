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
    while (out.length < length) out += HEX2[this.int(256)];
    return out.slice(0, length);
  }
}

const MASK24 = 0xffffff;

function roundMix(value: number, key: number, round: number): number {
  let h = Math.imul(value ^ key, 0x85ebca6b) ^ Math.imul(round + 1, 0x9e3779b9);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A keyed bijection on 48-bit integers: unique counters in, unique random-looking ids out. */
export function permute48(value: number, key: number): number {
  let left = Math.floor(value / 0x1000000) & MASK24;
  let right = value % 0x1000000;
  for (let round = 0; round < 4; round++) {
    const next = (left ^ roundMix(right, key, round)) & MASK24;
    left = right;
    right = next;
  }
  return left * 0x1000000 + right;
}

/** The inverse of permute48: which counter an id came from. */
export function unpermute48(value: number, key: number): number {
  let left = Math.floor(value / 0x1000000) & MASK24;
  let right = value % 0x1000000;
  for (let round = 3; round >= 0; round--) {
    const previous = (right ^ roundMix(left, key, round)) & MASK24;
    right = left;
    left = previous;
  }
  return left * 0x1000000 + right;
}

/** Byte → two hex digits; Number#toString(16) is slow above 2^32 and this runs per row. */
const HEX2 = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function hex12(value: number): string {
  const high = Math.floor(value / 0x1000000);
  const low = value % 0x1000000;
  return (
    (HEX2[(high >>> 16) & 255] as string) +
    HEX2[(high >>> 8) & 255] +
    HEX2[high & 255] +
    HEX2[(low >>> 16) & 255] +
    HEX2[(low >>> 8) & 255] +
    HEX2[low & 255]
  );
}

/** A stable `<prefix>-<12 hex>` id for a named thing. */
export function stableId(prefix: string, seed: number, ...parts: (string | number)[]): string {
  const ints = parts.map((part) => (typeof part === 'number' ? part : hashString(part)));
  const high = hashInts(seed, 1, ...ints) & 0xffffff;
  const low = hashInts(seed, 2, ...ints) & 0xffffff;
  return `${prefix}-${hex12(high * 0x1000000 + low)}`;
}

/**
 * JSON text of `micros / 1e6`, as JSON.stringify would write it (at most 15 significant
 * digits round-trip exactly), without the slow double-to-string conversion.
 */
export function microsJson(micros: number): string {
  const whole = Math.floor(micros / 1e6);
  const fraction = micros - whole * 1e6;
  if (fraction === 0) return String(whole);
  let digits = String(fraction).padStart(6, '0');
  while (digits.endsWith('0')) digits = digits.slice(0, -1);
  return `${whole}.${digits}`;
}
