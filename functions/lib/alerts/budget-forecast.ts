// A budget's forecast at the current pace, as the saved query budget_vs_actual_forecast computes
// it: forecast = spent / days complete × days in the period, where days complete count from the
// period's first day up to yesterday (Cloudforet aggregates at 00:00 UTC, so today is not in the
// spend), at least 1. MONTHLY: this month's cost against this month's limit; TOTAL: the cost of
// every month from the budget's start against its whole limit, over start..end.
import { dayCount } from '../dates.ts';
import type { Row } from '../published/read-objects.ts';

/** Shares of the limit the forecast is alerted at: once per budget, period and threshold. */
export const BUDGET_THRESHOLDS = [0.8, 1] as const;

export interface BudgetForecast {
  readonly budgetId: string;
  readonly name: string;
  readonly timeUnit: 'MONTHLY' | 'TOTAL';
  /** 'YYYY-MM' (MONTHLY), or 'YYYY-MM..YYYY-MM' (TOTAL). */
  readonly period: string;
  readonly firstDay: string;
  readonly lastDay: string;
  readonly limit: number;
  readonly spent: number;
  readonly daysComplete: number;
  readonly daysInPeriod: number;
  readonly forecast: number;
  readonly currency: string;
  readonly projectId: string;
  readonly workspaceId: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0));

const lastDayOf = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

/** One row per key, the one exported last (a domain and a workspace snapshot may sit side by side). */
function newestBy(rows: readonly Row[], key: (r: Row) => string): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const r of rows) {
    const known = out.get(key(r));
    if (!known || String(r.exported_at ?? '') > String(known.exported_at ?? '')) out.set(key(r), r);
  }
  return out;
}

/** Every ACTIVE budget whose period holds `today`, with its forecast. */
export function forecastBudgets(
  budgets: readonly Row[],
  usage: readonly Row[],
  today: string,
): BudgetForecast[] {
  const month = today.slice(0, 7);
  const usageOf = newestBy(usage, (r) => `${str(r.budget_id)}|${str(r.billed_month)}`);
  const found: BudgetForecast[] = [];
  for (const b of newestBy(budgets, (r) => str(r.budget_id)).values()) {
    const id = str(b.budget_id);
    const [start, end] = [str(b.start), str(b.end)];
    if (str(b.state) === 'EXPIRED' || !start || !end || month < start || month > end) continue;
    const total = str(b.time_unit) === 'TOTAL';
    const firstDay = total ? `${start}-01` : `${month}-01`;
    const lastDay = lastDayOf(total ? end : month);
    const monthUsage = usageOf.get(`${id}|${month}`);
    const spent = total
      ? [...usageOf.values()]
          .filter((u) => str(u.budget_id) === id && str(u.billed_month) <= month)
          .reduce((n, u) => n + num(u.cost), 0)
      : num(monthUsage?.cost);
    const limit = total ? num(b.limit) : num(monthUsage?.limit ?? b.limit);
    if (!(limit > 0)) continue;
    const daysInPeriod = dayCount(firstDay, lastDay);
    const daysComplete = Math.min(Math.max(dayCount(firstDay, today) - 1, 1), daysInPeriod);
    found.push({
      budgetId: id,
      name: str(b.name) || id,
      timeUnit: total ? 'TOTAL' : 'MONTHLY',
      period: total ? `${start}..${end}` : month,
      firstDay,
      lastDay,
      limit,
      spent,
      daysComplete,
      daysInPeriod,
      forecast: (spent / daysComplete) * daysInPeriod,
      currency: str(b.currency) || str(monthUsage?.currency),
      projectId: str(b.project_id),
      workspaceId: str(b.workspace_id),
    });
  }
  return found.sort((a, b) => a.budgetId.localeCompare(b.budgetId));
}
