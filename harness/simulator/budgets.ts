// Budgets and their monthly usage. Usage is computed from unified costs in the budget's own
// currency, as Cloudforet's budget-usage manager does, so it inherits their gaps.
// Limits hold cents above 131,072, where the list verb's 32-bit floats lose them.

import { costMonths } from './calendar.ts';
import { stableId } from './prng.ts';
import type { SimState } from './state.ts';
import { unifiedCostRecords } from './unified-costs.ts';
import type { ApiRecord } from './world.ts';

interface BudgetPlan {
  readonly index: number;
  readonly workspaceId: string;
  readonly projectId?: string;
  readonly timeUnit: 'MONTHLY' | 'TOTAL';
  readonly currency: 'KRW' | 'USD';
}

function plans(state: SimState): BudgetPlan[] {
  const { world } = state;
  const out: BudgetPlan[] = [];
  world.workspaces.forEach((w, i) => {
    const workspaceId = w['workspace_id'] as string;
    // Projects that have costs: those of the workspace's provider accounts.
    const projects = [
      ...new Set(
        Object.values(world.accounts)
          .flat()
          .filter((a) => a.workspaceId === workspaceId)
          .map((a) => a.projectId),
      ),
    ].sort();
    const first = projects[0];
    const last = projects[projects.length - 1];
    out.push({ index: out.length, workspaceId, projectId: first, timeUnit: 'MONTHLY', currency: 'KRW' });
    out.push({ index: out.length, workspaceId, projectId: last, timeUnit: 'TOTAL', currency: 'USD' });
    // A WORKSPACE-level budget survives from older Cloudforet versions.
    if (i === 0) out.push({ index: out.length, workspaceId, timeUnit: 'MONTHLY', currency: 'USD' });
  });
  return out;
}

/** A planned monthly limit with cents, above 131,072 for KRW budgets. */
function plannedLimit(plan: BudgetPlan, k: number): number {
  const base = plan.currency === 'KRW' ? 1_234_567.89 : 150_123.45;
  return base + 100_000 * k + plan.index * 1_000;
}

function budgetRecord(state: SimState, plan: BudgetPlan, months: readonly string[]): ApiRecord {
  const { world } = state;
  const currentMonth = new Date().toISOString().slice(0, 7);
  const planned = months.map((date, k) => ({ date, limit: plannedLimit(plan, k) }));
  const monthly = plan.timeUnit === 'MONTHLY';
  const limit = monthly
    ? (planned.find((p) => p.date === currentMonth)?.limit ?? planned[planned.length - 1]?.limit ?? 0)
    : 2_500_000.55 + plan.index;
  const record: ApiRecord = {
    budget_id: stableId('budget', world.seed, plan.index),
    name: `${plan.projectId ? 'Project' : 'Workspace'} budget ${plan.index + 1}`,
    state: 'ACTIVE',
    limit,
    planned_limits: monthly ? planned : undefined,
    currency: plan.currency,
    time_unit: plan.timeUnit,
    start: months[0],
    end: months[months.length - 1],
    utilization_rate: 0,
    tags: { owner: 'finops' },
    resource_group: plan.projectId ? 'PROJECT' : 'WORKSPACE',
    project_id: plan.projectId,
    workspace_id: plan.workspaceId,
    domain_id: world.domainId,
    created_at: `${months[0]}-01T09:00:00.000Z`,
    updated_at: `${months[0]}-02T09:00:00.000Z`,
  };
  return withoutEmpty(record);
}

export function budgetRecords(state: SimState): ApiRecord[] {
  const months = costMonths(state.world);
  return plans(state).map((plan) => budgetRecord(state, plan, months));
}

/** One usage row per budget and month: cost from unified costs in the budget's currency. */
export function budgetUsageRecords(state: SimState): ApiRecord[] {
  const months = costMonths(state.world);
  const unified = unifiedCostRecords(state);
  return plans(state).flatMap((plan) => {
    const budget = budgetRecord(state, plan, months);
    return months.map((date, k) => {
      let cost = 0;
      for (const row of unified) {
        if (row['billed_month'] !== date || row['workspace_id'] !== plan.workspaceId) continue;
        if (plan.projectId && row['project_id'] !== plan.projectId) continue;
        cost += ((row['cost'] as Record<string, number>)[plan.currency] ?? 0) as number;
      }
      const limit = plan.timeUnit === 'MONTHLY' ? plannedLimit(plan, k) : (budget['limit'] as number);
      return withoutEmpty({
        budget_id: budget['budget_id'],
        name: budget['name'],
        date,
        cost,
        limit,
        currency: plan.currency,
        resource_group: budget['resource_group'],
        project_id: plan.projectId,
        workspace_id: plan.workspaceId,
        domain_id: state.world.domainId,
        updated_at: `${date}-28T00:00:00.000Z`,
      });
    });
  });
}

/** As the list verb prints a protobuf `float`: the shortest decimal that round-trips in 32 bits. */
export function float32Json(value: number): number {
  const single = Math.fround(value);
  for (let digits = 1; digits <= 9; digits++) {
    const text = Number(single.toPrecision(digits));
    if (Math.fround(text) === single) return text;
  }
  return single;
}

function withoutEmpty(record: ApiRecord): ApiRecord {
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined && v !== null && v !== '' && v !== 0),
  );
}
