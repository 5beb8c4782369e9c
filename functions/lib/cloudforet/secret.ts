// The Cloudforet app client_secret: a bearer JWT, read from a file or Secrets Manager.
// Claims are decoded, never verified (Cloudforet verifies); no message ever carries the token.

import { open } from 'node:fs/promises';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretError } from '../errors.ts';
import { registerSecret } from '../redact/redact.ts';
import { clientSecretField, refuseComments, refuseCompressed, tokenFromText } from './secret-shapes.ts';

export interface CloudforetCredential {
  readonly token: string;
  readonly domainId: string;
  /** '*' for a domain app. */
  readonly workspaceId: string;
  readonly role: string;
  readonly expiresAt: Date;
  /** Where the token came from, for error messages ("secret 'x'", "file '/p'"); never the token. */
  readonly source: string;
}

export interface SecretSource {
  load(): Promise<CloudforetCredential>;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const WHAT_TO_STORE =
  "the Cloudforet app's client_secret alone, or the whole 'Download JSON' file from the Cloudforet console";

export function parseCredential(raw: string, source: string, now: Date = new Date()): CloudforetCredential {
  const token = extractToken(raw.trim(), source);
  // Known to the redactor before anything can fail or print: even a malformed token is never quoted.
  registerSecret(token);
  const claims = decodeClaims(token, source);
  const expiresAt = new Date(claims.exp * 1000);
  if (expiresAt.getTime() <= now.getTime()) {
    const days = Math.floor((now.getTime() - expiresAt.getTime()) / 86_400_000);
    throw new SecretError(
      'SECRET_EXPIRED',
      `the Cloudforet client_secret in ${source} expired at ${expiresAt.toISOString()} (${days} day(s) ago): ` +
        `create a new app or a new client secret for the app in the Cloudforet console and update ${source}`,
    );
  }
  return { token, domainId: claims.did, workspaceId: claims.wid, role: claims.rol, expiresAt, source };
}

function extractToken(text: string, source: string): string {
  if (text === '') {
    throw new SecretError('SECRET_EMPTY', `${source} is empty: store ${WHAT_TO_STORE} in it`);
  }
  if (!/^[{["]/.test(text)) return tokenFromText(text, source);
  const parsed = parseJson(text, source);
  if (typeof parsed === 'string') return parsed.trim();
  return clientSecretField(parsed, source);
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    refuseComments(text, source);
    // The SyntaxError quotes the input, so it is neither shown nor kept as the cause.
    throw new SecretError(
      'SECRET_INVALID_JSON',
      `${source} starts like JSON but does not parse: store ${WHAT_TO_STORE}, unedited`,
    );
  }
}

interface Claims {
  did: string;
  wid: string;
  rol: string;
  exp: number;
}

function decodeClaims(token: string, source: string): Claims {
  const payload = JWT_SHAPE.test(token) ? decodePayload(token.split('.')[1]!) : undefined;
  if (payload === undefined) {
    const parts = token.split('.').length;
    throw new SecretError(
      'SECRET_NOT_A_JWT',
      `${source} does not hold a Cloudforet client_secret: expected a JWT (three base64url parts ` +
        `separated by dots) but found ${token.length} characters in ${parts} part(s); store ${WHAT_TO_STORE}`,
    );
  }
  const { did, rol, exp } = payload;
  // Cloudforet omits wid when the app has no workspace, i.e. a domain app.
  const wid = payload['wid'] ?? (rol === 'DOMAIN_ADMIN' ? '*' : undefined);
  const missing = [
    ['did', nonEmptyString(did)],
    ['wid', nonEmptyString(wid)],
    ['rol', nonEmptyString(rol)],
    ['exp', typeof exp === 'number' && Number.isFinite(exp)],
  ]
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  if (missing.length > 0) {
    throw new SecretError(
      'SECRET_MISSING_CLAIMS',
      `the token in ${source} lacks the claim(s) ${missing.join(', ')}: it is not a Cloudforet app ` +
        `client_secret (those carry did, wid, rol and exp); store ${WHAT_TO_STORE}`,
    );
  }
  return { did: did as string, wid: wid as string, rol: rol as string, exp: exp as number };
}

function decodePayload(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** Reads the file on every load: meant for local runs, where the file may be edited between runs. */
export function fileSecretSource(path: string): SecretSource {
  const source = `file '${path}'`;
  return {
    async load() {
      let raw: string;
      try {
        raw = textOf(await readBounded(path, source), source);
      } catch (error) {
        if (error instanceof SecretError) throw error;
        const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
        throw new SecretError(
          'SECRET_FILE_UNREADABLE',
          `cannot read the Cloudforet client_secret from ${source} (${code}): check the path and its ` +
            `permissions, and store ${WHAT_TO_STORE} in it`,
          { cause: error },
        );
      }
      return parseCredential(raw, source);
    },
  };
}

/** A client_secret is about 1 KiB, the console's app file about 2 KiB: far more is not one. */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;

/**
 * At most SECRET_FILE_MAX_BYTES of the file: a device such as /dev/zero never ends, and a read
 * of it whole would grow without bound. A pipe (`--secret-file <(…)`) still works.
 */
async function readBounded(path: string, source: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SECRET_FILE_MAX_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) return buffer.subarray(0, length);
      length += bytesRead;
    }
  } finally {
    await file.close();
  }
  throw new SecretError(
    'SECRET_FILE_TOO_LARGE',
    `${source} is longer than ${SECRET_FILE_MAX_BYTES / 1024} KiB (a device or the wrong file?): store ${WHAT_TO_STORE} in it`,
  );
}

/**
 * The file as UTF-8 text (a UTF-8 byte-order mark is dropped). UTF-16, as Windows editors and
 * PowerShell's `>` save, is named as such rather than reported as a token that is not a JWT.
 */
function textOf(bytes: Buffer, source: string): string {
  refuseCompressed(bytes, source);
  const utf16 =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'UTF-16 little-endian with a byte-order mark'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'UTF-16 big-endian with a byte-order mark'
        : bytes.length >= 4 && bytes[1] === 0 && bytes[3] === 0
          ? 'UTF-16 little-endian'
          : bytes.length >= 4 && bytes[0] === 0 && bytes[2] === 0
            ? 'UTF-16 big-endian'
            : undefined;
  if (utf16 !== undefined) {
    throw new SecretError(
      'SECRET_FILE_ENCODING',
      `${source} is ${utf16}, not UTF-8: save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8, or ` +
        `PowerShell's Set-Content -Encoding utf8) and store ${WHAT_TO_STORE} in it`,
    );
  }
  const text = bytes.toString('utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

export interface SecretsManagerSourceOptions {
  client: SecretsManagerClient;
  secretId: string;
  /** How long a fetched credential is reused. Default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
}

/**
 * The cache lives in the returned source (per instance): keep the source in module scope of the
 * Lambda handler and warm invocations reuse it. A cached token that has expired is fetched again,
 * and concurrent loads share one request. Failures are not cached.
 */
export function secretsManagerSource(opts: SecretsManagerSourceOptions): SecretSource {
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const now = opts.now ?? Date.now;
  const source = `secret '${opts.secretId}'`;
  let cached: { credential: CloudforetCredential; fetchedAt: number } | undefined;
  let inFlight: Promise<CloudforetCredential> | undefined;

  const fetchCredential = async (): Promise<CloudforetCredential> => {
    const raw = await getSecretString(opts.client, opts.secretId, source);
    const fetchedAt = now();
    const credential = parseCredential(raw, source, new Date(fetchedAt));
    cached = { credential, fetchedAt };
    return credential;
  };

  return {
    load() {
      const at = now();
      if (cached && at - cached.fetchedAt < ttlMs && cached.credential.expiresAt.getTime() > at) {
        return Promise.resolve(cached.credential);
      }
      inFlight ??= fetchCredential().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

async function getSecretString(
  client: SecretsManagerClient,
  secretId: string,
  source: string,
): Promise<string> {
  let answer: { SecretString?: string | undefined };
  try {
    answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  } catch (error) {
    if (hasNoValueYet(error)) {
      throw new SecretError(
        'SECRET_EMPTY',
        `${source} exists but has no value yet: put ${WHAT_TO_STORE} into it, e.g. ` +
          `aws secretsmanager put-secret-value --secret-id ${secretId} --secret-string file://app.json`,
        { cause: error },
      );
    }
    throw new SecretError('SECRET_FETCH_FAILED', await fetchFailureMessage(client, secretId, error), {
      cause: error,
    });
  }
  if (answer.SecretString === undefined) {
    throw new SecretError(
      'SECRET_EMPTY',
      `${source} has no text value (SecretString; binary secrets are not read): store ${WHAT_TO_STORE} as its text value`,
    );
  }
  return answer.SecretString;
}

/** The stack creates its secret without a value; GetSecretValue then says no AWSCURRENT version. */
function hasNoValueYet(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ResourceNotFoundException' &&
    /secret value for (staging label|version)/i.test(error.message)
  );
}

async function fetchFailureMessage(
  client: SecretsManagerClient,
  secretId: string,
  error: unknown,
): Promise<string> {
  const name = error instanceof Error ? error.name : 'Error';
  const head = `cannot read secret '${secretId}' from Secrets Manager (${name})`;
  switch (name) {
    case 'ResourceNotFoundException': {
      const region = await client.config.region().catch(() => 'this region');
      return `${head}: secret '${secretId}' does not exist in this account/region (${region}): create it or set CLOUDFORET_SECRET_ID`;
    }
    case 'AccessDeniedException':
      return `${head}: the function's role lacks secretsmanager:GetSecretValue on secret '${secretId}': grant it in the role's policy`;
    case 'TimeoutError': {
      const region = await client.config.region().catch(() => 'no region');
      return `${head}: Secrets Manager (${region}) answered nothing in time, every attempt timed out: check the network path to it (a VPC endpoint, a proxy, AWS_ENDPOINT_URL_SECRETS_MANAGER) and the region`;
    }
    case 'DecryptionFailure':
      return `${head}: the function's role cannot decrypt it: grant kms:Decrypt on the secret's KMS key`;
    default:
      if (error instanceof Error && /Region is missing/i.test(error.message))
        return `${head}: no AWS region is set: set AWS_REGION to the secret's region (e.g. AWS_REGION=us-east-1), or a region in the AWS profile`;
      return `${head}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
