// A hostile gateway between the exporter and the simulator: it forwards every request, and while
// a rule is armed answers one verb's page (page 1, or any later page) with what a broken proxy or
// upstream sends: `{}`, `{"results": null}`, an HTML 200, an error body, 429/503, a truncated body.
// Rules are armed for the next run only (the world clears them after it).
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export type GatewayFaultKind = 'empty' | 'null-results' | 'html' | 'detail' | '429' | '503' | 'truncated';

export interface GatewayRule {
  /** The verb's path, e.g. /cost-analysis/cost/list. */
  readonly path: string;
  /** 1: the first page only; 2: every later page (query.page.start > 1). */
  readonly page: 1 | 2;
  readonly kind: GatewayFaultKind;
  /** Matching requests answered by the fault (default: every one while armed). */
  readonly times?: number;
}

export interface Gateway {
  readonly url: string;
  arm(rule: GatewayRule): void;
  clear(): void;
  /** Requests answered by a fault since the gateway started. */
  readonly injected: number;
  close(): Promise<void>;
}

const HTML = '<!DOCTYPE html><html><body><h1>Bad gateway</h1></body></html>\n';

function answerOf(kind: GatewayFaultKind): { status: number; type: string; body: string } | undefined {
  const json = 'application/json';
  switch (kind) {
    case 'empty':
      return { status: 200, type: json, body: '{}' };
    case 'null-results':
      return { status: 200, type: json, body: '{"results": null, "total_count": 0}' };
    case 'html':
      return { status: 200, type: 'text/html', body: HTML };
    case 'detail':
      return { status: 200, type: json, body: '{"detail": "upstream connect error"}' };
    case '429':
      return { status: 429, type: json, body: '{"message": "Too Many Requests"}' };
    case '503':
      return {
        status: 503,
        type: json,
        body: '{"detail": {"code": "ERROR_GRPC_CONNECTION", "message": "Server is unavailable."}}',
      };
    default:
      return undefined;
  }
}

function pageOf(body: string): number {
  try {
    const start = (JSON.parse(body) as { query?: { page?: { start?: number } } }).query?.page?.start;
    return typeof start === 'number' && start > 1 ? 2 : 1;
  } catch {
    return 1;
  }
}

export async function startGateway(upstream: string): Promise<Gateway> {
  const target = new URL(upstream);
  const rules: Array<GatewayRule & { left: number }> = [];
  let injected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = new URL(req.url ?? '/', 'http://gateway').pathname;
      const page = pageOf(body.toString());
      const rule = rules.find((r) => r.left > 0 && r.path === path && r.page === page);
      if (rule) {
        rule.left--;
        injected++;
      }
      const canned = rule && answerOf(rule.kind);
      if (canned) {
        const headers: Record<string, string | number> = {
          'content-type': canned.type,
          'content-length': Buffer.byteLength(canned.body),
        };
        if (canned.status === 429) headers['retry-after'] = '0';
        res.writeHead(canned.status, headers);
        res.end(canned.body);
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (rule?.kind !== 'truncated') {
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
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arm: (rule) => {
      rules.push({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY });
    },
    clear: () => {
      rules.length = 0;
    },
    get injected() {
      return injected;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
