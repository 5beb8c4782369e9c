// The gateway: one POST route per three-segment path. Checks run in Cloudforet's order:
// path, body, the request message's fields, then the token, then the verb itself.

import { ApiError, unknownError, unknownField, unsupportedApi } from './api-error.ts';
import { costReportRoutes } from './cost-report-routes.ts';
import { costRoutes } from './cost-routes.ts';
import type { QueryCost } from './cost-store.ts';
import { identityRoutes } from './identity-routes.ts';
import { inventoryRoutes } from './inventory-routes.ts';
import { moneyRoutes } from './money-routes.ts';
import type { Route, SimState } from './state.ts';
import type { TokenIssuer } from './tokens.ts';
import { workspaceRoutes } from './workspace-routes.ts';

const ROUTES: Record<string, Route> = {
  ...costRoutes,
  ...costReportRoutes,
  ...inventoryRoutes,
  ...identityRoutes,
  ...moneyRoutes,
  ...workspaceRoutes,
};
const THREE_SEGMENTS = /^\/[^/]+\/[^/]+\/[^/]+$/;

export interface Answer {
  readonly status: number;
  readonly body: string;
  /** What a cost/list cost the database (for tests and the bench). */
  readonly cost?: QueryCost;
}

export interface IncomingCall {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
  /** False when the body was empty or not JSON. */
  readonly parsed: boolean;
}

export function routeCall(state: SimState, tokens: TokenIssuer, call: IncomingCall): Answer {
  if (!THREE_SEGMENTS.test(call.path)) return { status: 404, body: '{"detail":"Not Found"}' };
  if (call.method !== 'POST') return { status: 405, body: '{"detail":"Method Not Allowed"}' };
  try {
    if (call.path === PUBLIC_KEY) return publicKey();
    const route = ROUTES[call.path];
    if (!route) throw unsupportedApi(call.path);
    const body = requestObject(call);
    for (const field of Object.keys(body))
      if (!route.fields.includes(field)) throw unknownField('Request', field);
    const claims = tokens.authenticate(call.authorization);
    state.costs.lastCost = undefined;
    return { status: 200, body: route.handle({ state, body, claims }), cost: state.costs.lastCost };
  } catch (error) {
    const apiError = error instanceof ApiError ? error : unknownError(String(error));
    return { status: apiError.status, body: apiError.body(), cost: state.costs.lastCost };
  }
}

/** The one verb the gateway answers without a token: what a client checks a token's domain with. */
const PUBLIC_KEY = '/identity/domain/get-public-key';

/**
 * identity's get-public-key answers a system token only (a token of the root domain, which no app
 * has): without one, or with an app's, ERROR_UNKNOWN 'Invalid System Token' (domain_service.py).
 */
function publicKey(): Answer {
  throw unknownError('Invalid System Token');
}

function requestObject(call: IncomingCall): Record<string, unknown> {
  const { body } = call;
  if (!call.parsed) throw unknownError('Request body is not JSON.');
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw unknownError('Request body must be a JSON object.');
  return body as Record<string, unknown>;
}
