// Well-formed but unsigned Cloudforet client_secrets (RS256-shaped JWTs) and console app records.

import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestClaims {
  did: string;
  wid: string;
  rol: string;
  /** Seconds since the epoch. */
  exp: number;
  ver: string;
}

const DAY_SECONDS = 86_400;

/** Claims set to undefined are left out of the payload. The signature is random bytes. */
export function makeTestToken(claims: Partial<TestClaims> = {}): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = {
    iss: 'spaceone.identity',
    typ: 'CLIENT_SECRET',
    own: 'APP',
    did: 'domain-5d1e7c8a9b2f',
    aud: 'app-3f2a9c1b7d4e',
    jti: randomBytes(16).toString('hex'),
    iat,
    ver: '2.0',
    exp: iat + 180 * DAY_SECONDS,
    rol: 'WORKSPACE_OWNER',
    wid: 'workspace-8c4b2a1f6e3d',
    ...claims,
  };
  return [
    segment({ alg: 'RS256', typ: 'JWT' }),
    segment(payload),
    randomBytes(256).toString('base64url'),
  ].join('.');
}

/** The app record as the Cloudforet console's "Download JSON" saves it, for this token. */
export function consoleAppJson(token: string): string {
  const claims = decodePayload(token);
  const record = {
    app_id: claims['aud'] ?? 'app-3f2a9c1b7d4e',
    name: 'athena-export',
    state: 'ENABLED',
    role_type: claims['rol'] ?? 'WORKSPACE_OWNER',
    role_id: 'managed-workspace-owner',
    client_id: 'client-b7e0d2c4a9f1',
    client_secret: token,
    tags: {},
    resource_group: claims['wid'] === '*' ? 'DOMAIN' : 'WORKSPACE',
    workspace_id: claims['wid'] ?? '*',
    domain_id: claims['did'],
    created_at: new Date(Number(claims['iat'] ?? 0) * 1000).toISOString(),
    last_accessed_at: null,
    expired_at: new Date(Number(claims['exp'] ?? 0) * 1000).toISOString(),
  };
  return `${JSON.stringify(record, null, 4)}\n`;
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

/** A temporary folder holding `app.json`, a console app record of `token`: what the CLI reads. */
export async function appFolder(prefix: string, token: string): Promise<{ dir: string; secretFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const secretFile = join(dir, 'app.json');
  await writeFile(secretFile, consoleAppJson(token));
  return { dir, secretFile };
}
