// A list answer parsed in pieces. A page of 1000 cost rows is ~640 KB of JSON; as one string it
// is a V8 large object, and each one costs a fresh mapping of memory and its page faults (~2 ms
// a page on the bench's machine against ~0.1 ms for the same bytes in strings under V8's
// 128 KB regular-object limit: docs/performance.md). So the rows of `{"results":[...]...}` are
// decoded and parsed a run of rows at a time, each run a string of under PIECE_BYTES (or one row,
// when a row is longer).
//
// A cut is placed between `}` and `,{"<key>":`, <key> being the first key of the first row (rows of
// one listing begin alike; a nested object seldom begins with the row's own first key, where a
// bare `},{` is everywhere in lists of objects), and proven by the parse itself: a piece is
// `[` + the bytes from one cut to the next + `]`, and its text up to the cut is a prefix of the
// whole answer's from an element's start, so JSON.parse reads it exactly as it reads the answer.
// It can succeed only if the cut stands between two elements of the results list: a cut inside
// a string leaves that string open, a cut inside a nested object or list leaves it unclosed.
// A piece that fails to parse sends the whole answer to JSON.parse (no guessing twice), as does
// anything that is not a plain list answer.

/**
 * Pieces stay under V8's regular-object limit (128 KB) even as two-byte strings: a piece with one
 * character past Latin-1 takes two bytes a character (a 96 KB piece of such rows cost more than
 * the whole answer parsed at once).
 */
export const PIECE_BYTES = 56 * 1024;
const HEAD = Buffer.from('{"results":[');
/** The first row's first key, as `{"key":` begins it: short, plain. */
const FIRST_KEY = /^\{"([A-Za-z0-9_]{1,64})":/;
/** What may follow the list: the answer's end, or its total_count and end. */
const TAIL = /^\](?:,"total_count":(\d+))?\}\s*$/;

/** The JSON in bytes[start, end), as JSON.parse(text) of its UTF-8 text would give it. */
export function parseJsonBytes(bytes: Buffer, start: number, end: number): unknown {
  if (end - start <= PIECE_BYTES || !startsWith(bytes, start, HEAD)) return whole(bytes, start, end);
  const tailAt = bytes.lastIndexOf(0x5d /* ] */, end - 1);
  const tail = tailAt > start ? TAIL.exec(bytes.toString('latin1', tailAt, end)) : null;
  const first = FIRST_KEY.exec(bytes.toString('latin1', start + HEAD.length, start + HEAD.length + 68));
  if (!tail || !first) return whole(bytes, start, end);
  const cutBefore = Buffer.from(`},{"${first[1]}":`);
  const results: unknown[] = [];
  let from = start + HEAD.length;
  while (from < tailAt) {
    let to = tailAt;
    if (tailAt - from > PIECE_BYTES) {
      let cut = bytes.lastIndexOf(cutBefore, from + PIECE_BYTES - cutBefore.length);
      // No cut in this stretch (a row of ~96 KB or more): the piece ends after that row.
      if (cut <= from) cut = bytes.indexOf(cutBefore, from + PIECE_BYTES);
      to = cut > from && cut < tailAt ? cut + 1 : tailAt;
    }
    let piece: unknown;
    try {
      piece = JSON.parse(`[${bytes.toString('utf8', from, to)}]`);
    } catch {
      return whole(bytes, start, end);
    }
    for (const row of piece as unknown[]) results.push(row);
    from = to === tailAt ? to : to + 1; // past the comma
  }
  return tail[1] === undefined ? { results } : { results, total_count: Number(tail[1]) };
}

function whole(bytes: Buffer, start: number, end: number): unknown {
  return JSON.parse(bytes.toString('utf8', start, end));
}

function startsWith(bytes: Buffer, at: number, prefix: Buffer): boolean {
  return (
    bytes.length - at >= prefix.length &&
    bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0
  );
}
