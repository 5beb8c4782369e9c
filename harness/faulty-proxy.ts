// A loopback HTTP proxy in front of a server (s3rver here) that can be told to fail: reset the
// connection, answer 500, or hold the request unanswered (a stalled upload), once N requests or N
// body bytes of matching requests have passed.
// It records every request, so a test can prove what the client SENT (e.g. AbortMultipartUpload).
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  /** Path without the query, e.g. /bucket/prefix/costs/billed_date=2026-10-01/ds-1.parquet */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Request body bytes that reached the upstream. */
  bytes: number;
  /** Upstream status, 500 for an injected answer, 0 for a reset. */
  status: number;
}

export type ProxyFault = 'reset' | '500' | 'hold';

/** What a fault rule can see of a request before its body. */
export type RequestLine = Pick<ProxiedRequest, 'method' | 'path' | 'query'>;

export interface FaultRule {
  readonly kind: ProxyFault;
  readonly match: (req: RequestLine) => boolean;
  /** Matching requests let through untouched before the fault arms. */
  readonly afterRequests?: number;
  /** Body bytes of matching requests let through (cumulative) before the fault fires. */
  readonly afterBytes?: number;
}

export interface FaultyProxy {
  readonly endpoint: string;
  readonly requests: ProxiedRequest[];
  /** From now on, fail requests as the rule says (until clear()). */
  failWhen(rule: FaultRule): void;
  /** How many requests the current rule has failed. */
  readonly faultsInjected: number;
  clear(): void;
  close(): Promise<void>;
}

const INTERNAL_ERROR =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>' +
  '<Message>We encountered an internal error. Please try again.</Message></Error>';

export async function startFaultyProxy(upstreamPort: number): Promise<FaultyProxy> {
  const requests: ProxiedRequest[] = [];
  let rule: (FaultRule & { seen: number; bytes: number }) | undefined;
  let injected = 0;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const record: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      bytes: 0,
      status: 0,
    };
    requests.push(record);
    const armed = rule?.match(record) && rule.seen++ >= (rule.afterRequests ?? 0) ? rule : undefined;
    forward(req, res, record, upstreamPort, (chunk) => {
      if (!armed) return false;
      armed.bytes += chunk;
      const limit = armed.afterBytes ?? 0;
      if (limit > 0 && armed.bytes <= limit) return false;
      injected++;
      return armed.kind;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    failWhen: (r) => {
      rule = { ...r, seen: 0, bytes: 0 };
      injected = 0;
    },
    get faultsInjected() {
      return injected;
    },
    clear: () => {
      rule = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Streams one request upstream; `check(n)` is asked before each body chunk of n bytes (and with 0 at the start). */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  record: ProxiedRequest,
  upstreamPort: number,
  check: (bytes: number) => ProxyFault | false,
): void {
  const headers = { ...req.headers };
  delete headers.expect; // Node answered 100-continue already; `expect` is never a signed header
  const upstream = request({
    host: '127.0.0.1',
    port: upstreamPort,
    method: req.method,
    path: req.url,
    headers,
  });
  let failed = false;
  const fail = (kind: ProxyFault) => {
    failed = true;
    upstream.destroy();
    if (kind === 'hold') {
      // Takes the body and never answers: the client waits until it aborts or the proxy closes.
      req.resume();
      return;
    }
    if (kind === 'reset') {
      record.status = 0;
      req.socket.destroy();
      return;
    }
    record.status = 500;
    req.resume();
    req.once('end', () => {
      res.writeHead(500, {
        'content-type': 'application/xml',
        'content-length': Buffer.byteLength(INTERNAL_ERROR),
      });
      res.end(INTERNAL_ERROR);
    });
  };
  upstream.on('response', (answer) => {
    if (failed) return answer.resume();
    record.status = answer.statusCode ?? 0;
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!failed) req.socket.destroy();
  });
  upstream.on('drain', () => req.resume());
  const first = check(0);
  if (first) {
    fail(first);
    return;
  }
  req.on('data', (chunk: Buffer) => {
    if (failed) return;
    const kind = check(chunk.length);
    if (kind) {
      fail(kind);
      return;
    }
    record.bytes += chunk.length;
    if (!upstream.write(chunk)) req.pause();
  });
  req.on('end', () => {
    if (!failed) upstream.end();
  });
}

/** The multipart requests of one key, as S3's REST API spells them. */
export const s3Requests = {
  create: (r: RequestLine) => r.method === 'POST' && r.query.has('uploads'),
  part: (r: RequestLine) => r.method === 'PUT' && r.query.has('partNumber') && r.query.has('uploadId'),
  complete: (r: RequestLine) => r.method === 'POST' && r.query.has('uploadId'),
  abort: (r: RequestLine) => r.method === 'DELETE' && r.query.has('uploadId'),
  put: (r: RequestLine) => r.method === 'PUT' && !r.query.has('uploadId'),
};
