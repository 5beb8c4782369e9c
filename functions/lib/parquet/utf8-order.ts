// Parquet orders BYTE_ARRAY (UTF8) statistics by unsigned bytes of UTF-8; JavaScript compares
// strings by UTF-16 code units. The two agree except where a surrogate meets U+E000..U+FFFF.
/**
 * a < b in Parquet's order: UTF-8 bytes compare as code points do, and the encoder writes a lone
 * surrogate (JSON "\udc00" parses to one) as U+FFFD, so it is compared as U+FFFD here too.
 * Strings that are all ASCII take JS's own comparison: there the orders cannot differ.
 */
export function before(a: unknown, b: unknown, ascii?: boolean): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || ascii || isAscii(a) || isAscii(b)) {
    return (a as number) < (b as number);
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = encodedCodePoint(a, i);
    const y = encodedCodePoint(b, j);
    if (x !== y) return x < y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return i >= a.length && j < b.length;
}

/** The code point UTF-8 encoding writes at index i: a surrogate without its partner becomes U+FFFD. */
function encodedCodePoint(text: string, i: number): number {
  const c = text.codePointAt(i)!;
  return c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
}

export const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;
