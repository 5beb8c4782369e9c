// A loopback Secrets Manager responder for the real SDK: the JSON 1.1 protocol, GetSecretValue only.
// Point a client at it with `endpoint` or with AWS_ENDPOINT_URL_SECRETS_MANAGER.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsManagerResponder {
  readonly endpoint: string;
  /** GetSecretValue requests answered so far, found or not. */
  readonly calls: number;
  set(id: string, value: string): void;
  remove(id: string): void;
  /** A secret that exists with no value yet, as CloudFormation creates the stack's own one. */
  createEmpty(id: string): void;
  /** Answer AccessDeniedException for this secret id from now on. */
  denyAccess(id: string): void;
  stop(): Promise<void>;
}

const ACCOUNT_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret';
const ROLE_ARN = 'arn:aws:sts::123456789012:assumed-role/export-role/export-function';

export async function startSecretsManager(secrets: Record<string, string>): Promise<SecretsManagerResponder> {
  const values = new Map(Object.entries(secrets));
  const denied = new Set<string>();
  const empty = new Set<string>();
  let calls = 0;

  const getSecretValue = (secretId: string, res: ServerResponse) => {
    calls += 1;
    const name = secretId.startsWith(`${ACCOUNT_ARN}:`) ? nameFromArn(secretId) : secretId;
    if (denied.has(name)) {
      const message = `User: ${ROLE_ARN} is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secretId} because no identity-based policy allows the secretsmanager:GetSecretValue action`;
      return answer(res, 400, { __type: 'AccessDeniedException', message });
    }
    const value = values.get(name);
    if (value === undefined && empty.has(name)) {
      return answer(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
      });
    }
    if (value === undefined) {
      return answer(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
    }
    return answer(res, 200, {
      ARN: `${ACCOUNT_ARN}:${name}-AbCdEf`,
      Name: name,
      SecretString: value,
      VersionId: randomUUID(),
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Math.floor(Date.now() / 1000),
    });
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const target = req.headers['x-amz-target'];
    if (req.method !== 'POST' || target !== 'secretsmanager.GetSecretValue') {
      return answer(res, 400, { __type: 'UnknownOperationException', message: `unsupported: ${target}` });
    }
    const secretId = parseSecretId(body);
    if (typeof secretId !== 'string') {
      return answer(res, 400, { __type: 'InvalidParameterException', message: 'SecretId is required' });
    }
    return getSecretValue(secretId, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    set: (id, value) => {
      values.set(id, value);
    },
    remove: (id) => {
      values.delete(id);
    },
    createEmpty: (id) => {
      values.delete(id);
      empty.add(id);
    },
    denyAccess: (id) => {
      denied.add(id);
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function nameFromArn(arn: string): string {
  return arn.slice(ACCOUNT_ARN.length + 1).replace(/-[A-Za-z0-9]{6}$/, '');
}

function parseSecretId(body: string): unknown {
  try {
    return (JSON.parse(body) as { SecretId?: unknown }).SecretId;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}
