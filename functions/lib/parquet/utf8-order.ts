// Parquet orders BYTE_ARRAY (UTF8) statistics by unsigned bytes of UTF-8; JavaScript compares
// strings by UTF-16 code units. The two agree except where a surrogate meets U+E000..U+FFFF.
/**
 * a < b in Parquet's order. JS compares strings by UTF-16 code unit, UTF-8 bytes by code point;
 * the two differ only where a surrogate meets U+E000..U+FFFF, never when either side is ASCII.
 */
export function before(a: unknown, b: unknown, ascii?: boolean): boolean {
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

export const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;
