// The inventory verbs: cloud-service list/get and region/list.

import { notFound, requiredParameter } from './api-error.ts';
import type { Condition } from './filters.ts';
import { parseQuery, runQuery } from './query.ts';
import { fieldConditions, inWorkspace, workspaceScope } from './scope.ts';
import type { Route } from './state.ts';

const SERVICE_FILTERS: Record<string, string> = {
  cloud_service_id: 'cloud_service_id',
  name: 'name',
  state: 'state',
  account: 'account',
  instance_type: 'instance_type',
  reference_id: 'reference.resource_id',
  cloud_service_type: 'cloud_service_type',
  cloud_service_group: 'cloud_service_group',
  provider: 'provider',
  region_code: 'region_code',
  project_id: 'project_id',
};

const MINIMAL_SERVICE_FIELDS = [
  'cloud_service_id',
  'name',
  'state',
  'cloud_service_group',
  'cloud_service_type',
  'provider',
  'region_code',
  'reference.resource_id',
  'project_id',
  'workspace_id',
];

const mentionsState = (conditions: readonly Condition[]) => conditions.some((c) => c.key === 'state');

const cloudServiceList: Route = {
  fields: [
    'query',
    ...Object.keys(SERVICE_FILTERS),
    'resource_group_id',
    'project_group_id',
    'workspace_id',
    'domain_id',
    'unmanaged',
  ],
  handle(ctx) {
    const query = parseQuery(ctx.body['query']);
    // Retired resources stay hidden unless the caller asks about state at all.
    const showAll =
      mentionsState(query.filter) || mentionsState(query.filterOr) || ctx.body['state'] !== undefined;
    const active = showAll ? [] : [(r: Record<string, unknown>) => r['state'] === 'ACTIVE'];
    return runQuery(
      ctx.state.inventory.services.map((s) => s.record),
      query,
      {
        idKey: 'cloud_service_id',
        presorted: true,
        capped: true,
        sortBudget: ctx.state.costs,
        minimalFields: MINIMAL_SERVICE_FIELDS,
        keywordFields: ['cloud_service_id', 'name', 'ip_addresses', 'reference.resource_id', 'account'],
        extra: [
          ...active,
          ...inWorkspace(workspaceScope(ctx)),
          ...fieldConditions(ctx.body, SERVICE_FILTERS).predicates,
        ],
      },
    );
  },
};

const cloudServiceGet: Route = {
  fields: ['cloud_service_id', 'workspace_id', 'domain_id'],
  handle(ctx) {
    const id = ctx.body['cloud_service_id'];
    if (id === undefined || id === '') throw requiredParameter('cloud_service_id');
    const workspaceId = workspaceScope(ctx);
    const found = ctx.state.inventory.services.find((s) => s.record['cloud_service_id'] === id);
    if (!found || (workspaceId !== undefined && found.record['workspace_id'] !== workspaceId)) {
      throw notFound('cloud_service_id', id);
    }
    return JSON.stringify({ ...found.record, metadata: found.metadata });
  },
};

const REGION_FILTERS = ['region_id', 'name', 'region_key', 'region_code', 'provider'];

const regionList: Route = {
  fields: ['query', ...REGION_FILTERS, 'workspace_id', 'domain_id'],
  handle(ctx) {
    return runQuery(ctx.state.world.regions, parseQuery(ctx.body['query']), {
      idKey: 'region_id',
      capped: true,
      keywordFields: ['region_id', 'name', 'region_code'],
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, Object.fromEntries(REGION_FILTERS.map((f) => [f, f]))).predicates,
      ],
    });
  },
};

export const inventoryRoutes: Record<string, Route> = {
  '/inventory/cloud-service/list': cloudServiceList,
  '/inventory/cloud-service/get': cloudServiceGet,
  '/inventory/region/list': regionList,
};
