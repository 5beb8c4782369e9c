// A loopback gateway in front of the simulator that reads each request's JSON body and may answer
// for the API with a 200 of its own (`{}` for one page of a listing, say): the answers a broken
// gateway or cache gives, chosen per request by what it asked, which the simulator's path-only
// faults cannot aim. Everything else is forwarded as it came.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayRequest {
  readonly path: string;
  /** The request's body, parsed; undefined when it is not JSON. */
  readonly body: Record<string, unknown> | undefined;
}

/** The body of a 200 to answer instead of the API, or undefined to forward the request. */
export type Intercept = (req: GatewayRequest) => string | undefined;

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
      const own = rule?.({ path, body });
      if (own !== undefined) {
        intercepted.push({ path, body });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(own) });
        res.end(own);
        return;
      }
      const headers = { ...req.headers, host: target.host, 'content-length': String(raw.length) };
      const forwarded = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
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
