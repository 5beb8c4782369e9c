// The simulator's cost reports against an independent sum of its unified costs: a report's cost is
// its workspace's unified costs of the month plus its adjustments; PERCENT and FIXED rows follow
// Cloudforet's adjustment_policy_applier.py; a regeneration expires the DONE report and keeps it.
import { describe, expect, it } from 'vitest';
import { reportStore, runReportJob, scheduledPhase } from '../../harness/simulator/cost-reports.ts';
import { buildState } from '../../harness/simulator/state.ts';
import { monthRates, unifiedCostRecords } from '../../harness/simulator/unified-costs.ts';

const MONTH = '2026-08';
const pick = (cost: unknown, c: string): number =>
  (cost as Record<string, number> | undefined)?.[c] ?? Number.NaN;
const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));

function world() {
  return buildState({ seed: 7, from: '2026-08-01', to: '2026-09-30', rowsPerDay: 12 });
}

function unifiedSum(
  state: ReturnType<typeof world>,
  ws: string,
  currency: string,
  provider?: string,
): number {
  return unifiedCostRecords(state, MONTH)
    .filter((u) => u['workspace_id'] === ws && (provider === undefined || u['provider'] === provider))
    .reduce((s, u) => s + ((u['cost'] as Record<string, number>)[currency] ?? 0), 0);
}

describe('simulated cost reports', () => {
  it('a DONE report is its workspace unified costs plus a PERCENT and a FIXED adjustment', () => {
    const state = world();
    const reports = runReportJob(state, MONTH, 'DONE');
    const store = reportStore(state);
    const workspaces = state.world.workspaces.map((w) => w['workspace_id'] as string);
    expect(reports.map((r) => r['workspace_id']).sort()).toEqual([...workspaces].sort());
    const rates = monthRates(state, MONTH);
    const [percentPolicy, fixedPolicy] = store.policies.map((p) => p['report_adjustment_policy_id']);
    for (const report of reports) {
      const ws = report['workspace_id'] as string;
      expect(report['status']).toBe('DONE');
      expect(report['is_adjusted']).toBe(true);
      expect(report['issue_date']).toBe('2026-09-10');
      const rows = store.data.filter((d) => d['cost_report_id'] === report['cost_report_id']);
      expect(rows.every((d) => d['is_confirmed'] === true)).toBe(true);
      for (const currency of ['KRW', 'USD', 'JPY']) {
        const base = unifiedSum(state, ws, currency);
        const plain = rows.filter((d) => d['is_adjusted'] === false);
        near(
          plain.reduce((s, d) => s + pick(d['cost'], currency), 0),
          base,
        );
        // Policy 1 filters the first workspace: 5 % off its AWS rows.
        const percent = rows.find((d) => d['report_adjustment_policy_id'] === percentPolicy);
        const aws = unifiedSum(state, ws, currency, 'aws');
        if (ws === workspaces[0]) near(pick(percent?.['cost'], currency), -0.05 * aws);
        else expect(percent).toBeUndefined();
        // Policy 2 has no filter: 100 USD at the month's rate, in every report.
        const fixed = rows.find((d) => d['report_adjustment_policy_id'] === fixedPolicy);
        near(pick(fixed?.['cost'], currency), 100 * pick(rates, `USD/${currency}`));
        const expected =
          base + (ws === workspaces[0] ? -0.05 * aws : 0) + 100 * pick(rates, `USD/${currency}`);
        near(pick(report['cost'], currency), expected);
      }
    }
    expect(reports.map((r) => r['report_number']).sort()).toEqual([
      'CostReport_2608100001',
      'CostReport_2608100002',
    ]);
  });

  it('drafts are replaced run after run; a regeneration expires the DONE report and keeps its rows', () => {
    const state = world();
    const store = reportStore(state);
    const draft = runReportJob(state, MONTH, 'IN_PROGRESS');
    expect(draft.every((r) => r['status'] === 'IN_PROGRESS' && r['is_adjusted'] === false)).toBe(true);
    const adjusting = runReportJob(state, MONTH, 'ADJUSTING');
    // _delete_old_cost_reports: the IN_PROGRESS reports and their rows are gone.
    expect(store.reports.map((r) => r['cost_report_id']).sort()).toEqual(
      adjusting.map((r) => r['cost_report_id']).sort(),
    );
    expect(store.data.some((d) => draft.some((r) => r['cost_report_id'] === d['cost_report_id']))).toBe(
      false,
    );
    const done = runReportJob(state, MONTH, 'DONE');
    expect(runReportJob(state, MONTH, 'DONE')).toEqual([]); // scheduled again: a DONE report exists
    const dataOfDone = store.data.filter((d) =>
      done.some((r) => r['cost_report_id'] === d['cost_report_id']),
    );
    const again = runReportJob(state, MONTH, 'DONE', true);
    expect(again.every((r) => r['status'] === 'DONE')).toBe(true);
    for (const r of done)
      expect(store.reports.find((s) => s['cost_report_id'] === r['cost_report_id'])?.['status']).toBe(
        'EXPIRED',
      );
    expect(store.data.filter((d) => done.some((r) => r['cost_report_id'] === d['cost_report_id']))).toEqual(
      dataOfDone,
    );
    // get_start_cost_report_number counts the reports left with that issue date (drafts were
    // deleted), so the regenerated reports take the numbers of the ones they expire: a number
    // does not name a version, the cost_report_id does.
    expect(again.map((r) => r['report_number']).sort()).toEqual(done.map((r) => r['report_number']).sort());
    expect(done.map((r) => r['report_number']).sort()).toEqual([
      'CostReport_2608100003',
      'CostReport_2608100004',
    ]);
  });

  it("derives the scheduler's month and phase from the date, as _calculate_report_flags_and_report_month", () => {
    const state = world();
    // Issue day 10, adjustment period 3 days (the seeded config).
    expect(scheduledPhase(state, '2026-10-05')).toEqual({ month: '2026-08', phase: 'DONE' });
    expect(scheduledPhase(state, '2026-10-08')).toEqual({ month: '2026-09', phase: 'IN_PROGRESS' });
    expect(scheduledPhase(state, '2026-10-10')).toEqual({ month: '2026-09', phase: 'ADJUSTING' });
    expect(scheduledPhase(state, '2026-10-12')).toEqual({ month: '2026-09', phase: 'ADJUSTING' });
    expect(scheduledPhase(state, '2026-10-13')).toEqual({ month: '2026-09', phase: 'DONE' });
    expect(scheduledPhase(state, '2027-01-02')).toEqual({ month: '2026-11', phase: 'DONE' });
  });
});
