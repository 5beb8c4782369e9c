// The cost-report verbs: cost-report-config, cost-report (list, get), cost-report-data,
// report-adjustment-policy and report-adjustment lists, with each service's role checks.

import { notFound, permissionDenied } from './api-error.ts';
import { reportStore } from './cost-reports.ts';
import { omitEmpty } from './omit-empty.ts';
import { parseQuery, runQuery } from './query.ts';
import { fieldConditions, inWorkspace, workspaceScope } from './scope.ts';
import type { Route, RouteContext } from './state.ts';
import type { Role } from './tokens.ts';

const sameNames = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, n]));
const OWNERS: readonly Role[] = ['DOMAIN_ADMIN', 'WORKSPACE_OWNER'];
const ADMIN: readonly Role[] = ['DOMAIN_ADMIN'];

/** proto3 JSON: false, '', 0 and null fields are left out (is_adjusted false, is_confirmed false). */
const wire = (records: readonly Record<string, unknown>[]) => records.map((r) => omitEmpty({ ...r }));

function allow(ctx: RouteContext, roles: readonly Role[]): void {
  if (!roles.includes(ctx.claims.rol)) throw permissionDenied();
}

// cost_report_config_service.py list: DOMAIN_ADMIN (configs have no workspace).
const CONFIG_FILTERS = ['cost_report_config_id', 'state', 'scope'];
const configList: Route = {
  fields: ['query', ...CONFIG_FILTERS, 'domain_id'],
  handle(ctx) {
    allow(ctx, ADMIN);
    return runQuery(wire(reportStore(ctx.state).configs), parseQuery(ctx.body['query']), {
      idKey: 'cost_report_config_id',
      capped: true,
      extra: fieldConditions(ctx.body, sameNames(CONFIG_FILTERS)).predicates,
    });
  },
};

// cost_report_serivce.py list: DOMAIN_ADMIN and WORKSPACE_OWNER; append_query_filter of the
// config, status, workspace and report id; keyword on report_number, name, year and month.
const REPORT_FILTERS = ['cost_report_config_id', 'status', 'cost_report_id'];
const reportList: Route = {
  fields: ['query', ...REPORT_FILTERS, 'workspace_id', 'domain_id'],
  handle(ctx) {
    allow(ctx, OWNERS);
    return runQuery(wire(reportStore(ctx.state).reports), parseQuery(ctx.body['query']), {
      idKey: 'cost_report_id',
      capped: true,
      keywordFields: ['report_number', 'name', 'report_year', 'report_month'],
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(REPORT_FILTERS)).predicates,
      ],
    });
  },
};

// cost_report_serivce.py get: cost_report_manager.get_cost_report(domain, id, workspace_id).
const reportGet: Route = {
  fields: ['cost_report_id', 'workspace_id', 'domain_id'],
  handle(ctx) {
    allow(ctx, OWNERS);
    const ws = workspaceScope(ctx);
    const found = reportStore(ctx.state).reports.find(
      (r) =>
        r['cost_report_id'] === ctx.body['cost_report_id'] && (ws === undefined || r['workspace_id'] === ws),
    );
    if (!found) throw notFound('cost_report_id', String(ctx.body['cost_report_id']));
    return JSON.stringify(omitEmpty({ ...found }));
  },
};

// cost_report_data_service.py list: DOMAIN_ADMIN and WORKSPACE_OWNER, page limit 1000; the report
// id is not among its request fields: a query filter names it.
const DATA_FILTERS = [
  'cost_report_config_id',
  'cost_report_data_id',
  'product',
  'provider',
  'is_confirmed',
  'data_source_id',
];
const dataList: Route = {
  fields: ['query', ...DATA_FILTERS, 'workspace_id', 'domain_id'],
  handle(ctx) {
    allow(ctx, OWNERS);
    return runQuery(wire(reportStore(ctx.state).data), parseQuery(ctx.body['query']), {
      idKey: 'cost_report_data_id',
      capped: true,
      keywordFields: ['product', 'cost_report_data_id'],
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(DATA_FILTERS)).predicates,
      ],
    });
  },
};

// report_adjustment_policy_service.py and report_adjustment_service.py list: DOMAIN_ADMIN only.
const POLICY_FILTERS = ['report_adjustment_policy_id', 'cost_report_config_id'];
const policyList: Route = {
  fields: ['query', ...POLICY_FILTERS, 'domain_id'],
  handle(ctx) {
    allow(ctx, ADMIN);
    return runQuery(wire(reportStore(ctx.state).policies), parseQuery(ctx.body['query']), {
      idKey: 'report_adjustment_policy_id',
      capped: true,
      extra: fieldConditions(ctx.body, sameNames(POLICY_FILTERS)).predicates,
    });
  },
};

const ADJUSTMENT_FILTERS = [
  'provider',
  'report_adjustment_id',
  'report_adjustment_policy_id',
  'cost_report_config_id',
];
const adjustmentList: Route = {
  fields: ['query', ...ADJUSTMENT_FILTERS, 'domain_id'],
  handle(ctx) {
    allow(ctx, ADMIN);
    return runQuery(wire(reportStore(ctx.state).adjustments), parseQuery(ctx.body['query']), {
      idKey: 'report_adjustment_id',
      capped: true,
      extra: fieldConditions(ctx.body, sameNames(ADJUSTMENT_FILTERS)).predicates,
    });
  },
};

export const costReportRoutes: Record<string, Route> = {
  '/cost-analysis/cost-report-config/list': configList,
  '/cost-analysis/cost-report/list': reportList,
  '/cost-analysis/cost-report/get': reportGet,
  '/cost-analysis/cost-report-data/list': dataList,
  '/cost-analysis/report-adjustment-policy/list': policyList,
  '/cost-analysis/report-adjustment/list': adjustmentList,
};
