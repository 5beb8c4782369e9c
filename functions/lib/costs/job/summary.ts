// What a cost job reports, on every path: its summary type and how it is assembled from the job.
import type { CompactionSummary } from '../../compaction/compact.ts';
import type { VerifyReport } from '../../destination/verify-destination.ts';
import type { FocusPassSummary } from '../../focus/pass.ts';
import type { UnitFailure } from '../days/day-runner.ts';
import type { CostUnitResult } from '../days/export-day.ts';
import { skipReason } from '../planning/plan-notes.ts';
import type { MixedDay, NotSyncedDay } from '../planning/plan-units.ts';
import type { UnifiedRunSummary } from '../unified/export-months.ts';
import { type CostJob, type CostReportsOutcome, type JobPlan, plannedUnits } from './job.ts';

export type { UnitFailure } from '../days/day-runner.ts';

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
  /** FOCUS units the focus pass left unstarted for lack of time (the next run derives them). */
  readonly focusNotStarted?: number;
  /** What is left and how to finish it: units or FOCUS units not started, steps left out by a stop. */
  readonly left?: string;
  /** Steps left out because the run was stopped or its units were not all started: the next run does them. */
  readonly stepsLeft: ReadonlyArray<{ readonly step: string; readonly why: string }>;
  /** Job-history marks written (default-window runs): data sources all of whose units ran. */
  readonly jobMarksWritten?: number;
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

export type { CostReportsOutcome } from './job.ts';

/** The job's summary, on every path: what the CLI prints, the Lambda returns and the state machine's Summary reports. */
export function costRunSummary(
  job: CostJob,
  run: { readonly requestRetries: number; readonly durationMs: number },
): CostRunSummary {
  const plan = job.plan ?? EMPTY_PLAN;
  const window = job.window ?? { from: job.request.from, to: job.request.to, beyondRetention: [] };
  const units = plannedUnits(job);
  const count = (o: CostUnitResult['outcome']) => job.results.filter((x) => x.outcome === o).length;
  const focusLeft = job.focus?.notStarted ?? 0;
  const left = leftToDo(job);
  return {
    runId: job.runId,
    table: 'costs',
    destination: job.destination,
    from: job.request.from,
    to: job.request.to,
    force: job.request.force ?? false,
    dataSources: job.dataSources.length,
    units: units.length,
    written: count('written'),
    removed: count('removed'),
    empty: count('empty'),
    kept: count('kept'),
    unchanged: Object.values(plan.unchanged).reduce((a, b) => a + b, 0),
    failed:
      job.failures.length +
      (job.unifiedCosts?.failures.length ?? 0) +
      (job.focus?.failures.length ?? 0) +
      reportFailures(job.costReports) +
      (job.compaction?.tables.reduce((n, t) => n + t.failures.length, 0) ?? 0) +
      (job.verify?.findings.length ?? 0),
    notStarted: job.notStarted.length,
    ...(focusLeft > 0 ? { focusNotStarted: focusLeft } : {}),
    ...(left ? { left } : {}),
    stepsLeft: job.skipped.filter((s) => s.left).map(({ step, why }) => ({ step, why })),
    repaired: units.filter((u) => u.reason === 'repair').length,
    beyondRetention: window.beyondRetention.length * job.dataSources.length,
    ...(window.beyondRetention.length > 0 ? { retainedFrom: window.from } : {}),
    interrupted: job.interrupted,
    staleTemporariesRemoved: job.staleTemporariesRemoved,
    skippedSyncInProgress: plan.skippedSyncing,
    skippedWarehouse: plan.skippedWarehouse,
    staleJobs: plan.staleJobs.map((j) => ({
      dataSourceId: j.dataSourceId,
      jobId: j.jobId,
      since: j.createdAt,
    })),
    mixed: plan.mixed,
    notSynced: plan.notSynced,
    reexamined: plan.reexamined,
    ...(job.jobMarksWritten !== undefined ? { jobMarksWritten: job.jobMarksWritten } : {}),
    rows: job.results.reduce((n, x) => n + x.rows, 0),
    bytes: job.results.reduce((n, x) => n + x.bytes, 0),
    unitRetries: job.unitRetries + (job.unifiedCosts?.retries ?? 0),
    requestRetries: run.requestRetries,
    durationMs: run.durationMs,
    perDataSource: job.dataSources.map((d) => ({
      dataSourceId: d.id,
      exported: job.results.filter((x) => x.dataSourceId === d.id).length,
      unchanged: plan.unchanged[d.id] ?? 0,
      failed: job.failures.filter((f) => f.dataSourceId === d.id).length,
      skippedSyncInProgress: plan.skippedSyncing.includes(d.id),
      ...skipReason(plan, d.id),
    })),
    failures: [...job.failures].sort(
      (a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId),
    ),
    unifiedCosts: job.unifiedCosts ?? {
      scope: '',
      months: [],
      failures: [],
      restatedConfirmedMonths: [],
      retries: 0,
    },
    ...(job.focus && { focus: job.focus }),
    ...(job.costReports && { costReports: job.costReports }),
    ...(job.compaction && { compaction: job.compaction }),
    ...(job.verify && { verify: job.verify }),
  };
}

