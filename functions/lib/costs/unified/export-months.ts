// The unified-cost part of a cost run: one unit per month the run covers, with the shared unit
// retry loop; and which confirmed (closed) months the run restated.
import { attemptUnit, type UnitFailureInfo } from '../../export/unit-attempts.ts';
import type { Logger } from '../../log.ts';
import { scopeName } from '../../scope.ts';
import { exportUnifiedCostMonth, type UnifiedMonthDeps, type UnifiedMonthResult } from './export-month.ts';

export interface UnifiedMonthFailure extends UnitFailureInfo {
  readonly month: string;
}

export interface RestatedMonth {
  readonly month: string;
  readonly reason: string;
}

export interface UnifiedRunSummary {
  readonly scope: string;
  readonly months: readonly UnifiedMonthResult[];
  readonly failures: readonly UnifiedMonthFailure[];
  /** Confirmed months whose cost days or unified totals this run changed. */
  readonly restatedConfirmedMonths: readonly RestatedMonth[];
  readonly retries: number;
}

/** The months (YYYY-MM) of an inclusive day range, oldest first. */
/**
 * The months of a range that Cloudforet still holds: a month before its retention is never
 * planned, so its archived object is never replaced by an empty answer. `window` is the range
 * clamped to retention (planning/retention.ts).
 */
export function retainedMonths(window: { readonly from: string }, to: string): string[] {
  return window.from > to ? [] : monthsBetween(window.from, to);
}

export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [year, month] = [Number(from.slice(0, 4)), Number(from.slice(5, 7))];
  const last = to.slice(0, 7);
  for (;;) {
    const current = `${year}-${String(month).padStart(2, '0')}`;
    if (current > last) return months;
    months.push(current);
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
}

/**
 * @param restatedDays month -> cost days of it re-exported because their content changed since the
 *   last export (not new days, not forced ones).
 */
export async function exportUnifiedMonths(
  deps: UnifiedMonthDeps & { log: Logger; unitAttempts?: number },
  monthsToExport: readonly string[],
  restatedDays: ReadonlyMap<string, number>,
): Promise<UnifiedRunSummary> {
  const months: UnifiedMonthResult[] = [];
  const failures: UnifiedMonthFailure[] = [];
  let retries = 0;
  for (const month of monthsToExport) {
    const fields = { billedMonth: month, scope: deps.scope };
    const outcome = await attemptUnit(
      { what: 'unified cost month', log: deps.log, fields, attempts: deps.unitAttempts, signal: deps.signal },
      () => exportUnifiedCostMonth(deps, month),
    );
    retries += outcome.retries;
    if (!outcome.ok) {
      failures.push({ month, ...outcome.failure });
      continue;
    }
    months.push(outcome.value);
    if (outcome.value.outcome === 'kept') {
      deps.log.warn('unified costs answered empty for a published month; its object is kept', fields);
      continue;
    }
    deps.log.info('unified cost month exported', {
      ...fields,
      rows: outcome.value.rows,
      confirmed: outcome.value.isConfirmed,
    });
  }
  const restatedConfirmedMonths = months.flatMap((m) => {
    const reason = restatement(m, restatedDays.get(m.month) ?? 0);
    return reason ? [{ month: m.month, reason }] : [];
  });
  for (const r of restatedConfirmedMonths) deps.log.warn('confirmed month restated', { ...r });
  return { scope: deps.scope, months, failures, restatedConfirmedMonths, retries };
}

/** Why a month counts as a confirmed month restated by this run, or undefined. */
export function restatement(m: UnifiedMonthResult, changedDays: number): string | undefined {
  const wasConfirmed = m.previous?.isConfirmed === true;
  if (m.outcome === 'kept' || (!m.isConfirmed && !wasConfirmed)) return undefined;
  if (changedDays > 0) return `${changedDays} cost day(s) changed after Cloudforet confirmed the month`;
  if (!wasConfirmed || !m.previous) return undefined;
  const moved = Object.keys({ ...m.totals, ...m.previous.totals }).filter((currency) => {
    const before = m.previous?.totals[currency] ?? 0;
    const after = m.totals[currency] ?? 0;
    return Math.abs(after - before) > 1e-9 * Math.max(1, Math.abs(before));
  });
  if (moved.length === 0) return undefined;
  const change = moved
    .sort()
    .map((c) => `${c} ${(m.previous?.totals[c] ?? 0).toFixed(2)} -> ${(m.totals[c] ?? 0).toFixed(2)}`);
  return `unified totals of the confirmed month changed: ${change.join(', ')}`;
}

/** month -> cost days exported because their content changed since the last export. */
export function changedDaysByMonth(
  planned: ReadonlyArray<{ dataSourceId: string; date: string; reason: string }>,
  exported: ReadonlyArray<{ dataSourceId: string; date: string }>,
): Map<string, number> {
  const done = new Set(exported.map((u) => `${u.dataSourceId}|${u.date}`));
  const byMonth = new Map<string, number>();
  for (const unit of planned) {
    if (unit.reason !== 'rows-changed' && unit.reason !== 'cost-changed') continue;
    if (!done.has(`${unit.dataSourceId}|${unit.date}`)) continue;
    const month = unit.date.slice(0, 7);
    byMonth.set(month, (byMonth.get(month) ?? 0) + 1);
  }
  return byMonth;
}

/** The object name of a credential's scope: 'domain', or its workspace id. */
export function scopeObjectName(credential?: { readonly workspaceId: string }): string {
  return credential ? scopeName(credential) : 'domain';
}
