// Answer bodies read into reused buffers. A page of 1000 cost rows is ~640 KB: read as the
// socket's chunks and then copied together (what body.text() does), each answer leaves a
// megabyte or more of ArrayBuffers behind for the GC, and a page asked ahead waits for its turn
// longer than a young-generation cycle. Copied into a buffer taken from this pool instead, it
// waits off the V8 heap in memory that the next answer reuses.

import { parseJsonBytes } from './json-pieces.ts';

export interface BodyBytes {
  /**
   * The body as text: UTF-8, a leading BOM dropped, as undici's body.text() gives it. The buffer
   * then goes back to the pool, so this (or json) may be called once only.
   */
  text(): string;
  /**
   * JSON.parse of that text, without making a string of a large list answer (json-pieces.ts);
   * throws JSON.parse's SyntaxError when it is not JSON. Once only, as text().
   */
  json(): unknown;
  /**
   * The value of the last `"key":` in the bytes, unparsed, while they are unread: a guess for a
   * pager that asks for the next page before it parses this one (what read gives is the truth).
   * A string without escapes, or a whole number; undefined otherwise, and once read.
   */
  peek(key: string): string | number | undefined;
  /** The body's length in bytes (BOM dropped), and its first characters: for messages. */
  readonly byteLength: number;
  readonly head: string;
}

/** A body longer than the reader's limit; `declared` when its content-length said so up front. */
export class BodyTooLargeError extends Error {
  readonly maxBytes: number;
  readonly declared: number | undefined;
  constructor(maxBytes: number, declared: number | undefined) {
    super(
      declared === undefined
        ? `the body grew past ${maxBytes} bytes`
        : `the body declares ${declared} bytes, more than ${maxBytes}`,
    );
    this.name = 'BodyTooLargeError';
    this.maxBytes = maxBytes;
    this.declared = declared;
  }
}

/**
 * Read a whole body; content-length, when the server sends it, sizes the buffer up front.
 * A body longer than maxBytes fails: at once when its content-length says so (nothing is read),
 * else with the chunk that crosses the limit (the rest is never read; the caller drops the stream).
 */
export async function readBody(
  body: AsyncIterable<Uint8Array>,
  contentLength: unknown,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<BodyBytes> {
  const declared = typeof contentLength === 'string' ? Number(contentLength) : Number.NaN;
  if (Number.isSafeInteger(declared) && declared > maxBytes) throw new BodyTooLargeError(maxBytes, declared);
  let buffer = pool.take(Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, MAX_HINT) : 0);
  let length = 0;
  try {
    for await (const chunk of body) {
      if (length + chunk.length > maxBytes) throw new BodyTooLargeError(maxBytes, undefined);
      if (length + chunk.length > buffer.length) {
        buffer = pool.grow(buffer, length, length + chunk.length, maxBytes);
      }
      buffer.set(chunk, length);
      length += chunk.length;
    }
  } catch (error) {
    pool.give(buffer);
    throw error;
  }
  let read = false;
  const from = length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  /** The bytes once, then the buffer goes back (an answer kept after reading must not keep it). */
  const once = <T>(use: (bytes: Buffer) => T): T => {
    if (read) throw new Error('an answer body can be read once only');
    read = true;
    try {
      return use(buffer);
    } finally {
      pool.give(buffer);
      buffer = EMPTY;
    }
  };
  return {
    byteLength: length - from,
    head: buffer.toString('utf8', from, Math.min(length, from + HEAD_BYTES)),
    peek: (key) => (read ? undefined : lastValue(buffer, from, length, key)),
    text: () => once((bytes) => bytes.toString('utf8', from, length)),
    json: () => once((bytes) => parseJsonBytes(bytes, from, length)),
  };
}

/** A peeked value longer than this is no id or count: not guessed at. */
const PEEK_BYTES = 256;

function lastValue(buffer: Buffer, from: number, end: number, key: string): string | number | undefined {
  // The body only: past `end` the pooled buffer holds what an earlier answer left.
  const bytes = buffer.subarray(from, end);
  const at = bytes.lastIndexOf(`"${key}":`);
  if (at < 0) return undefined;
  let i = at + key.length + 3;
  while (i < bytes.length && bytes[i] === 0x20) i++;
  if (i < bytes.length && bytes[i] === 0x22 /* " */) {
    const close = bytes.indexOf(0x22, i + 1);
    if (close < 0 || close - i > PEEK_BYTES) return undefined;
    const text = bytes.toString('utf8', i + 1, close);
    return text.includes('\\') ? undefined : text;
  }
  let stop = i;
  while (stop < bytes.length && stop - i < 20 && bytes[stop]! >= 0x30 && bytes[stop]! <= 0x39) stop++;
  return stop > i ? Number(bytes.toString('latin1', i, stop)) : undefined;
}

const EMPTY = Buffer.alloc(0);
/** Enough of the body to show what it is in a message. */
const HEAD_BYTES = 160;
const KB64 = 64 * 1024;
/** A declared length sizes the first buffer up to this; a longer body grows it as it comes. */
const MAX_HINT = 16 * 1024 * 1024;
/**
 * Free buffers kept at most, beside the answers out (a unit's ranges' pages in hand and asked
 * ahead). What the pool keeps free stays resident: at 16 MB the bench's four units at 100 ms a page
 * peaked at 291 MB, at 4 MB 273 (medians of three, the same rows a second; docs/performance.md,
 * round 4, fifth session).
 */
const POOL_BYTES = 4 * 1024 * 1024;

/** Sizes rounded up with an eighth to spare, so that pages of nearly one size share buffers. */
const sized = (bytes: number) => Math.max(KB64, Math.ceil((bytes * 1.125) / KB64) * KB64);

const pool = {
  free: [] as Buffer[],
  bytes: 0,
  take(atLeast: number): Buffer {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const buffer = this.free[i]!;
      if (buffer.length >= atLeast) {
        this.free.splice(i, 1);
        this.bytes -= buffer.length;
        return buffer;
      }
    }
    return Buffer.allocUnsafeSlow(sized(atLeast));
  },
  /** A buffer twice as long (but no longer than the limit), holding what this one held. */
  grow(buffer: Buffer, used: number, atLeast: number, limit: number): Buffer {
    const next = this.take(Math.max(atLeast, Math.min(2 * buffer.length, limit)));
    buffer.copy(next, 0, 0, used);
    this.give(buffer);
    return next;
  },
  give(buffer: Buffer): void {
    if (this.bytes + buffer.length > POOL_BYTES) return;
    this.free.push(buffer);
    this.bytes += buffer.length;
  },
};
