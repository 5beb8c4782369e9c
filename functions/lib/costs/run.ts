// A cost export run: plan (what changed since the last export), then export the planned units
// with bounded concurrency and bounded unit retries, and summarise whatever happens.
// A failed unit never stops the others.
import { randomUUID } from 'node:crypto';
import type { CloudforetClient } from '../cloudforet/client.ts';
import { type CostUnitDeps, type CostUnitResult, exportCostUnit } from './unit.ts';
import { planCostExport } from './plan-inputs.ts';
import {
  type DataSourceInfo,
  listDataSources,
  selectDataSources,
  virtualWorkspaceMap,
} from './data-sources.ts';
import { attemptUnit, type UnitFailureInfo } from '../export/unit-attempts.ts';
import type { RunProgress } from '../export/run-progress.ts';
import { type Logger, silentLogger } from '../log.ts';
import type { MixedDay, PlannedUnit } from './plan.ts';
import { restating } from './restatements.ts';
import { markJobsSeen, skipReason, warnAboutSources } from './run-reports.ts';
import { forEachLimit } from '../pool.ts';
import { prepareDestination } from '../export/prepare-destination.ts';
import type { DestinationOwner } from '../storage/destination-claim.ts';
import { clampToRetention } from './retention.ts';
import {
  changedDaysByMonth,
  exportUnifiedMonths,
  monthsBetween,
  scopeObjectName,
  type UnifiedRunSummary,
} from './unified-run.ts';
import type { Sink } from '../storage/sink.ts';

export interface CostRunRequest {
  readonly from: string;
  readonly to: string;
  readonly dataSourceIds?: readonly string[];
  /** Export every day, changed or not. */
  readonly force?: boolean;
  /**
   * Also re-examine the months that sync jobs replaced since the last such run, outside the
   * window (the default-window run sets it; an explicit range exports only that range).
   */
  readonly followJobs?: boolean;
  /** An IN_PROGRESS sync job older than this is stale (default 4 h): export anyway, and warn. */
  readonly staleJobAfterMs?: number;
}

export interface CostRunDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly concurrency?: number;
  /** Attempts per unit for retryable failures (drift, transient API errors). */
  readonly unitAttempts?: number;
  readonly runId?: string;
  readonly log?: Logger;
  readonly now?: () => Date;
  readonly rowGroupRows?: number;
  readonly onProgress?: (progress: RunProgress) => void;
  /**
   * The app's domain and workspace: names the unified-cost objects ('domain' or the workspace id)
   * and claims the destination for this scope (storage/destination-claim.ts).
   */
  readonly credential?: DestinationOwner;
  /** Days older than this are past Cloudforet's retention (unit.ts DEFAULT_ARCHIVE_AFTER_DAYS). */
  readonly archiveAfterDays?: number;
  /** False: cost days only, no unified-cost months (the bench measures the day pipeline alone). */
  readonly unifiedCosts?: boolean;
  /** Asked before each unit starts; false leaves it (and the rest) for the next run. */
  readonly shouldStartUnit?: () => boolean;
  /**
   * Ends every unit still running (they fail, their previous objects untouched) and starts no
   * more: the Lambda's deadline, or SIGINT/SIGTERM in the CLI.
   */
  readonly signal?: AbortSignal;
}

export interface UnitFailure extends UnitFailureInfo {
  readonly dataSourceId: string;
  readonly date: string;
}

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
  readonly removed: number;
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
}

