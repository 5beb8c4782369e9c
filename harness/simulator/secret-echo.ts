// How a broken gateway or a careless service may echo the bearer token in an error body: the
// encodings the red team tried. A fault with `echo` puts the request's own token, so encoded, in
// the answer's detail message (faults.ts), so tests can prove no output carries it back.

export const ECHO_ENCODINGS = [
  'raw',
  'base64-0',
  'base64-1',
  'base64-2',
  'base64url-0',
  'base64url-1',
  'base64url-2',
  'mime-base64',
  'percent',
  'percent-base64',
  'form',
  'json-unicode',
  'json-slash',
  'lines',
  'whitespace',
] as const;

export type EchoEncoding = (typeof ECHO_ENCODINGS)[number];

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The token as the echo carries it; base64-N embeds it N bytes into the encoded stream. */
export function encodeEcho(token: string, encoding: EchoEncoding): string {
  const offset = Number(encoding.at(-1));
  switch (encoding) {
    case 'raw':
      return token;
    case 'base64-0':
    case 'base64-1':
    case 'base64-2':
      return base64(`${'x'.repeat(offset)}${token}}`);
    case 'base64url-0':
    case 'base64url-1':
    case 'base64url-2':
      return Buffer.from(`${'x'.repeat(offset)}${token}}`, 'utf8').toString('base64url');
    case 'mime-base64':
      return (base64(token).match(/.{1,76}/g) ?? []).join('\r\n');
    case 'percent':
      return [...Buffer.from(token, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    case 'percent-base64':
      return encodeURIComponent(base64(token));
    case 'form':
      return `${token.slice(0, 30)}+${token.slice(30, 90)}+${token.slice(90)}`;
    case 'json-unicode':
      return [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    case 'json-slash':
      return base64(token).replaceAll('/', '\\/');
    case 'lines':
      return (token.match(/.{1,40}/g) ?? []).join('\n');
    case 'whitespace':
      return `${token.slice(0, 25)} ${token.slice(25, 70)}\t${token.slice(70, 120)}\r\n  ${token.slice(120)}`;
  }
}
