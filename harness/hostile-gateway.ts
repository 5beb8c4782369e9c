// A loopback gateway in front of the simulator that reads each request's JSON body and may answer
// for the API itself (`{}` for one page of a listing, an HTML 200, a 429) or cut the API's answer
// short: the answers a broken gateway or cache gives, chosen per request by what it asked, which
// the simulator's path-only faults cannot aim. Everything else is forwarded as it came. The
// adversary's gateway (adversary/gateway.ts) arms its rules through this one.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayRequest {
  readonly path: string;
  /** The request's body, parsed; undefined when it is not JSON. */
  readonly body: Record<string, unknown> | undefined;
}

/** An answer of the gateway's own. */
export interface OwnAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

/**
 * What to answer instead of the API: a string is the body of a JSON 200; 'truncate' forwards the
 * request and sends the first half of the API's answer; undefined forwards the request.
 */
export type Intercept = (req: GatewayRequest) => string | OwnAnswer | 'truncate' | undefined;

export interface HostileGateway {
  readonly url: string;
  /** Requests answered by the gateway itself, in order. */
  readonly intercepted: GatewayRequest[];
  /** From now on, answer as `intercept` says (undefined: forward everything). */
  intercept(intercept: Intercept | undefined): void;
  close(): Promise<void>;
}

export async function startHostileGateway(upstream: string): Promise<HostileGateway> {
  const target = new URL(upstream);
  const intercepted: GatewayRequest[] = [];
  let rule: Intercept | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = new URL(req.url ?? '/', 'http://gateway').pathname;
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const decided = rule?.({ path, body });
      if (decided !== undefined) intercepted.push({ path, body });
      if (decided !== undefined && decided !== 'truncate') {
        const own =
          typeof decided === 'string' ? { status: 200, type: 'application/json', body: decided } : decided;
        const headers: Record<string, string | number> = {
          'content-type': own.type,
          'content-length': Buffer.byteLength(own.body),
        };
        if (own.status === 429) headers['retry-after'] = '0';
        res.writeHead(own.status, headers);
        res.end(own.body);
        return;
      }
      const headers = { ...req.headers, host: target.host, 'content-length': String(raw.length) };
      const forwarded = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (decided !== 'truncate') {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const whole = Buffer.concat(parts);
            const half = whole.subarray(0, Math.floor(whole.length / 2));
            res.writeHead(answer.statusCode ?? 200, {
              'content-type': String(answer.headers['content-type'] ?? 'application/json'),
              'content-length': half.length,
            });
            res.end(half);
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    intercepted,
    intercept: (next) => {
      rule = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
