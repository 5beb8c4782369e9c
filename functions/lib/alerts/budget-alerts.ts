// Budget burn-rate alerts: from the newest budgets / budget_usage snapshot the inventory export
// wrote, one alert per budget, period and threshold its forecast reaches (budget-forecast.ts).

import { partitionPrefix } from '../destination/layout.ts';
import { newestPartition, readParquetFolder } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { budgetTable, budgetUsageTable } from '../tables/budgets.ts';
import { type AlertMessage, fieldLines, money, snsSubject } from './alert-text.ts';
import { BUDGET_THRESHOLDS, type BudgetForecast, forecastBudgets } from './budget-forecast.ts';
import type { Alert } from './sent-ledger.ts';

/** The saved query (infra/queries/) a budget alert names. */
export const BUDGET_QUERY = 'budget_vs_actual_forecast';

/** A snapshot older than this many days is not alerted on: its spend is stale. */
export const BUDGET_SNAPSHOT_MAX_AGE_DAYS = 7;

export interface BudgetReading {
  /** The snapshot date read; undefined when there is none recent enough. */
  readonly snapshotDate: string | undefined;
  readonly forecasts: BudgetForecast[];
}

export async function readBudgetForecasts(sink: Sink, today: string): Promise<BudgetReading> {
  const snapshotDate = await newestPartition(sink, budgetUsageTable);
  const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - BUDGET_SNAPSHOT_MAX_AGE_DAYS * 86_400_000)
    .toISOString()
    .slice(0, 10);
  if (snapshotDate === undefined || snapshotDate < oldest) return { snapshotDate: undefined, forecasts: [] };
  const [budgets, usage] = await Promise.all([
    readParquetFolder(sink, partitionPrefix(budgetTable, snapshotDate)),
    readParquetFolder(sink, partitionPrefix(budgetUsageTable, snapshotDate)),
  ]);
  return { snapshotDate, forecasts: forecastBudgets(budgets, usage, today) };
}

/** One alert per threshold the forecast reaches. */
export function budgetAlerts(f: BudgetForecast, snapshotDate: string, destination: string): Alert[] {
  return BUDGET_THRESHOLDS.filter((t) => f.forecast >= t * f.limit).map((t) => ({
    id: ['budget', f.budgetId, f.period.replace('..', '_'), `${Math.round(t * 100)}`],
    message: () => budgetMessage(f, t, snapshotDate, destination),
  }));
}

export function budgetMessage(
  f: BudgetForecast,
  threshold: number,
  snapshotDate: string,
  destination: string,
): AlertMessage {
  const pct = (n: number) => `${Math.round(n * 100)} %`;
  const subject = snsSubject(
    `Budget forecast over ${pct(threshold)}: ${f.name}: ${money(f.forecast)} of ${money(f.limit)} ${f.currency} by ${f.lastDay}`,
  );
  const scope = [f.projectId && `project ${f.projectId}`, f.workspaceId && `workspace ${f.workspaceId}`]
    .filter(Boolean)
    .join(', ');
  const body = [
    `A budget is on pace to pass ${pct(threshold)} of its limit by the end of its period.`,
    '',
    ...fieldLines([
      ['Budget', `${f.name} (${f.budgetId})`],
      ['Period', `${f.timeUnit}, ${f.firstDay} to ${f.lastDay}`],
      ['Scope', scope || '(none)'],
      ['Limit', `${money(f.limit)} ${f.currency}`],
      [
        'Spent',
        `${money(f.spent)} ${f.currency} in ${f.daysComplete} of ${f.daysInPeriod} days (${pct(f.spent / f.limit)} of the limit)`,
      ],
      [
        'Forecast',
        `${money(f.forecast)} ${f.currency} at the current pace (${pct(f.forecast / f.limit)} of the limit)`,
      ],
      ['Threshold', `${pct(threshold)} of the limit`],
      ['Currency', `${f.currency} (the budget's own)`],
    ]),
    '',
    'Forecast = spent / days complete x days in the period (days complete end yesterday: Cloudforet',
    'aggregates at 00:00 UTC). Linear: it swings early in a period and knows no seasonality.',
    `Explain it in Athena: the saved query ${BUDGET_QUERY} shows every budget against its period.`,
    '',
    `Budgets snapshot of ${snapshotDate}, export ${destination}`,
    'Sent once per budget, period and threshold.',
  ];
  return { subject, body: `${body.join('\n')}\n` };
}
