// The cost-analysis verbs: cost/list, cost/analyze, data-source list/get,
// data-source-account/list and job/list.

import { ApiError, notFound, requiredParameter, unknownError } from './api-error.ts';
import { azureSetup, withDeniedNulled } from './azure-costs.ts';
import { dayToMs, isDate, todayNumber } from './calendar.ts';
import { analyzeCosts } from './cost-analyze.ts';
import { listCosts } from './cost-query.ts';
import { dataSourceAccountRecords, dataSourceRecord } from './data-source-records.ts';
import { parseQuery, runQuery } from './query.ts';
import { costInWorkspace, fieldConditions, inWorkspace, workspaceScope } from './scope.ts';
import type { Route, RouteContext } from './state.ts';
import type { DataSource } from './world.ts';

const COST_FILTER_FIELDS = [
  'cost_id',
  'provider',
  'region_code',
  'region_key',
  'product',
  'usage_type',
  'resource',
  'service_account_id',
  'project_id',
];
const sameNames = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, n]));

function requireDataSource(ctx: RouteContext): DataSource {
  const id = ctx.body['data_source_id'];
  if (id === undefined || id === null || id === '') throw requiredParameter('data_source_id');
  const ds = ctx.state.costs.dataSource(id);
  if (!ds) throw notFound('data_source_id', id);
  return ds;
}

const costList: Route = {
  // CostSearchQueryRequest; billed_year/month/date are defined there but the service ignores them.
  fields: [
    'query',
    ...COST_FILTER_FIELDS,
    'workspace_id',
    'domain_id',
    'data_source_id',
    'billed_year',
    'billed_month',
    'billed_date',
  ],
  handle(ctx) {
    const ds = requireDataSource(ctx);
    const workspaceId = workspaceScope(ctx);
    // Current releases removed the WAREHOUSE connector: listing its costs fails, every time.
    if (ctx.state.warehouses.has(ds.id))
      throw unknownError(`'NoneType' object has no attribute 'list_costs'`);
    const query = parseQuery(ctx.body['query']);
    const fields = fieldConditions(ctx.body, sameNames(COST_FILTER_FIELDS));
    const answer = listCosts(ctx.state.costs, {
      ds,
      query,
      extra: [...costInWorkspace(ds, workspaceId), ...fields.predicates],
      extraKey: `${workspaceId ?? '*'}|${fields.key}`,
    });
    const denied = azureSetup(ds) === 'markup' && ctx.claims.rol !== 'DOMAIN_ADMIN';
    return denied ? withDeniedNulled(answer) : answer;
  },
};

const costAnalyze: Route = {
  fields: ['query', 'data_source_id', 'workspace_id', 'domain_id'],
  handle(ctx) {
    const ds = requireDataSource(ctx);
    if (ctx.body['query'] === undefined) throw requiredParameter('query');
    rejectBeyondRetention(ctx.body['query'], ctx.state.retentionMonths);
    return analyzeCosts(ctx.state.costs, ds, ctx.body['query'], costInWorkspace(ds, workspaceScope(ctx)));
  },
};

/** As Cloudforet: DAILY data older than its retention cannot be requested (start + N months < today). */
function rejectBeyondRetention(query: unknown, months: number | undefined): void {
  const start = (query as { start?: unknown } | null)?.start;
  if (months === undefined || typeof start !== 'string' || !isDate(start)) return;
  const limit = new Date(`${start}T00:00:00Z`);
  limit.setUTCMonth(limit.getUTCMonth() + months);
  if (limit.getTime() < dayToMs(todayNumber())) {
    throw new ApiError(
      400,
      'ERROR_INVALID_DATE_RANGE',
      `Invalid date range. (reason = For DAILY, you cannot request data older than ${months} months.)`,
    );
  }
}

const DATA_SOURCE_FILTERS = ['data_source_id', 'name', 'state', 'data_source_type', 'provider'];

const dataSourceList: Route = {
  fields: ['query', ...DATA_SOURCE_FILTERS, 'workspace_id', 'domain_id', 'connected_workspace_id'],
  handle(ctx) {
    workspaceScope(ctx);
    const admin = ctx.claims.rol === 'DOMAIN_ADMIN';
    const records = ctx.state.world.dataSources.map((ds) => dataSourceRecord(ctx.state, ds, admin));
    return runQuery(records, parseQuery(ctx.body['query']), {
      idKey: 'data_source_id',
      capped: false,
      keywordFields: ['data_source_id', 'name'],
      extra: fieldConditions(ctx.body, sameNames(DATA_SOURCE_FILTERS)).predicates,
    });
  },
};

const dataSourceGet: Route = {
  fields: ['data_source_id', 'workspace_id', 'domain_id'],
  handle(ctx) {
    workspaceScope(ctx);
    const admin = ctx.claims.rol === 'DOMAIN_ADMIN';
    return JSON.stringify(dataSourceRecord(ctx.state, requireDataSource(ctx), admin));
  },
};

const ACCOUNT_FILTERS = ['data_source_id', 'account_id', 'name', 'v_workspace_id', 'project_id'];

// cost-analysis service/data_source_account_service.py list (DOMAIN_ADMIN, WORKSPACE_OWNER in Cloudforet).
const dataSourceAccountList: Route = {
  fields: ['query', ...ACCOUNT_FILTERS, 'workspace_id', 'domain_id'],
  handle(ctx) {
    return runQuery(dataSourceAccountRecords(ctx.state), parseQuery(ctx.body['query']), {
      idKey: 'account_id',
      capped: false,
      keywordFields: ['account_id', 'name'],
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(ACCOUNT_FILTERS)).predicates,
      ],
    });
  },
};

const JOB_FILTERS = ['job_id', 'status', 'data_source_id'];

// cost-analysis service/job_service.py list; statuses from model/job_model.py Job.
const jobList: Route = {
  fields: ['query', ...JOB_FILTERS, 'workspace_id', 'domain_id'],
  handle(ctx) {
    workspaceScope(ctx);
    return runQuery(ctx.state.costs.jobs.records(), parseQuery(ctx.body['query']), {
      idKey: 'job_id',
      capped: false,
      extra: fieldConditions(ctx.body, sameNames(JOB_FILTERS)).predicates,
    });
  },
};

export const costRoutes: Record<string, Route> = {
  '/cost-analysis/cost/list': costList,
  '/cost-analysis/cost/analyze': costAnalyze,
  '/cost-analysis/data-source/list': dataSourceList,
  '/cost-analysis/data-source/get': dataSourceGet,
  '/cost-analysis/data-source-account/list': dataSourceAccountList,
  '/cost-analysis/job/list': jobList,
};
