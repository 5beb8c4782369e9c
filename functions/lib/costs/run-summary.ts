// What a cost run reports: its summary type and how it is assembled from the run's parts.
import type { ReportArchiveSummary } from './reports/archive.ts';
import type { CompactionSummary } from '../compaction/compact.ts';
import type { FocusPassSummary } from '../focus/pass.ts';
import type { VerifyReport } from '../storage/verify-destination.ts';
import type { DataSourceInfo } from './sources/data-sources.ts';
import type { CostExportPlan } from './planning/plan-export.ts';
import type { MixedDay, NotSyncedDay, PlannedUnit } from './planning/plan-units.ts';
import type { RetainedWindow } from './planning/retention.ts';
import { skipReason } from './planning/plan-reports.ts';
import type { UnifiedRunSummary } from './unified/export-months.ts';
import type { UnitFailure } from './days/day-runner.ts';
import type { CostUnitResult } from './days/export-day.ts';

export type { UnitFailure } from './days/day-runner.ts';

export interface DataSourceSummary {
  readonly dataSourceId: string;
  readonly exported: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly skippedSyncInProgress: boolean;
  /** Why nothing of this data source was looked at, when so. */
  readonly skipped?: 'sync-in-progress' | 'warehouse';
}

export interface StaleJobReport {
  readonly dataSourceId: string;
  readonly jobId: string;
  readonly since: string;
}

export interface CostRunSummary {
  readonly runId: string;
  readonly table: 'costs';
  readonly destination: string;
  readonly from: string;
  readonly to: string;
  readonly force: boolean;
  readonly dataSources: number;
  /** Units exported (planned); unchanged days are not units. */
  readonly units: number;
  readonly written: number;
  /** Units whose published object was deleted: their day lost every row. */
  readonly removed: number;
  /** Units with no rows and nothing published: a manifest says so, nothing was removed. */
  readonly empty: number;
  readonly kept: number;
  readonly unchanged: number;
  readonly failed: number;
  /** Units re-exported because their object was missing or of another size. */
  readonly repaired: number;
  /** (data source, day) pairs of the range older than Cloudforet's retention: not exported, archive kept. */
  readonly beyondRetention: number;
  /** The first day of the range Cloudforet still holds, when the range reached further back. */
  readonly retainedFrom?: string;
  /** The run was stopped by its signal (SIGINT, SIGTERM, the deadline). */
  readonly interrupted: boolean;
  /** Temporary files of killed runs removed before this one started. */
  readonly staleTemporariesRemoved: number;
  /** Planned units left unstarted because the run's time ran short. */
  readonly notStarted: number;
  /** What is left and how to finish it, when notStarted > 0. */
  readonly left?: string;
  readonly skippedSyncInProgress: readonly string[];
  /** WAREHOUSE data sources: current Cloudforet releases cannot list their costs. */
  readonly skippedWarehouse: readonly string[];
  /** Running syncs too old to be alive: the data source was exported, and no longer syncs. */
  readonly staleJobs: readonly StaleJobReport[];
  /** Days holding rows of several sync jobs; `publishedJobId` undefined: the previous object kept. */
  readonly mixed: readonly MixedDay[];
  /** Days a failed or stale sync began before they were synced: published objects kept, exit 0. */
  readonly notSynced: readonly NotSyncedDay[];
  /** Months outside the window re-examined because a sync job replaced them. */
  readonly reexamined: ReadonlyArray<{ readonly dataSourceId: string; readonly months: readonly string[] }>;
  readonly rows: number;
  readonly bytes: number;
  readonly unitRetries: number;
  readonly requestRetries: number;
  readonly durationMs: number;
  readonly perDataSource: readonly DataSourceSummary[];
  readonly failures: readonly UnitFailure[];
  /** The months of the run as unified costs; their failures are counted in `failed`. */
  readonly unifiedCosts: UnifiedRunSummary;
  /** The focus table's pass (absent when the run left units unstarted); failures count in `failed`. */
  readonly focus?: FocusPassSummary;
  /** The cost-report pass (costReports on); its failure counts in `failed`. */
  readonly costReports?: CostReportsOutcome;
  /** Confirmed months compacted (absent when the run left units unstarted or had no focus pass); failures count in `failed`. */
  readonly compaction?: CompactionSummary;
  /** --verify: what the whole-destination verifier checked after the run's repairs, and what it still found. */
  readonly verify?: VerifyReport;
}

