// Client secrets as Cloudforet issues them: RS256 JWTs signed by a key pair made at start.
// Verification is cached per token because a benchmark sends the same one thousands of times.

import { createSign, createVerify, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { authenticateFailure, notFound } from './api-error.ts';

export type Role = 'DOMAIN_ADMIN' | 'WORKSPACE_OWNER' | 'WORKSPACE_MEMBER';
const ROLES: readonly string[] = ['DOMAIN_ADMIN', 'WORKSPACE_OWNER', 'WORKSPACE_MEMBER'];

export interface Claims {
  readonly did: string;
  readonly wid: string;
  readonly rol: Role;
  readonly exp: number;
}

export interface TokenRequest {
  role?: Role;
  workspaceId?: string;
  expiresInSeconds?: number;
  badSignature?: boolean;
}

const YEAR_SECONDS = 365 * 86_400;
const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

export class TokenIssuer {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly verified = new Map<string, Claims>();

  constructor(private readonly domainId: string) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  issue(request: TokenRequest = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const role = request.role ?? 'DOMAIN_ADMIN';
    const payload = {
      iss: 'spaceone.identity',
      typ: 'CLIENT_SECRET',
      own: 'APP',
      did: this.domainId,
      wid: role === 'DOMAIN_ADMIN' ? (request.workspaceId ?? '*') : (request.workspaceId ?? ''),
      rol: role,
      aud: `app-${randomUUID().replace(/-/g, '').slice(0, 12)}`,
      iat: now,
      exp: now + (request.expiresInSeconds ?? YEAR_SECONDS),
      jti: randomUUID().replace(/-/g, ''),
      ver: '2.0',
    };
    const signingInput = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`;
    const signature = createSign('RSA-SHA256').update(signingInput).sign(this.privateKey);
    // A flipped byte keeps the token well-formed, so only the signature check can catch it.
    if (request.badSignature) signature[10] = (signature[10] ?? 0) ^ 0xff;
    return `${signingInput}.${base64url(signature)}`;
  }

  /** The claims of a valid bearer token from an Authorization header, or a 401. */
  authenticate(header: string | undefined): Claims {
    const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (!token) throw authenticateFailure('Token is missing.');
    const claims = this.verified.get(token) ?? this.verify(token);
    if (claims.exp * 1000 <= Date.now()) throw authenticateFailure('Token is expired.');
    return claims;
  }

  private verify(token: string): Claims {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || signature === undefined || token.split('.').length !== 3) {
      throw authenticateFailure('Token is malformed.');
    }
    // As python-core's authentication handler: the key of the domain the token names is looked up
    // first (identity's DomainSecret); a domain this endpoint lacks is that lookup's ERROR_NOT_FOUND.
    const did = tokenDomain(`Bearer ${token}`);
    if (did !== undefined && did !== this.domainId) throw notFound('domain_id', did);
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(this.publicKey, Buffer.from(signature, 'base64url'));
    if (!valid) throw authenticateFailure('Token signature is invalid.');
    const claims = parseClaims(payload);
    if (claims.did !== this.domainId) throw authenticateFailure('empty domain_id provided.');
    this.verified.set(token, claims);
    return claims;
  }
}

/** The domain a bearer token names (its `did`), unverified: which domain's key should verify it. */
export function tokenDomain(header: string | undefined): string | undefined {
  const payload = /^Bearer\s+[^.\s]+\.([^.\s]+)\.\S*$/i.exec(header ?? '')?.[1];
  if (!payload) return undefined;
  try {
    const { did } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { did?: unknown };
    return typeof did === 'string' ? did : undefined;
  } catch {
    return undefined;
  }
}

function parseClaims(payload: string): Claims {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw authenticateFailure('Token payload is not JSON.');
  }
  const { did, wid, rol, exp, ver } = parsed;
  if (typeof did !== 'string' || typeof wid !== 'string' || typeof exp !== 'number' || ver !== '2.0') {
    throw authenticateFailure('Token claims are invalid.');
  }
  if (typeof rol !== 'string' || !ROLES.includes(rol)) throw authenticateFailure('Token role is invalid.');
  return { did, wid, rol: rol as Role, exp };
}
