// The one redactor: a registered secret, in every encoding an echo may give it, leaves no piece
// of itself in a text, a JSON rendering of that text, a value or an error; other text is kept.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CloudforetApiError, ExportError } from '../../functions/lib/errors.ts';
import {
  REDACTED,
  redact,
  redactError,
  redactValue,
  registerSecret,
} from '../../functions/lib/redact/redact.ts';
import { ECHO_ENCODINGS, encodeEcho } from '../../harness/simulator/secret-echo.ts';
import { makeTestToken } from '../../harness/tokens.ts';
import { expectNoEcho, leakPieces } from '../support/echo-leaks.ts';

const token = makeTestToken();
registerSecret(token);
const pieces = leakPieces(token);
const text16 = () => 'a summary line, long enough to be base64-encoded whole';

describe('redact', () => {
  it.each(ECHO_ENCODINGS)(
    'removes the token echoed as %s, in the text and in its JSON renderings',
    (encoding) => {
      const text = `401 for /cost/list (request = {"token": "${encodeEcho(token, encoding)}"}) — rotate it`;

      const once = redact(text);
      const json = redact(JSON.stringify({ message: text }));
      const twice = redact(JSON.stringify({ summary: JSON.stringify({ message: text }) }));

      expectNoEcho({ once, json, twice }, pieces);
      expect(once).toContain(REDACTED);
      expect(once.startsWith('401 for /cost/list (request = {"token": "')).toBe(true);
      expect(once.endsWith('"}) — rotate it')).toBe(true);
      expect(JSON.parse(json)).toEqual({ message: expect.stringContaining(REDACTED) });
    },
  );

  it('removes a truncated echo and a lone signature', () => {
    const [, payload, signature] = token.split('.') as [string, string, string];

    const out = redact(`echo: ${token.slice(0, 60)} … sig=${signature} … claims=${payload.slice(5, 45)}`);

    expectNoEcho({ out }, pieces);
    expect(out.match(/\[REDACTED\]/g)).toHaveLength(3);
  });

  it('keeps text that holds no secret byte for byte', () => {
    const text = `costs 2026-10-01..2026-10-31 -> s3://b/p\n  FAILED ds-1 2026-10-02: a\\u0020b %41 x+y [CLOUDFORET_HTTP_500]\n${Buffer.from(text16()).toString('base64')}\n`;

    expect(redact(text)).toBe(text);
  });

  it("removes a URL's password, keeping its user and host", () => {
    const text =
      'cannot reach the endpoint http://admin:hunter2pass@10.0.0.1:8080/api (ECONNREFUSED); also https://me@h/';

    expect(redact(text)).toBe(
      'cannot reach the endpoint http://admin:[REDACTED]@10.0.0.1:8080/api (ECONNREFUSED); also https://me@h/',
    );
  });
});

describe('redactValue and redactError', () => {
  it('redacts every string of a result, keys included, and keeps its shape', () => {
    const result = { failed: 1, failures: [{ message: `401 (${encodeEcho(token, 'lines')})`, code: 'X' }] };

    const out = redactValue(result);

    expect(out).toEqual({ failed: 1, failures: [{ message: `401 (${REDACTED})`, code: 'X' }] });
    expect(result.failures[0]!.message).not.toContain(REDACTED);
  });

  it('copies an error of its class with message, stack and cause chain redacted', () => {
    const root = new TypeError(`fetch said ${encodeEcho(token, 'base64-2')}`);
    const error = new Error(`wrapped ${encodeEcho(token, 'percent')}`, { cause: root });

    const out = redactError(error) as Error & { cause: Error };

    expect(out).toBeInstanceOf(Error);
    expect(out.cause).toBeInstanceOf(TypeError);
    expectNoEcho(
      {
        inspect: inspect(out, { depth: 8, showHidden: true }),
        stack: out.stack ?? '',
        causeStack: out.cause.stack ?? '',
        string: String(out),
        json: JSON.stringify(out),
      },
      pieces,
    );
    expect(out.message).toBe(`wrapped ${REDACTED}`);
  });

  it('a named error never holds the token, from the moment it is made', () => {
    const error = new CloudforetApiError({
      status: 401,
      path: '/x',
      retryable: false,
      message: `401 (${encodeEcho(token, 'json-unicode')})`,
    });

    expect(error).toBeInstanceOf(ExportError);
    expectNoEcho({ message: error.message, stack: error.stack ?? '', inspect: inspect(error) }, pieces);
  });
});