export async function runCostExport(deps: CostRunDeps, req: CostRunRequest): Promise<CostRunSummary> {
  const started = Date.now();
  const runId = deps.runId ?? randomUUID();
  const log = (deps.log ?? silentLogger).child({ runId });
  const destination = await prepareDestination(deps.sink, {
    startedAt: new Date(started),
    owner: deps.credential,
    costs: true,
  });
  const dataSources = selectDataSources(await listDataSources(deps.client), req.dataSourceIds);
  const window = clampToRetention(req, deps.now?.() ?? new Date());
  const plan = await planCostExport(deps.client, deps.sink, dataSources, {
    ...req,
    ...window,
    now: deps.now?.(),
  });
  log.info('cost run planned', { units: plan.units.length, skippedSyncInProgress: plan.skippedSyncing });
  warnAboutSources(log, plan);
  const results: CostUnitResult[] = [];
  const failures: UnitFailure[] = [];
  const exec = await unitExecutor({ ...deps, runId, log }, dataSources);
  let rows = 0;
  const notStarted: PlannedUnit[] = [];
  let claimed: Promise<void> | undefined;
  await forEachLimit(plan.units, deps.concurrency ?? 4, async (unit) => {
    if (notStarted.length > 0 || deps.shouldStartUnit?.() === false || deps.signal?.aborted) {
      notStarted.push(unit);
      return;
    }
    // Claimed when the first unit starts: a run that writes nothing leaves nothing behind.
    claimed ??= destination.claim();
    await claimed;
    const outcome = await exec.run(unit);
    if ('code' in outcome) failures.push(outcome);
    else {
      results.push(outcome);
      rows += outcome.rows;
    }
    const unitsDone = results.length + failures.length;
    deps.onProgress?.({ unitsDone, unitsTotal: plan.units.length, rows, elapsedMs: Date.now() - started });
  });
  if (req.followJobs) await markJobsSeen(deps.sink, plan, dataSources, failures);
  const unifiedCosts = await exportUnifiedMonths(
    { ...deps, runId, log, scope: scopeObjectName(deps.credential) },
    // Past the deadline the months wait for the rerun that `left` asks for, with the days.
    deps.unifiedCosts === false || notStarted.length > 0 ? [] : monthsBetween(req.from, req.to),
    changedDaysByMonth(plan.units, results),
  );
  const count = (o: CostUnitResult['outcome']) => results.filter((r) => r.outcome === o).length;
  const summary: CostRunSummary = {
    runId,
    table: 'costs',
    destination: deps.sink.location,
    from: req.from,
    to: req.to,
    force: req.force ?? false,
    dataSources: dataSources.length,
    units: plan.units.length,
    written: count('written'),
    removed: count('removed'),
    kept: count('kept'),
    unchanged: [...plan.unchanged.values()].reduce((a, b) => a + b, 0),
    failed: failures.length + unifiedCosts.failures.length,
    notStarted: notStarted.length,
    ...(notStarted.length > 0 ? { left: leftToDo(notStarted) } : {}),
    repaired: plan.units.filter((u) => u.reason === 'repair').length,
    beyondRetention: window.beyondRetention.length * dataSources.length,
    ...(window.beyondRetention.length > 0 ? { retainedFrom: window.from } : {}),
    interrupted: deps.signal?.aborted === true,
    staleTemporariesRemoved: destination.staleTemporariesRemoved,
    skippedSyncInProgress: plan.skippedSyncing,
    skippedWarehouse: plan.skippedWarehouse,
    staleJobs: plan.staleJobs.map((j) => ({
      dataSourceId: j.dataSourceId,
      jobId: j.jobId,
      since: j.createdAt,
    })),
    mixed: plan.mixed,
    reexamined: [...plan.reexamined].map(([dataSourceId, months]) => ({ dataSourceId, months })),
    rows,
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    unitRetries: exec.retries() + unifiedCosts.retries,
    requestRetries: deps.client.retries,
    durationMs: Date.now() - started,
    perDataSource: dataSources.map((d) => ({
      dataSourceId: d.id,
      exported: results.filter((r) => r.dataSourceId === d.id).length,
      unchanged: plan.unchanged.get(d.id) ?? 0,
      failed: failures.filter((f) => f.dataSourceId === d.id).length,
      skippedSyncInProgress: plan.skippedSyncing.includes(d.id),
      ...skipReason(plan, d.id),
    })),
    failures: failures.sort(
      (a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId),
    ),
    unifiedCosts,
  };
  log.info('cost export finished', {
    ...summary,
    perDataSource: undefined,
    failures: summary.failures.slice(0, 20),
  });
  return summary;
}

function leftToDo(units: readonly PlannedUnit[]): string {
  const dates = units.map((u) => u.date).sort();
  return (
    `${units.length} units not started for lack of time (${dates[0]}..${dates.at(-1)}): run the same event again ` +
    '(exported days are unchanged and skipped), or use the backfill state machine for long ranges'
  );
}

/** Exports one planned unit with bounded retries; shared by the inline run and the Step Functions worker. */
export async function unitExecutor(
  deps: Omit<CostRunDeps, 'onProgress' | 'concurrency'> & { runId: string; log: Logger },
  dataSources: readonly DataSourceInfo[],
): Promise<{ run(unit: PlannedUnit): Promise<CostUnitResult | UnitFailure>; retries(): number }> {
  const byId = new Map(dataSources.map((d) => [d.id, d]));
  const workspaceOfVirtual = await virtualWorkspaceMap(deps.client);
  const unitDeps: CostUnitDeps = { ...deps, workspaceOfVirtual, syncStamps: new Map() };
  let retries = 0;
  const run = async (planned: PlannedUnit): Promise<CostUnitResult | UnitFailure> => {
    const unit = { dataSource: byId.get(planned.dataSourceId)!, date: planned.date, jobId: planned.jobId };
    const { dataSourceId, date } = planned;
    const fields = { dataSourceId, billedDate: date, reason: planned.reason };
    const outcome = await attemptUnit(
      { what: 'cost unit', log: deps.log, fields, attempts: deps.unitAttempts },
      restating(deps.sink, { ...planned, runId: deps.runId }, () => exportCostUnit(unitDeps, unit)),
    );
    retries += outcome.retries;
    return outcome.ok ? outcome.value : { dataSourceId, date, ...outcome.failure };
  };
  return { run, retries: () => retries };
}
