// Collects log lines in memory, and proves that no captured text leaks a token.

import { expect } from 'vitest';

export function captureLogs(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line) };
}

/** Fails when any text holds the token, its payload segment or its signature segment. */
export function expectNoSecret(texts: readonly string[], secret: string): void {
  const [, payload, signature] = secret.split('.');
  const needles = [secret, payload, signature].filter((part): part is string => !!part && part.length >= 8);
  for (const text of texts) {
    for (const needle of needles)
      expect(text.includes(needle), `a text leaks the secret: ${redact(text, needles)}`).toBe(false);
  }
}

function redact(text: string, needles: readonly string[]): string {
  return needles.reduce((out, needle) => out.split(needle).join('[SECRET]'), text);
}
