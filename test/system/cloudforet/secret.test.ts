import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fileSecretSource,
  parseCredential,
  secretsManagerSource,
} from '../../../functions/lib/cloudforet/secret.ts';
import { SecretError } from '../../../functions/lib/errors.ts';
import { type SecretsManagerResponder, startSecretsManager } from '../../../harness/secrets-manager.ts';
import { consoleAppJson, makeTestToken } from '../../../harness/tokens.ts';
import { expectNoSecret } from '../../support/log-capture.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const DAY_S = 86_400;
const TOKEN = makeTestToken({
  did: 'domain-abc',
  wid: 'workspace-xyz',
  rol: 'WORKSPACE_OWNER',
  exp: NOW_S + DAY_S,
});

async function failure(act: () => unknown): Promise<SecretError> {
  try {
    await act();
  } catch (error) {
    if (error instanceof SecretError) return error;
    throw error;
  }
  throw new Error('expected a SecretError, but nothing was thrown');
}

describe('parseCredential', () => {
  it('reads domain, workspace, role and expiry from a bare token', () => {
    const credential = parseCredential(TOKEN, "secret 'app'", NOW);

    expect(credential).toEqual({
      token: TOKEN,
      domainId: 'domain-abc',
      workspaceId: 'workspace-xyz',
      role: 'WORKSPACE_OWNER',
      expiresAt: new Date('2026-06-02T00:00:00Z'),
      source: "secret 'app'",
    });
  });

  it('trims whitespace and newlines around a pasted token', () => {
    const credential = parseCredential(`  ${TOKEN}\r\n\n`, "secret 'app'", NOW);

    expect(credential.token).toBe(TOKEN);
  });

  it("takes client_secret from the console's Download JSON app record", () => {
    const credential = parseCredential(consoleAppJson(TOKEN), "secret 'app'", NOW);

    expect(credential.token).toBe(TOKEN);
    expect(credential.workspaceId).toBe('workspace-xyz');
  });

  it("reads workspace '*' and DOMAIN_ADMIN from a domain app's token", () => {
    const token = makeTestToken({ wid: '*', rol: 'DOMAIN_ADMIN', exp: NOW_S + DAY_S });

    const credential = parseCredential(token, "secret 'app'", NOW);

    expect(credential.workspaceId).toBe('*');
    expect(credential.role).toBe('DOMAIN_ADMIN');
  });

  it('rejects JSON without client_secret and says what to paste', async () => {
    const raw = JSON.stringify({ app_id: 'app-1', client_id: 'client-1' });

    const error = await failure(() => parseCredential(raw, "file 'x'", NOW));

    expect(error.code).toBe('SECRET_JSON_NO_CLIENT_SECRET');
    expect(error.message).toBe(
      "the JSON in file 'x' has no client_secret field: paste the whole 'Download JSON' file " +
        'from the Cloudforet console, or the client_secret alone',
    );
  });

  it('rejects an empty value', async () => {
    const error = await failure(() => parseCredential(' \n', "secret 'app'", NOW));

    expect(error.code).toBe('SECRET_EMPTY');
    expect(error.message).toContain("secret 'app' is empty");
  });

  it('rejects a value that is not a JWT without echoing it', async () => {
    const raw = 'hunter2-not-a-token';

    const error = await failure(() => parseCredential(raw, "secret 'app'", NOW));

    expect(error.code).toBe('SECRET_NOT_A_JWT');
    expect(error.message).toContain('expected a JWT');
    expect(error.message).not.toContain(raw);
  });

  it('rejects broken JSON without quoting it', async () => {
    const raw = `{"client_secret": "${TOKEN}"`;

    const error = await failure(() => parseCredential(raw, "secret 'app'", NOW));

    expect(error.code).toBe('SECRET_INVALID_JSON');
    expect(error.cause).toBeUndefined();
    expectNoSecret([error.message], TOKEN);
  });

  it('rejects an expired token, saying when and what to do, without the token', async () => {
    const token = makeTestToken({ exp: NOW_S - 3 * DAY_S });

    const error = await failure(() => parseCredential(consoleAppJson(token), "secret 'app'", NOW));

    expect(error.code).toBe('SECRET_EXPIRED');
    expect(error.message).toContain('expired at 2026-05-29T00:00:00.000Z (3 day(s) ago)');
    expect(error.message).toContain('create a new app or a new client secret');
    expect(error.message).toContain("update secret 'app'");
    expectNoSecret([error.message], token);
  });

  it('rejects a JWT that lacks Cloudforet claims, naming them', async () => {
    const token = makeTestToken({ did: undefined, exp: undefined });

    const error = await failure(() => parseCredential(token, "secret 'app'", NOW));

    expect(error.code).toBe('SECRET_MISSING_CLAIMS');
    expect(error.message).toContain('lacks the claim(s) did, exp');
    expectNoSecret([error.message], token);
  });
});

