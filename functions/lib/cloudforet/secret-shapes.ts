// The shapes people paste as a client_secret, beyond the token and the console's 'Download JSON':
// taken when they hold one token unambiguously (the console's YAML file, 'Bearer ', a token wrapped
// over lines), named when they cannot (a list, comments, a compressed file, an empty field).
import { SecretError } from '../errors.ts';

const WHAT_TO_STORE =
  "the Cloudforet app's client_secret alone, or the whole 'Download JSON' file from the Cloudforet console";
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The token in a text that is not JSON; the text itself when it holds none (the JWT check names it). */
export function tokenFromText(text: string, source: string): string {
  const yaml = yamlField(text);
  if (yaml !== undefined) return yaml;
  refuseComments(text, source);
  const bearer = /^Bearer\s+(\S[\s\S]*)$/i.exec(text)?.[1];
  const token = bearer ?? text;
  // A token the terminal or a mail wrapped: whitespace is never part of one.
  const joined = token.replace(/\s+/g, '');
  return JWT_SHAPE.test(joined) ? joined : token;
}

/** The client_secret field of the parsed JSON, or why there is none that is usable. */
export function clientSecretField(parsed: unknown, source: string): string {
  if (Array.isArray(parsed)) {
    throw new SecretError(
      'SECRET_JSON_NO_CLIENT_SECRET',
      `${source} holds a JSON array (${parsed.length} item(s)), not one app: store one app's 'Download JSON' object, or its client_secret alone`,
    );
  }
  const record =
    typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  if (record === undefined || !('client_secret' in record)) {
    throw new SecretError(
      'SECRET_JSON_NO_CLIENT_SECRET',
      `the JSON in ${source} has no client_secret field: paste the whole 'Download JSON' file ` +
        'from the Cloudforet console, or the client_secret alone',
    );
  }
  const secret = record['client_secret'];
  if (typeof secret === 'string' && secret.trim() !== '') return secret.trim();
  const what =
    secret === null
      ? 'null'
      : typeof secret === 'string'
        ? 'empty'
        : `a ${Array.isArray(secret) ? 'list' : typeof secret}, not text`;
  throw new SecretError(
    'SECRET_JSON_NO_CLIENT_SECRET',
    `the client_secret field in ${source} is ${what}: download the app's JSON again from the Cloudforet ` +
      'console (or create a new client secret for the app) and store it unedited',
  );
}

/** Refuses a compressed file by its first bytes: its text would only be called "not a JWT". */
export function refuseCompressed(bytes: Uint8Array, source: string): void {
  const kind =
    bytes[0] === 0x1f && bytes[1] === 0x8b
      ? 'gzip-compressed (gunzip it first)'
      : bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
        ? 'a zip archive (unzip it first)'
        : undefined;
  if (kind !== undefined) {
    throw new SecretError('SECRET_FILE_COMPRESSED', `${source} is ${kind}: store ${WHAT_TO_STORE} in it`);
  }
}

/** `client_secret: …` or `token: …` of a YAML file, quoted or not. */
function yamlField(text: string): string | undefined {
  if (!/^[A-Za-z_][\w-]*\s*:\s/m.test(text)) return undefined;
  const field = /^\s*(?:client_secret|token)\s*:\s*(['"]?)([A-Za-z0-9_.-]+)\1\s*$/m.exec(text);
  return field?.[2];
}

/** Why a text that starts like JSON does not parse, when it is a comment. */
export function refuseComments(text: string, source: string): void {
  const comment = /^\s*(\/\/|#)/m.exec(text)?.[1];
  if (comment === undefined) return;
  throw new SecretError(
    'SECRET_NOT_A_JWT',
    `${source} has a line starting with '${comment}', a comment: a secret holds no comments; store ${WHAT_TO_STORE}, unedited`,
  );
}
