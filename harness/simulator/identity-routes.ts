// The identity list verbs beyond workspace/list: project groups, projects, service accounts,
// trusted accounts and providers. Workspace apps see their workspace's records; trusted accounts
// of the domain (resource_group DOMAIN) and providers are visible to every app.

import type { Predicate } from './filters.ts';
import { parseQuery, runQuery } from './query.ts';
import { fieldConditions, inWorkspace, workspaceScope } from './scope.ts';
import type { Route, RouteContext } from './state.ts';
import type { ApiRecord } from './world.ts';

interface IdentityVerb {
  readonly records: (ctx: RouteContext) => readonly ApiRecord[];
  readonly idKey: string;
  readonly filters: readonly string[];
  readonly scope: (ctx: RouteContext) => Predicate[];
}

const workspaceOnly = (ctx: RouteContext) => inWorkspace(workspaceScope(ctx));

const domainOrWorkspace = (ctx: RouteContext): Predicate[] => {
  const workspaceId = workspaceScope(ctx);
  if (workspaceId === undefined) return [];
  return [(r) => r['resource_group'] === 'DOMAIN' || r['workspace_id'] === workspaceId];
};

// identity service/*_service.py list: every role; append_query_filter of the token's workspace_id.
function identityRoute(verb: IdentityVerb): Route {
  return {
    fields: ['query', ...verb.filters, 'workspace_id', 'domain_id'],
    handle(ctx) {
      const fields = Object.fromEntries(verb.filters.map((f) => [f, f]));
      return runQuery(verb.records(ctx), parseQuery(ctx.body['query']), {
        idKey: verb.idKey,
        capped: false,
        keywordFields: [verb.idKey, 'name'],
        extra: [...verb.scope(ctx), ...fieldConditions(ctx.body, fields).predicates],
      });
    },
  };
}

export const identityRoutes: Record<string, Route> = {
  '/identity/project-group/list': identityRoute({
    records: (ctx) => ctx.state.identity.projectGroups,
    idKey: 'project_group_id',
    filters: ['project_group_id', 'name', 'parent_group_id'],
    scope: workspaceOnly,
  }),
  '/identity/project/list': identityRoute({
    records: (ctx) => ctx.state.identity.projects,
    idKey: 'project_id',
    filters: ['project_id', 'name', 'project_type', 'project_group_id'],
    scope: workspaceOnly,
  }),
  '/identity/service-account/list': identityRoute({
    records: (ctx) => ctx.state.identity.serviceAccounts,
    idKey: 'service_account_id',
    filters: ['service_account_id', 'name', 'provider', 'project_id', 'trusted_account_id'],
    scope: workspaceOnly,
  }),
  '/identity/trusted-account/list': identityRoute({
    records: (ctx) => ctx.state.identity.trustedAccounts,
    idKey: 'trusted_account_id',
    filters: ['trusted_account_id', 'name', 'provider'],
    scope: domainOrWorkspace,
  }),
  '/identity/provider/list': identityRoute({
    records: (ctx) => ctx.state.identity.providers,
    idKey: 'provider',
    filters: ['provider', 'name', 'alias'],
    scope: () => [],
  }),
};