describe('fileSecretSource', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'secret-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the credential from a Download JSON file', async () => {
    const token = makeTestToken();
    const path = join(dir, 'app.json');
    await writeFile(path, consoleAppJson(token));

    const credential = await fileSecretSource(path).load();

    expect(credential.token).toBe(token);
    expect(credential.source).toBe(`file '${path}'`);
  });

  it('names the path when the file is missing', async () => {
    const path = join(dir, 'missing.json');

    const error = await failure(() => fileSecretSource(path).load());

    expect(error.code).toBe('SECRET_FILE_UNREADABLE');
    expect(error.message).toContain(`file '${path}' (ENOENT)`);
  });

  it('takes a UTF-8 file that starts with a byte-order mark', async () => {
    const token = makeTestToken();
    const path = join(dir, 'bom.json');
    await writeFile(path, `\uFEFF${consoleAppJson(token)}`);

    const credential = await fileSecretSource(path).load();

    expect(credential.token).toBe(token);
  });

  it.each([
    ['UTF-16 little-endian with a byte-order mark', (t: string) => Buffer.from(`\uFEFF${t}`, 'utf16le')],
    ['UTF-16 little-endian', (t: string) => Buffer.from(t, 'utf16le')],
    [
      'UTF-16 big-endian with a byte-order mark',
      (t: string) => Buffer.from(`\uFEFF${t}`, 'utf16le').swap16(),
    ],
  ])('names a file saved as %s, without the token', async (encoding, encode) => {
    const token = makeTestToken();
    const path = join(dir, 'utf16.json');
    await writeFile(path, encode(consoleAppJson(token)));

    const error = await failure(() => fileSecretSource(path).load());

    expect(error.code).toBe('SECRET_FILE_ENCODING');
    expect(error.message).toContain(`file '${path}' is ${encoding}, not UTF-8: save it as UTF-8`);
    expectNoSecret([error.message], token);
  });
});

describe('secretsManagerSource', () => {
  const token = makeTestToken({ wid: 'workspace-sm' });
  let responder: SecretsManagerResponder;
  let client: SecretsManagerClient;
  beforeAll(async () => {
    responder = await startSecretsManager({});
    client = smClient(responder.endpoint);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  afterAll(async () => {
    client.destroy();
    await responder.stop();
  });

  function smClient(endpoint?: string): SecretsManagerClient {
    return new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      ...(endpoint ? { endpoint } : {}),
    });
  }

  it('fetches and parses the secret with the real SDK', async () => {
    responder.set('cloudforet/ok', consoleAppJson(token));

    const credential = await secretsManagerSource({ client, secretId: 'cloudforet/ok' }).load();

    expect(credential.token).toBe(token);
    expect(credential.workspaceId).toBe('workspace-sm');
    expect(credential.source).toBe("secret 'cloudforet/ok'");
  });

  it('finds the responder through AWS_ENDPOINT_URL_SECRETS_MANAGER', async () => {
    responder.set('cloudforet/env', token);
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', responder.endpoint);
    const envClient = smClient();

    const credential = await secretsManagerSource({ client: envClient, secretId: 'cloudforet/env' }).load();

    expect(credential.token).toBe(token);
    envClient.destroy();
  });

  it('answers from its cache within the TTL', async () => {
    responder.set('cloudforet/cached', token);
    const source = secretsManagerSource({ client, secretId: 'cloudforet/cached', ttlMs: 60_000 });
    const before = responder.calls;

    await source.load();
    await source.load();

    expect(responder.calls - before).toBe(1);
  });

  it('fetches again once the TTL has passed', async () => {
    responder.set('cloudforet/ttl', token);
    let clock = Date.now();
    const source = secretsManagerSource({
      client,
      secretId: 'cloudforet/ttl',
      ttlMs: 60_000,
      now: () => clock,
    });
    await source.load();
    const rotated = makeTestToken();
    responder.set('cloudforet/ttl', rotated);
    const before = responder.calls;

    clock += 60_001;
    const credential = await source.load();

    expect(responder.calls - before).toBe(1);
    expect(credential.token).toBe(rotated);
  });

  it('fetches again when the cached token has expired, even within the TTL', async () => {
    const shortLived = makeTestToken({ exp: Math.floor(Date.now() / 1000) + 10 });
    responder.set('cloudforet/short', shortLived);
    let clock = Date.now();
    const source = secretsManagerSource({ client, secretId: 'cloudforet/short', now: () => clock });
    await source.load();
    const before = responder.calls;

    clock += 20_000;
    const error = await failure(() => source.load());

    expect(responder.calls - before).toBe(1);
    expect(error.code).toBe('SECRET_EXPIRED');
  });

  it('reports a missing secret with its id and what to do', async () => {
    const error = await failure(() => secretsManagerSource({ client, secretId: 'cloudforet/nope' }).load());

    expect(error.code).toBe('SECRET_FETCH_FAILED');
    expect(error.message).toContain(
      "secret 'cloudforet/nope' does not exist in this account/region (us-east-1)",
    );
    expect(error.message).toContain('ResourceNotFoundException');
    expect(error.message).toContain('set CLOUDFORET_SECRET_ID');
  });

  it("reports denied access as the function role's missing permission", async () => {
    responder.set('cloudforet/denied', token);
    responder.denyAccess('cloudforet/denied');

    const error = await failure(() => secretsManagerSource({ client, secretId: 'cloudforet/denied' }).load());

    expect(error.code).toBe('SECRET_FETCH_FAILED');
    expect(error.message).toContain('AccessDeniedException');
    expect(error.message).toContain("the function's role lacks secretsmanager:GetSecretValue");
  });

  it('rejects an expired token stored in the secret, without the token', async () => {
    const expired = makeTestToken({ exp: Math.floor(Date.now() / 1000) - DAY_S });
    responder.set('cloudforet/expired', consoleAppJson(expired));

    const error = await failure(() =>
      secretsManagerSource({ client, secretId: 'cloudforet/expired' }).load(),
    );

    expect(error.code).toBe('SECRET_EXPIRED');
    expect(error.message).toContain("update secret 'cloudforet/expired'");
    expectNoSecret([error.message, String(error.stack)], expired);
  });
});
