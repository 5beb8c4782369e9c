// The money verbs beyond cost rows: unified-cost/list, budget/list, budget-usage list and analyze.

import { budgetRecords, budgetUsageRecords, float32Json } from './budgets.ts';
import { analyzeRecords } from './generic-analyze.ts';
import { parseQuery, runQuery } from './query.ts';
import { fieldConditions, inWorkspace, workspaceScope } from './scope.ts';
import type { Route } from './state.ts';
import { unifiedCostRecords } from './unified-costs.ts';

const sameNames = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, n]));

const unifiedCostList: Route = {
  fields: ['query', 'unified_cost_id', 'user_projects', 'workspace_id', 'domain_id'],
  handle(ctx) {
    const query = parseQuery(ctx.body['query']);
    // `billed_month eq M` keeps other months out of the answer: they need not be built.
    const month = query.filter.find((c) => c.key === 'billed_month' && c.operator === 'eq')?.value;
    const records = unifiedCostRecords(ctx.state, typeof month === 'string' ? month : undefined);
    return runQuery(records, query, {
      idKey: 'unified_cost_id',
      capped: true,
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(['unified_cost_id'])).predicates,
      ],
    });
  },
};

const BUDGET_FILTERS = ['name', 'time_unit', 'budget_id', 'service_account_id', 'project_id'];

const budgetList: Route = {
  fields: ['query', ...BUDGET_FILTERS, 'workspace_id', 'domain_id', 'user_projects'],
  handle(ctx) {
    return runQuery(budgetRecords(ctx.state), parseQuery(ctx.body['query']), {
      idKey: 'budget_id',
      capped: true,
      keywordFields: ['budget_id', 'name'],
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(BUDGET_FILTERS)).predicates,
      ],
    });
  },
};

const USAGE_FILTERS = ['budget_id', 'service_account_id', 'project_id'];

const budgetUsageList: Route = {
  fields: ['query', 'name', 'date', ...USAGE_FILTERS, 'workspace_id', 'domain_id', 'user_projects'],
  handle(ctx) {
    // BudgetUsageInfo declares cost and limit as protobuf `float`: 32 bits on the wire.
    const single = (v: unknown) => (typeof v === 'number' ? float32Json(v) : undefined);
    const records = budgetUsageRecords(ctx.state).map((r) => ({
      ...r,
      cost: single(r['cost']),
      limit: single(r['limit']),
    }));
    return runQuery(records, parseQuery(ctx.body['query']), {
      idKey: 'budget_id',
      capped: true,
      extra: [
        ...inWorkspace(workspaceScope(ctx)),
        ...fieldConditions(ctx.body, sameNames(USAGE_FILTERS)).predicates,
      ],
    });
  },
};

// cost-analysis service/budget_usage_service.py analyze: python-core MongoModel.analyze, page cap 1000.
const budgetUsageAnalyze: Route = {
  fields: ['query', ...USAGE_FILTERS, 'workspace_id', 'domain_id', 'user_projects'],
  handle(ctx) {
    const scope = inWorkspace(workspaceScope(ctx));
    const fields = fieldConditions(ctx.body, sameNames(USAGE_FILTERS)).predicates;
    const records = budgetUsageRecords(ctx.state).filter((r) => [...scope, ...fields].every((p) => p(r)));
    return analyzeRecords(records, ctx.body['query']);
  },
};

export const moneyRoutes: Record<string, Route> = {
  '/cost-analysis/unified-cost/list': unifiedCostList,
  '/cost-analysis/budget/list': budgetList,
  '/cost-analysis/budget-usage/list': budgetUsageList,
  '/cost-analysis/budget-usage/analyze': budgetUsageAnalyze,
};
