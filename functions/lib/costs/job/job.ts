// The cost job's state: everything one step hands the next, as plain JSON. The inline run keeps it
// in memory; the scheduled state machine keeps it in S3 between its states (job-store.ts), so what
// travels through Step Functions stays a few hundred bytes whatever the number of units or failures.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import type { CompactionSummary } from '../../compaction/compact.ts';
import type { FocusCatalog } from '../../compaction/focus-catalog.ts';
import type { CompactionStateRead } from '../../destination/compaction-state.ts';
import type { DestinationOwner } from '../../destination/destination-claim.ts';
import type { VerifyReport } from '../../destination/verify-destination.ts';
import type { ExportRunDeps } from '../../export/run-deps.ts';
import type { FocusPassSummary } from '../../focus/pass.ts';
import type { Logger } from '../../log.ts';
import type { ReportArchiveSummary } from '../cost-reports/archive.ts';
import type { UnitFailure } from '../days/day-runner.ts';
import type { CostUnitResult } from '../days/export-day.ts';
import type { JobMark } from '../planning/job-marks.ts';
import type { CostRunRequest } from '../planning/plan-export.ts';
import type { MixedDay, NotSyncedDay, PlannedUnit } from '../planning/plan-units.ts';
import type { RetainedWindow } from '../planning/retention.ts';
import type { DataSourceInfo } from '../sources/data-sources.ts';
import type { SyncJob } from '../sources/source-state.ts';
import type { UnifiedRunSummary } from '../unified/export-months.ts';

/** What a cost job runs with: its adapters, settings and stop, whichever entry started it. */
export interface CostJobEnv extends ExportRunDeps {
  readonly client: CloudforetClient;
  readonly runId: string;
  readonly log: Logger;
  /**
   * The app's domain and workspace: names the unified-cost objects ('domain' or the workspace id)
   * and claims the destination for this scope (destination/destination-claim.ts).
   */
  readonly credential?: DestinationOwner;
  /** Days older than this are past Cloudforet's retention (days/export-day.ts DEFAULT_ARCHIVE_AFTER_DAYS). */
  readonly archiveAfterDays?: number;
  /** The focus table's Glue partitions, moved after compaction (compaction/focus-catalog.ts); none: not kept. */
  readonly focusCatalog?: FocusCatalog;
}

/** Which optional steps a job runs: every path sets them from the request the same way (jobOptions). */
export interface CostJobOptions {
  /** False: cost days only, no unified-cost months (the bench measures the day pipeline alone). */
  readonly unifiedCosts: boolean;
  /** False: no focus pass and no compaction (the bench measures the day pipeline alone). */
  readonly focus: boolean;
  /** Archive Cloudforet's cost reports (costs/cost-reports/archive.ts). */
  readonly costReports: boolean;
}

/** The plan as the steps after it need it: plain JSON (the planner's maps and job list left behind). */
export interface JobPlan {
  readonly units: readonly PlannedUnit[];
  readonly unchanged: Readonly<Record<string, number>>;
  readonly skippedSyncing: readonly string[];
  readonly skippedWarehouse: readonly string[];
  readonly mixed: readonly MixedDay[];
  readonly notSynced: readonly NotSyncedDay[];
  readonly staleJobs: readonly SyncJob[];
  readonly reexamined: ReadonlyArray<{ readonly dataSourceId: string; readonly months: readonly string[] }>;
  /** The job-history marks to write for each data source whose units all ran (followJobs only). */
  readonly jobMarks: readonly JobMark[];
}

/** A unit's result as the job keeps it: its figures, not its per-attribution groups. */
export type UnitRecord = Omit<CostUnitResult, 'groups'>;

/** A step the job left out, and why: the summary names it. */
export interface SkippedStep {
  readonly step: string;
  readonly why: string;
  /** True when the step was left for lack of time or a stop: the next run does it. */
  readonly left: boolean;
}

/** The cost-report pass's summary, or why it failed (the rest of the run stands). */
export type CostReportsOutcome = ReportArchiveSummary | { readonly error: string; readonly code: string };

export interface CostJob {
  readonly runId: string;
  readonly startedAt: number;
  readonly request: CostRunRequest;
  readonly options: CostJobOptions;
  /** Where it writes (the sink's location). */
  destination: string;
  staleTemporariesRemoved: number;
  dataSources: readonly DataSourceInfo[];
  window?: RetainedWindow;
  plan?: JobPlan;
  results: UnitRecord[];
  failures: UnitFailure[];
  /** Planned units not started: the run's time ran short, or it was stopped. */
  notStarted: PlannedUnit[];
  /** Units re-exported after planning because their published object was not what its manifest says. */
  repairs: PlannedUnit[];
  unitRetries: number;
  /** Cloudforet requests retried by the states that ran so far (the scheduled path; inline: at the end). */
  requestRetries: number;
  /** The run was stopped by its signal (SIGINT, SIGTERM, the deadline) in some step. */
  interrupted: boolean;
  jobMarksWritten?: number;
  /** compaction_state per daily table as the run found it before lowering it (the compaction step reports a correction against it). */
  compactionStateAtStart?: Record<string, CompactionStateRead>;
  unifiedCosts?: UnifiedRunSummary;
  costReports?: CostReportsOutcome;
  focus?: FocusPassSummary;
  compaction?: CompactionSummary;
  verify?: VerifyReport;
  skipped: SkippedStep[];
}

/** The options every path derives from its request: the scheduled run (followJobs) archives cost reports. */
export function jobOptions(request: CostRunRequest, overrides: Partial<CostJobOptions> = {}): CostJobOptions {
  return {
    unifiedCosts: overrides.unifiedCosts ?? true,
    focus: overrides.focus ?? true,
    costReports: overrides.costReports ?? request.costReports ?? request.followJobs === true,
  };
}

export function newJob(
  runId: string,
  request: CostRunRequest,
  options: CostJobOptions,
  destination: string,
  now: number,
): CostJob {
  return {
    runId,
    startedAt: now,
    request,
    options,
    destination,
    staleTemporariesRemoved: 0,
    dataSources: [],
    results: [],
    failures: [],
    notStarted: [],
    repairs: [],
    unitRetries: 0,
    requestRetries: 0,
    interrupted: false,
    skipped: [],
  };
}

/** The job's units as planned, with the repairs it added after planning. */
export function plannedUnits(job: CostJob): PlannedUnit[] {
  return [...(job.plan?.units ?? []), ...job.repairs];
}

/** A unit's record without its groups (what the job keeps and the Map's reports carry). */
export function unitRecord(result: CostUnitResult): UnitRecord {
  const { groups: _, ...figures } = result;
  return figures;
}
