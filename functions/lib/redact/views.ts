// Where the redactor's pieces of a secret occur in a text: in the text as it is, and in decoded
// views of it (JSON escapes, percent-escapes, whitespace dropped; + dropped as a form-encoded
// space), each view mapping its characters back to the original's. A rolling hash finds
// candidates, so a text costs one pass per view, not one string per position.

/** Every piece has this many characters. */
export const WINDOW = 16;
/** Decoding rounds: an echo JSON-escaped twice (a message inside a JSON summary) is decoded twice. */
const ROUNDS = 3;
const BASE = 31;
const POW = Array.from({ length: WINDOW - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);

export interface Pieces {
  readonly hashes: ReadonlySet<number>;
  readonly texts: ReadonlySet<string>;
}

export function windowHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

/** Char i of `text` came from [from[i], to[i]) of the original; null: the original itself. */
interface View {
  readonly text: string;
  readonly from: Int32Array | null;
  readonly to: Int32Array | null;
}

/** The original's ranges that hold a piece, in any view; unsorted, may overlap. */
export function pieceRanges(original: string, pieces: Pieces): Array<[number, number]> {
  const start: View = { text: original, from: null, to: null };
  const ranges: Array<[number, number]> = [];
  collect(start, pieces, ranges);
  for (const dropPlus of [false, true]) {
    if (dropPlus && !original.includes('+')) continue;
    let view = start;
    for (let round = 0; round < ROUNDS; round++) {
      const next = decode(view, dropPlus);
      if (next.text === view.text) break;
      view = next;
      collect(view, pieces, ranges);
      if (!view.text.includes('\\') && !view.text.includes('%')) break;
    }
  }
  return ranges;
}

function collect(view: View, pieces: Pieces, ranges: Array<[number, number]>): void {
  const { text, from, to } = view;
  if (text.length < WINDOW) return;
  let h = windowHash(text.slice(0, WINDOW));
  for (let i = 0; ; i++) {
    if (pieces.hashes.has(h) && pieces.texts.has(text.slice(i, i + WINDOW)))
      ranges.push([from ? from[i]! : i, to ? to[i + WINDOW - 1]! : i + WINDOW]);
    if (i + WINDOW >= text.length) return;
    h = (Math.imul(h - Math.imul(text.charCodeAt(i), POW), BASE) + text.charCodeAt(i + WINDOW)) | 0;
  }
}

const BACKSLASH = 92;
const PERCENT = 37;
const PLUS = 43;
/** \b \f \n \r \t: whitespace once decoded, dropped. */
const SPACE_ESCAPES = new Set([98, 102, 110, 114, 116]);
/** \/ \\ \" \': the character itself. */
const SELF_ESCAPES = new Set([47, 92, 34, 39]);

/** One round of decoding, with where each character came from. */
function decode(view: View, dropPlus: boolean): View {
  const { text } = view;
  const codes = new Uint16Array(text.length);
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let k = 0;
  for (let i = 0; i < text.length; ) {
    const at = decodeAt(text, i);
    const code = at >> 3;
    const length = at & 7;
    const drop = isSpace(code) || (dropPlus && length === 1 && code === PLUS);
    if (!drop) {
      codes[k] = code;
      from[k] = view.from ? view.from[i]! : i;
      to[k] = view.to ? view.to[i + length - 1]! : i + length;
      k++;
    }
    i += length;
  }
  return { text: fromCodes(codes.subarray(0, k)), from: from.subarray(0, k), to: to.subarray(0, k) };
}

/** A decoded character that is dropped (an escaped line break or tab): beyond any UTF-16 code. */
const DROPPED = 0x10000;
/** One number per character, no tuple: the code times 8 plus the escape's length (1 to 6). */
const packed = (code: number, length: number) => code * 8 + length;

/** The character code an escape at i stands for (DROPPED: none) and its length, packed. */
function decodeAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === BACKSLASH) {
    const next = text.charCodeAt(i + 1);
    if (next === 117 && hexAt(text, i + 2, 4))
      return packed(Number.parseInt(text.slice(i + 2, i + 6), 16), 6);
    if (SELF_ESCAPES.has(next)) return packed(next, 2);
    if (SPACE_ESCAPES.has(next)) return packed(DROPPED, 2);
  }
  if (c === PERCENT && hexAt(text, i + 1, 2)) return packed(Number.parseInt(text.slice(i + 1, i + 3), 16), 3);
  return packed(c, 1);
}

function hexAt(text: string, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i) | 0x20; // lower case; NaN past the end becomes 0x20
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function isSpace(code: number): boolean {
  if (code === DROPPED || code === 32 || (code >= 9 && code <= 13)) return true;
  return code > 127 && /\s/.test(String.fromCharCode(code));
}

function fromCodes(codes: Uint16Array): string {
  const parts: string[] = [];
  for (let i = 0; i < codes.length; i += 8192)
    parts.push(String.fromCharCode(...codes.subarray(i, i + 8192)));
  return parts.join('');
}
