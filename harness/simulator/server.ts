// The loopback HTTP server: reads a request, applies latency and any injected fault, asks the
// router for the answer and records what was answered.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { echoingFaultAnswer, type TakenFault } from './faults.ts';
import type { Answer, IncomingCall } from './routes.ts';

export interface RequestRecord {
  path: string;
  body: unknown;
  /** 0 when the connection was reset instead of answered. */
  status: number;
  /** cost/list: rows the database examined and the most a sort held for this answer. */
  examined?: number;
  sortHeld?: number;
}

export interface ServerHooks {
  route(call: IncomingCall): Answer;
  latencyMs(): number;
  /** `authorization` lets a server of several domains pick the domain the request is for. */
  takeFault(path: string, authorization: string | undefined): TakenFault | undefined;
  answered(record: RequestRecord, authorization: string | undefined): void;
}

export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(hooks: ServerHooks, port: number): Promise<RunningServer> {
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    serve(req, res, hooks, sleep).catch((error: unknown) => {
      if (!res.headersSent)
        send(
          res,
          500,
          'application/json',
          JSON.stringify({ detail: { code: 'ERROR_UNKNOWN', message: ` ${String(error)}` } }),
        );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${bound}`, close: () => closeServer(server, timers) };
}

function closeServer(server: Server, timers: Set<NodeJS.Timeout>): Promise<void> {
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): { body: unknown; parsed: boolean } {
  if (raw.trim() === '') return { body: undefined, parsed: false };
  try {
    return { body: JSON.parse(raw), parsed: true };
  } catch {
    return { body: raw, parsed: false };
  }
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  hooks: ServerHooks,
  sleep: (ms: number) => Promise<void>,
) {
  const raw = await readBody(req);
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const { body, parsed } = parseBody(raw);
  const record: RequestRecord = { path, body, status: 0 };
  const latency = hooks.latencyMs();
  if (latency > 0) await sleep(latency);
  const fault = hooks.takeFault(path, req.headers.authorization);
  if (fault?.kind === 'reset') {
    req.socket.destroy();
  } else {
    if (fault?.kind === 'slow') await sleep(fault.delayMs);
    const call = {
      method: req.method ?? 'GET',
      path,
      authorization: req.headers.authorization,
      body,
      parsed,
    };
    const out = fault ? echoingFaultAnswer(fault, req.headers.authorization) : undefined;
    const answer = out ?? { ...hooks.route(call), contentType: 'application/json' };
    if ('cost' in answer && answer.cost) Object.assign(record, answer.cost);
    // A proxy that gave up mid-body: the status line said 200, the JSON stops halfway.
    const truncated = fault?.kind === 'truncated';
    record.status = truncated ? 200 : answer.status;
    const text = truncated ? answer.body.slice(0, Math.floor(answer.body.length / 2)) : answer.body;
    send(res, record.status, answer.contentType, text, out?.headers);
  }
  hooks.answered(record, req.headers.authorization);
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}
