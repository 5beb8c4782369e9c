// The one redactor: every text the product prints, raises or stores about a run (log lines,
// error messages and stacks, CLI output, Lambda results, ledger rows, alert texts) passes
// redact(), which removes each secret this process has loaded, in every encoding an echo of it
// may take: raw, base64 (standard and url-safe, at each of the 3 alignments of a base64 stream
// that embeds it), percent-encoded (with + for space), JSON-escaped (\/, \uXXXX) and split by
// line breaks or other whitespace. The registry of secrets is module state on purpose: a secret
// loaded anywhere in the process is removed from every output, so no output path can miss it
// because it was not handed the list.

export const REDACTED = '[REDACTED]';
/** Shorter values are not secrets worth a false match (the logger's rule since the start). */
const MIN_SECRET = 8;
/** Any run of this many characters of a secret's forms is removed: a truncated echo too. */
const WINDOW = 16;
/** Decoding rounds: an echo JSON-escaped twice (a message inside a JSON summary) is decoded twice. */
const ROUNDS = 3;

const registered = new Set<string>();
/** Every WINDOW-long piece of every form of every secret of WINDOW characters or more. */
const pieces = new Set<string>();
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
    for (let i = 0; i + WINDOW <= form.length; i++) pieces.add(form.slice(i, i + WINDOW));
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
  if (registered.size === 0) return text;
  let out = text;
  for (const secret of shortSecrets) out = out.split(secret).join(REDACTED);
  if (pieces.size === 0 || out.length < WINDOW) return out;
  return replaceRanges(out, matchedRanges(out));
}

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

/** A decoded view of a text: char i of `text` came from [from[i], to[i]) of the original. */
interface View {
  readonly text: string;
  readonly from: Int32Array;
  readonly to: Int32Array;
}

function matchedRanges(original: string): Array<[number, number]> {
  const identity = Int32Array.from({ length: original.length }, (_, i) => i);
  const start: View = { text: original, from: identity, to: identity.map((i) => i + 1) };
  const ranges: Array<[number, number]> = [];
  for (const dropPlus of [false, true]) {
    if (dropPlus && !original.includes('+')) continue;
    let view = start;
    for (let round = 0; round < ROUNDS; round++) {
      const next = decode(view, dropPlus);
      if (next.text === view.text) break;
      view = next;
      collect(view, ranges);
    }
  }
  collect(start, ranges);
  return ranges;
}

function collect(view: View, ranges: Array<[number, number]>): void {
  for (let i = 0; i + WINDOW <= view.text.length; i++) {
    if (pieces.has(view.text.slice(i, i + WINDOW))) ranges.push([view.from[i]!, view.to[i + WINDOW - 1]!]);
  }
}

const JSON_ESCAPES: Record<string, string> = { '/': '/', '\\': '\\', '"': '"', "'": "'" };
const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** One round of decoding: JSON escapes, percent-escapes, whitespace (and + as a space) dropped. */
function decode(view: View, dropPlus: boolean): View {
  const { text } = view;
  const chars: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const [char, length] = decodeAt(text, i, dropPlus);
    if (char !== '') {
      chars.push(char);
      from.push(view.from[i]!);
      to.push(view.to[i + length - 1]!);
    }
    i += length;
  }
  return { text: chars.join(''), from: Int32Array.from(from), to: Int32Array.from(to) };
}

/** The character an escape at i stands for ('' for one dropped) and how many characters it took. */
function decodeAt(text: string, i: number, dropPlus: boolean): [string, number] {
  const c = text[i]!;
  if (c === '\\') {
    const next = text[i + 1] ?? '';
    if (next === 'u' && HEX4.test(text.slice(i + 2, i + 6)))
      return dropped(String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16)), 6);
    if (next in JSON_ESCAPES) return [JSON_ESCAPES[next]!, 2];
    if ('bfnrt'.includes(next) && next !== '') return ['', 2];
  }
  if (c === '%' && HEX2.test(text.slice(i + 1, i + 3)))
    return dropped(String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 3), 16)), 3);
  if (/\s/.test(c) || (dropPlus && c === '+')) return ['', 1];
  return [c, 1];
}

const dropped = (char: string, length: number): [string, number] => [/\s/.test(char) ? '' : char, length];

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
