// Proves no text carries a token back in any encoding a simulator echo gave it: any 20 characters
// of the token, or of an encoded form's token-derived middle, as is or JSON-escaped once or twice.
import { expect } from 'vitest';
import { ECHO_ENCODINGS, encodeEcho } from '../../harness/simulator/secret-echo.ts';

const WINDOW = 20;

function windows(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + WINDOW <= text.length; i++) out.push(text.slice(i, i + WINDOW));
  return out;
}

const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** Every WINDOW-long piece a leak of the token would show, in every echo encoding. */
export function leakPieces(token: string): Set<string> {
  const pieces = new Set(windows(token));
  for (const encoding of ECHO_ENCODINGS) {
    // The ends of a base64 form mix in the bytes around the token: only its middle is the token's.
    const middle = encodeEcho(token, encoding).slice(4, -4);
    for (const form of [middle, jsonEscaped(middle), jsonEscaped(jsonEscaped(middle))])
      for (const piece of windows(form)) pieces.add(piece);
  }
  return pieces;
}

/** The first leaked piece in the texts, with where it was; undefined when there is none. */
export function findLeak(
  texts: Readonly<Record<string, string>>,
  pieces: ReadonlySet<string>,
): string | undefined {
  for (const [where, text] of Object.entries(texts)) {
    for (let i = 0; i + WINDOW <= text.length; i++) {
      const piece = text.slice(i, i + WINDOW);
      if (pieces.has(piece)) return `${where}: …${text.slice(Math.max(0, i - 40), i + 60)}…`;
    }
  }
  return undefined;
}

export function expectNoEcho(texts: Readonly<Record<string, string>>, pieces: ReadonlySet<string>): void {
  expect(findLeak(texts, pieces)).toBeUndefined();
}
