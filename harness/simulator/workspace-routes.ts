// identity/workspace/list and identity/workspace/analyze: the one verb that names every workspace
// is DOMAIN_ADMIN only; analyze also admits WORKSPACE_OWNER and answers for its own workspace.

import { permissionDenied } from './api-error.ts';
import { ANALYZE_QUERY_FIELDS, analyzeRecords } from './generic-analyze.ts';
import { parseQuery, runQuery } from './query.ts';
import { fieldConditions } from './scope.ts';
import type { Route } from './state.ts';
import type { Role } from './tokens.ts';

const WORKSPACE_FILTERS = ['workspace_id', 'name', 'state'];

/** identity service/workspace_service.py WorkspaceService: role_types of each @transaction. */
const MAY_LIST: readonly Role[] = ['DOMAIN_ADMIN'];
const MAY_ANALYZE: readonly Role[] = ['DOMAIN_ADMIN', 'WORKSPACE_OWNER'];

// identity WorkspaceService.list: role_types ["DOMAIN_ADMIN"], append_query_filter of its fields.
const workspaceList: Route = {
  fields: ['query', ...WORKSPACE_FILTERS, 'created_by', 'is_dormant', 'domain_id'],
  handle(ctx) {
    if (!MAY_LIST.includes(ctx.claims.rol)) throw permissionDenied();
    return runQuery(ctx.state.world.workspaces, parseQuery(ctx.body['query']), {
      idKey: 'workspace_id',
      capped: false,
      keywordFields: ['workspace_id', 'name'],
      extra: fieldConditions(ctx.body, Object.fromEntries(WORKSPACE_FILTERS.map((f) => [f, f]))).predicates,
    });
  },
};

// identity WorkspaceService.analyze: role_types DOMAIN_ADMIN and WORKSPACE_OWNER; the mutation
// handler injects a workspace owner's wid, append_query_filter(["workspace_id", "domain_id"])
// filters on it; `query or {}` goes to MongoModel.analyze. api's WorkspaceAnalyzeQuery has `query` only.
const workspaceAnalyze: Route = {
  fields: ['query'],
  handle(ctx) {
    if (!MAY_ANALYZE.includes(ctx.claims.rol)) throw permissionDenied();
    const own = ctx.claims.rol === 'DOMAIN_ADMIN' ? undefined : ctx.claims.wid;
    const workspaces = ctx.state.world.workspaces.filter(
      (w) => own === undefined || w['workspace_id'] === own,
    );
    return analyzeRecords(workspaces, ctx.body['query'] ?? {}, ANALYZE_QUERY_FIELDS);
  },
};

export const workspaceRoutes: Record<string, Route> = {
  '/identity/workspace/list': workspaceList,
  '/identity/workspace/analyze': workspaceAnalyze,
};
