// The adversary's hostile gateway (harness/hostile-gateway.ts, armed by rules): it forwards every request, and while
// a rule is armed answers one verb's page (page 1, or any later page) with what a broken proxy or
// upstream sends: `{}`, `{"results": null}`, an HTML 200, an error body, 429/503, a truncated body.
// Rules are armed for the next run only (the world clears them after it).
import { type OwnAnswer, startHostileGateway } from '../hostile-gateway.ts';

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

function answerOf(kind: Exclude<GatewayFaultKind, 'truncated'>): OwnAnswer {
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
  }
}

/** 1: the first page; 2: any later one (query.page.start > 1). */
function pageOf(body: Record<string, unknown> | undefined): 1 | 2 {
  const start = (body as { query?: { page?: { start?: unknown } } } | undefined)?.query?.page?.start;
  return typeof start === 'number' && start > 1 ? 2 : 1;
}

export async function startGateway(upstream: string): Promise<Gateway> {
  const proxy = await startHostileGateway(upstream);
  const rules: Array<GatewayRule & { left: number }> = [];
  let injected = 0;
  proxy.intercept(({ path, body }) => {
    const page = pageOf(body);
    const rule = rules.find((r) => r.left > 0 && r.path === path && r.page === page);
    if (!rule) return undefined;
    rule.left--;
    injected++;
    return rule.kind === 'truncated' ? 'truncate' : answerOf(rule.kind);
  });
  return {
    url: proxy.url,
    arm: (rule) => {
      rules.push({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY });
    },
    clear: () => {
      rules.length = 0;
    },
    get injected() {
      return injected;
    },
    close: () => proxy.close(),
  };
}