/** Everything a finished run knows, for its summary. */
export interface CostRunParts {
  readonly runId: string;
  readonly destination: string;
  readonly req: { readonly from: string; readonly to: string; readonly force?: boolean };
  readonly window: RetainedWindow;
  readonly dataSources: readonly DataSourceInfo[];
  readonly plan: CostExportPlan;
  readonly results: readonly CostUnitResult[];
  readonly failures: readonly UnitFailure[];
  readonly notStarted: readonly PlannedUnit[];
  readonly unifiedCosts: UnifiedRunSummary;
  readonly focus?: FocusPassSummary;
  readonly costReports?: CostReportsOutcome;
  readonly compaction?: CompactionSummary;
  /** --verify: what the whole-destination verifier checked after the run's repairs, and what it still found. */
  readonly verify?: VerifyReport;
  readonly retries: number;
  readonly requestRetries: number;
  readonly interrupted: boolean;
  readonly staleTemporariesRemoved: number;
  readonly durationMs: number;
}

/** The cost-report pass's summary, or why it failed (the rest of the run stands). */
export type CostReportsOutcome = ReportArchiveSummary | { readonly error: string; readonly code: string };

/**
 * What the cost-report pass adds to `failed`: 1 when it failed whole, else one per report whose data
 * rows answered none (COST_REPORT_DATA_UNANSWERED): a report not archived because its rows never
 * came is a failure of the run, not a success to ask about again tomorrow.
 */
export function reportFailures(r: CostReportsOutcome | undefined): number {
  if (!r) return 0;
  return 'error' in r ? 1 : r.dataUnanswered.length;
}

export function costRunSummary(r: CostRunParts): CostRunSummary {
  const count = (o: CostUnitResult['outcome']) => r.results.filter((x) => x.outcome === o).length;
  return {
    runId: r.runId,
    table: 'costs',
    destination: r.destination,
    from: r.req.from,
    to: r.req.to,
    force: r.req.force ?? false,
    dataSources: r.dataSources.length,
    units: r.plan.units.length,
    written: count('written'),
    removed: count('removed'),
    empty: count('empty'),
    kept: count('kept'),
    unchanged: [...r.plan.unchanged.values()].reduce((a, b) => a + b, 0),
    failed:
      r.failures.length +
      r.unifiedCosts.failures.length +
      (r.focus?.failures.length ?? 0) +
      reportFailures(r.costReports) +
      (r.compaction?.tables.reduce((n, t) => n + t.failures.length, 0) ?? 0) +
      (r.verify?.findings.length ?? 0),
    notStarted: r.notStarted.length,
    ...(r.notStarted.length > 0 ? { left: leftToDo(r.notStarted) } : {}),
    repaired: r.plan.units.filter((u) => u.reason === 'repair').length,
    beyondRetention: r.window.beyondRetention.length * r.dataSources.length,
    ...(r.window.beyondRetention.length > 0 ? { retainedFrom: r.window.from } : {}),
    interrupted: r.interrupted,
    staleTemporariesRemoved: r.staleTemporariesRemoved,
    skippedSyncInProgress: r.plan.skippedSyncing,
    skippedWarehouse: r.plan.skippedWarehouse,
    staleJobs: r.plan.staleJobs.map((j) => ({
      dataSourceId: j.dataSourceId,
      jobId: j.jobId,
      since: j.createdAt,
    })),
    mixed: r.plan.mixed,
    notSynced: r.plan.notSynced,
    reexamined: [...r.plan.reexamined].map(([dataSourceId, months]) => ({ dataSourceId, months })),
    rows: r.results.reduce((n, x) => n + x.rows, 0),
    bytes: r.results.reduce((n, x) => n + x.bytes, 0),
    unitRetries: r.retries,
    requestRetries: r.requestRetries,
    durationMs: r.durationMs,
    perDataSource: r.dataSources.map((d) => ({
      dataSourceId: d.id,
      exported: r.results.filter((x) => x.dataSourceId === d.id).length,
      unchanged: r.plan.unchanged.get(d.id) ?? 0,
      failed: r.failures.filter((f) => f.dataSourceId === d.id).length,
      skippedSyncInProgress: r.plan.skippedSyncing.includes(d.id),
      ...skipReason(r.plan, d.id),
    })),
    failures: [...r.failures].sort(
      (a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId),
    ),
    unifiedCosts: r.unifiedCosts,
    ...(r.focus && { focus: r.focus }),
    ...(r.costReports && { costReports: r.costReports }),
    ...(r.compaction && { compaction: r.compaction }),
    ...(r.verify && { verify: r.verify }),
  };
}

function leftToDo(units: readonly PlannedUnit[]): string {
  const dates = units.map((u) => u.date).sort();
  return (
    `${units.length} units not started for lack of time (${dates[0]}..${dates.at(-1)}): run the same event again ` +
    '(exported days are unchanged and skipped), or use the backfill state machine for long ranges'
  );
}