/**
 * What the cost-report pass adds to `failed`: 1 when it failed whole, else one per report whose data
 * rows answered none (COST_REPORT_DATA_UNANSWERED): a report not archived because its rows never
 * came is a failure of the run, not a success to ask about again tomorrow.
 */
export function reportFailures(r: CostReportsOutcome | undefined): number {
  if (!r) return 0;
  return 'error' in r ? 1 : r.dataUnanswered.length;
}

const EMPTY_PLAN: JobPlan = {
  units: [],
  unchanged: {},
  skippedSyncing: [],
  skippedWarehouse: [],
  mixed: [],
  notSynced: [],
  staleJobs: [],
  reexamined: [],
  jobMarks: [],
};

/** What the job left for the next run, and how to finish it; undefined when it left nothing. */
function leftToDo(job: CostJob): string | undefined {
  const parts: string[] = [];
  if (job.notStarted.length > 0) {
    const dates = job.notStarted.map((u) => u.date).sort();
    parts.push(
      `${job.notStarted.length} units not started for lack of time (${dates[0]}..${dates.at(-1)}): run the same event again ` +
        '(exported days are unchanged and skipped), or use the backfill state machine for long ranges',
    );
  }
  if ((job.focus?.notStarted ?? 0) > 0)
    parts.push(
      `${job.focus!.notStarted} FOCUS units not started for lack of time: the next run derives them`,
    );
  const steps = job.skipped.filter((s) => s.left).map((s) => s.step);
  if (steps.length > 0) parts.push(`steps left for the next run: ${steps.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * Why a scheduled execution fails although its states returned: failures, a Finish state that
 * failed, or work left for the next run (which does it; the execution says so, loudly).
 */
export function scheduledFailure(
  s: CostRunSummary & { readonly finishError?: { readonly Error?: string; readonly Cause?: string } },
): string | undefined {
  const parts: string[] = [];
  if (s.finishError)
    parts.push(
      `the Finish state failed (${s.finishError.Error ?? 'Error'}: ${(s.finishError.Cause ?? '').slice(0, 500)})`,
    );
  if (s.failed > 0)
    parts.push(
      `${s.failed} failed` +
        (s.failures.length > 0
          ? `: ${JSON.stringify(s.failures.slice(0, 10).map(({ dataSourceId, date, code }) => ({ dataSourceId, date, code })))}`
          : ''),
    );
  if (s.left) parts.push(`left for the next run: ${s.left}`);
  return parts.length > 0 ? `cost job ${s.runId}: ${parts.join('; ')}` : undefined;
}
