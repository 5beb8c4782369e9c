// The one redactor: every text the product prints, raises or stores about a run (log lines,
// error messages and stacks, CLI output, Lambda results, ledger rows, alert texts) passes
// redact(), which removes each secret this process has loaded, in every encoding an echo of it
// may take: raw, base64 (standard and url-safe, at each of the 3 alignments of a base64 stream
// that embeds it), percent-encoded (with + for space), JSON-escaped (\/, \uXXXX) and split by
// line breaks or other whitespace. The registry of secrets is module state on purpose: a secret
// loaded anywhere in the process is removed from every output, so no output path can miss it
// because it was not handed the list.

import { pieceRanges, WINDOW, windowHash } from './views.ts';

export const REDACTED = '[REDACTED]';
/** Shorter values are not secrets worth a false match (the logger's rule since the start). */
const MIN_SECRET = 8;

const registered = new Set<string>();
/**
 * Every WINDOW-long piece of every form of every secret of WINDOW characters or more, and their
 * hashes: any run of WINDOW characters of a secret's forms is removed, a truncated echo too.
 */
const pieces = { texts: new Set<string>(), hashes: new Set<number>() };
/** Secrets of MIN_SECRET to WINDOW − 1 characters: removed where they appear whole. */
const shortSecrets: string[] = [];

/** Never print this value again, from anywhere in this process. */
export function registerSecret(secret: string): void {
  if (secret.length < MIN_SECRET || registered.has(secret)) return;
  registered.add(secret);
  if (secret.length < WINDOW) {
    shortSecrets.push(secret);
    return;
  }
  for (const form of [secret, ...base64Cores(secret)]) {
    for (let i = 0; i + WINDOW <= form.length; i++) {
      const piece = form.slice(i, i + WINDOW);
      pieces.texts.add(piece);
      pieces.hashes.add(windowHash(piece));
    }
  }
}

/**
 * The characters of a secret's base64 that do not depend on what surrounds it, in a stream where
 * it starts at each byte offset modulo 3, in the standard and the url-safe alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const skip = [0, 2, 3];
  return [0, 1, 2].flatMap((offset) => {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const core = padded.toString('base64').slice(skip[offset], Math.floor(padded.length / 3) * 4);
    return [core, core.replaceAll('+', '-').replaceAll('/', '_')];
  });
}

/** The text with every registered secret, in any of its encodings, replaced by [REDACTED]. */
export function redact(text: string): string {
  const masked = maskUrlPasswords(text);
  if (registered.size === 0) return masked;
  let out = masked;
  for (const secret of shortSecrets) out = out.split(secret).join(REDACTED);
  if (pieces.texts.size === 0 || out.length < WINDOW) return out;
  return replaceRanges(out, pieceRanges(out, pieces));
}

/** A URL's password (`https://user:pw@host`): never registered, as it came in an option. */
function maskUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(URL_PASSWORD, `$1${REDACTED}@`) : text;
}
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:)[^\s/@]+@/gi;

/** A copy of a value with every string in it redacted (results, summaries, records). */
export function redactValue<T>(value: T): T {
  return redactDeep(value, new WeakMap()) as T;
}

/**
 * A copy of an error, of its class, with its message, stack, cause chain and every other own
 * property redacted: what a Lambda throws is serialized by a runtime we do not control.
 */
export function redactError(error: unknown): unknown {
  return redactDeep(error, new WeakMap());
}

function redactDeep(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(redactDeep(item, seen));
    return copy;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  if (!(value instanceof Error) && proto !== Object.prototype && proto !== null) return value;
  const copy = Object.create(proto) as Record<string, unknown>;
  seen.set(value, copy);
  for (const name of Object.getOwnPropertyNames(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name)!;
    const own = (value as Record<string, unknown>)[name];
    Object.defineProperty(copy, redact(name), {
      value: redactDeep(own, seen),
      enumerable: descriptor.enumerable,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function replaceRanges(text: string, ranges: Array<[number, number]>): string {
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let at = 0;
  let [start, end] = ranges[0]!;
  for (const [s, e] of ranges.slice(1)) {
    if (s <= end) end = Math.max(end, e);
    else {
      parts.push(text.slice(at, start), REDACTED);
      at = end;
      [start, end] = [s, e];
    }
  }
  parts.push(text.slice(at, start), REDACTED, text.slice(end));
  return parts.join('');
}
