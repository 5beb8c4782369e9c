// A cost export run: plan (what changed since the last export), then export the planned units
// with bounded concurrency and bounded unit retries, and summarise whatever happens.
// A failed unit never stops the others.
import { UNIT_INTERRUPTED } from '../export/unit-attempts.ts';
import type { ExportRunDeps } from '../export/run-deps.ts';
import { randomUUID } from 'node:crypto';
import {
  type CostReportsOutcome,
  costRunSummary,
  type CostRunSummary,
  type UnitFailure,
} from './run-summary.ts';

export type { CostRunSummary, UnitFailure } from './run-summary.ts';
import { unitExecutor } from './days/day-runner.ts';
import type { CostUnitResult } from './days/export-day.ts';
import { type CostRunRequest, planCostExport } from './planning/plan-export.ts';

export type { CostRunRequest } from './planning/plan-export.ts';
import { listDataSources, selectDataSources } from './sources/data-sources.ts';
import { type Logger, silentLogger } from '../log.ts';
import { errorCode, errorMessage } from '../errors.ts';
import type { PlannedUnit } from './planning/plan-units.ts';
import { jobMarksOf, warnAboutSources } from './planning/plan-reports.ts';
import { writeJobMarks } from './planning/job-marks.ts';
import { forEachLimit, Gate } from '../pool.ts';
import { prepareDestination } from '../export/prepare-destination.ts';
import { leaveCompactionFor } from '../storage/compaction-state.ts';
import type { DestinationOwner } from '../storage/destination-claim.ts';
import { retentionStart } from './planning/job-history.ts';
import { clampToRetention } from './planning/retention.ts';
import { rollUp } from '../export/ledger-rollup.ts';
import { exportFocus, type FocusPassSummary } from '../focus/pass.ts';
import { type CompactionSummary, compactConfirmedMonths } from '../compaction/compact.ts';
import { type VerifyReport, verifyDestination } from '../storage/verify-destination.ts';
import type { Sink } from '../storage/sink.ts';
import { archiveCostReports, type ReportArchiveDeps } from './reports/archive.ts';
import {
  changedDaysByMonth,
  exportUnifiedMonths,
  retainedMonths,
  scopeObjectName,
} from './unified/export-months.ts';

export interface CostRunDeps extends ExportRunDeps {
  /**
   * The app's domain and workspace: names the unified-cost objects ('domain' or the workspace id)
   * and claims the destination for this scope (storage/destination-claim.ts).
   */
  readonly credential?: DestinationOwner;
  /** Days older than this are past Cloudforet's retention (days/export-day.ts DEFAULT_ARCHIVE_AFTER_DAYS). */
  readonly archiveAfterDays?: number;
  /** False: cost days only, no unified-cost months (the bench measures the day pipeline alone). */
  readonly unifiedCosts?: boolean;
  /** False: no focus pass (the bench measures the day pipeline alone). */
  readonly focus?: boolean;
  /** True: archive Cloudforet's cost reports too (costs/reports/archive.ts). */
  readonly costReports?: boolean;
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
  // Claimed once Cloudforet has answered and before planning: of two scopes racing, one plans.
  await destination.claim();
  const window = clampToRetention(req, deps.now?.() ?? new Date());
  const plan = await planCostExport(deps.client, deps.sink, dataSources, {
    ...req,
    ...window,
    now: deps.now?.(),
  });
  log.info('cost run planned', { units: plan.units.length, skippedSyncInProgress: plan.skippedSyncing });
  warnAboutSources(log, plan);
  // Before any unit: views read the months the plan changes from their days (one writer, no unit).
  const leaveCompaction = (units: readonly PlannedUnit[]) =>
    leaveCompactionFor(
      deps.sink,
      units.map((u) => u.date.slice(0, 7)),
      (table, why) =>
        log.warn('compaction_state unreadable: every month read from its days until the compaction step', {
          table,
          why,
        }),
    );
  const stateAtStart = await leaveCompaction(plan.units);
  const results: CostUnitResult[] = [];
  const failures: UnitFailure[] = [];
  // `concurrency` units page at once, each holding a place from its start to its last page; one
  // more may be publishing meanwhile (its last checks, commit, ledger and manifest), so no place
  // waits for that. A unit waiting for a place has not started. A unit retried after its pages
  // came (a failed commit) pages again without a place: rare, and bounded by the units running.
  const concurrency = deps.concurrency ?? 4;
  const paging = new Gate(concurrency);
  const exec = await unitExecutor({ ...deps, runId, log }, dataSources);
  let rows = 0;
  const notStarted: PlannedUnit[] = [];
  await forEachLimit(plan.units, concurrency + 1, async (unit) => {
    const leave = await paging.enter();
    try {
      if (notStarted.length > 0 || deps.shouldStartUnit?.() === false || deps.signal?.aborted) {
        notStarted.push(unit);
        return;
      }
      const outcome = await exec.run(unit, leave);
      if ('code' in outcome) failures.push(outcome);
      else {
        results.push(outcome);
        rows += outcome.rows;
      }
    } finally {
      leave();
    }
    const unitsDone = results.length + failures.length;
    deps.onProgress?.({ unitsDone, unitsTotal: plan.units.length, rows, elapsedMs: Date.now() - started });
  });
  if (req.followJobs) await writeJobMarks(deps.sink, jobMarksOf(plan, dataSources), failures);
  const phase = (name: string) =>
    deps.onProgress?.({
      unitsDone: results.length + failures.length,
      unitsTotal: plan.units.length,
      rows,
      elapsedMs: Date.now() - started,
      phase: name,
    });
  if (deps.unifiedCosts !== false && notStarted.length === 0) phase('unified costs of the months');
  const unifiedCosts = await exportUnifiedMonths(
    { ...deps, runId, log, scope: scopeObjectName(deps.credential) },
    // Past the deadline the months wait for the rerun that `left` asks for, with the days.
    deps.unifiedCosts === false || notStarted.length > 0
      ? []
      : unifiedMonthsOf(window, req.to, results, deps.now?.() ?? new Date()),
    changedDaysByMonth(plan.units, results),
  );
  if (deps.costReports === true && notStarted.length === 0) phase('cost reports');
  const costReports =
    deps.costReports === true && notStarted.length === 0
      ? await costReportsOrFailure({ ...deps, runId, log })
      : undefined;
  // After the days: it derives FOCUS rows from the costs objects this run (or any before) published.
  if (deps.focus !== false && notStarted.length === 0) phase('FOCUS rows of the days');
  const focusPass = () => focusOrFailure({ ...deps, runId, log, verify: req.verify === true }, window);
  let focus = deps.focus === false || notStarted.length > 0 ? undefined : await focusPass();
  // A costs object that is not what its manifest says (FOCUS_SOURCE_DAMAGED: its bytes, or the
  // manifest's checksum, changed behind the run's back) is re-exported from Cloudforet at once and
  // its FOCUS rows derived again, rather than failing every run until someone runs --verify.
  const retained = retentionStart(deps.now?.() ?? new Date());
  const suspects = (focus?.failures ?? []).filter(
    (f) => f.code === 'FOCUS_SOURCE_DAMAGED' && f.date >= retained,
  );
  const repairs: PlannedUnit[] = suspects.map((f) => ({
    dataSourceId: f.dataSourceId,
    date: f.date,
    reason: 'repair',
  }));
  if (repairs.length > 0 && !deps.signal?.aborted) {
    log.warn('costs objects unlike their manifests; re-exporting them', { units: repairs.length });
    await leaveCompaction(repairs);
    for (const unit of repairs) {
      const outcome = await exec.run(unit, () => undefined);
      if ('code' in outcome) failures.push(outcome);
      else results.push(outcome);
    }
    focus = await focusPass();
  }
  // After the days and their FOCUS rows: confirmed months compacted, stale monthly objects rebuilt
  // (compaction/compact.ts). Only after a whole run: a month is compacted from all of its days.
  if (focus !== undefined) phase('compaction of confirmed months');
  const compaction =
    focus === undefined || deps.signal?.aborted
      ? undefined
      : await compactionOrFailure({ ...deps, runId, log, stateAtStart });
  // --verify: after the run's own repairs, the whole destination, every table (storage/verify-destination.ts).
  const verifying = req.verify === true && notStarted.length === 0 && !deps.signal?.aborted;
  if (verifying) phase('check of every object against its manifest');
  const verify = verifying ? await verifyOrStopped(deps.sink, deps.signal, log) : undefined;
  // Stopped (the deadline, a signal): the next run rolls this one's lines up.
  if (!deps.signal?.aborted) await rollUp(deps.sink, deps.now?.() ?? new Date(), log);
  const summary = costRunSummary({
    runId,
    destination: deps.sink.location,
    req,
    window,
    dataSources,
    plan: repairs.length > 0 ? { ...plan, units: [...plan.units, ...repairs] } : plan,
    results,
    failures,
    notStarted,
    unifiedCosts,
    focus,
    costReports,
    compaction,
    verify,
    retries: exec.retries() + unifiedCosts.retries,
    requestRetries: deps.client.retries,
    interrupted: deps.signal?.aborted === true,
    staleTemporariesRemoved: destination.staleTemporariesRemoved,
    durationMs: Date.now() - started,
  });
  log.info('cost export finished', {
    ...summary,
    perDataSource: undefined,
    failures: summary.failures.slice(0, 20),
  });
  return summary;
}

/** The cost-report pass; a failure is the run's one failed part, not the end of the run. */
async function costReportsOrFailure(deps: ReportArchiveDeps): Promise<CostReportsOutcome> {
  try {
    return await archiveCostReports(deps);
  } catch (error) {
    const code = errorCode(error);
    deps.log.error('cost reports failed', { code, error: errorMessage(error) });
    return { error: errorMessage(error), code };
  }
}

/**
 * The window's months, and every month a day of which this run re-exported outside the window (a
 * restatement the job history found, a repair): the unified costs follow their days everywhere.
 */
function unifiedMonthsOf(
  window: { readonly from: string },
  to: string,
  results: ReadonlyArray<{ date: string; outcome: string }>,
  now: Date,
): string[] {
  const months = new Set(retainedMonths(window, to));
  const retained = retentionStart(now);
  for (const r of results) if (r.outcome !== 'kept' && r.date >= retained) months.add(r.date.slice(0, 7));
  return [...months].sort();
}

/** The focus pass, or its failure as a summary (an S3 outage in it must not hide the run's summary). */
async function focusOrFailure(
  deps: Parameters<typeof exportFocus>[0],
  window: { readonly from: string; readonly to: string },
): Promise<FocusPassSummary> {
  try {
    return await exportFocus(deps, window);
  } catch (error) {
    // Stopped by the run's signal (SIGINT, SIGTERM, the deadline): said as such, not as a failure.
    const stopped = deps.signal?.aborted === true;
    const failure = {
      dataSourceId: '*',
      date: `${window.from}..${window.to}`,
      code: stopped ? UNIT_INTERRUPTED : errorCode(error),
      message: stopped
        ? `stopped before it finished (${errorMessage(deps.signal?.reason)}); rerun to derive the FOCUS rows`
        : errorMessage(error),
    };
    if (stopped) deps.log?.warn('focus pass stopped', { ...failure });
    else deps.log?.error('focus pass failed', { ...failure });
    return { written: 0, removed: 0, current: 0, repaired: 0, rows: 0, failures: [failure], notStarted: 0 };
  }
}

/** The verifier's walk; stopped by the run's signal, no report (the stop is the run's summary). */
async function verifyOrStopped(
  sink: Sink,
  signal: AbortSignal | undefined,
  log: Logger,
): Promise<VerifyReport | undefined> {
  try {
    return await verifyDestination(sink, { checksums: true, signal });
  } catch (error) {
    if (!signal?.aborted) throw error;
    log.warn('verification stopped (rerun costs --verify to check every object)', {
      reason: errorMessage(signal.reason),
    });
    return undefined;
  }
}

/** The compaction step, or its failure as a summary: the views keep reading the days meanwhile. */
async function compactionOrFailure(
  deps: Parameters<typeof compactConfirmedMonths>[0],
): Promise<CompactionSummary> {
  try {
    return await compactConfirmedMonths(deps);
  } catch (error) {
    const failure = { dataSourceId: '*', month: '*', code: errorCode(error), message: errorMessage(error) };
    deps.log?.error('compaction failed', { ...failure });
    return {
      tables: [
        { table: '*', written: 0, removed: 0, current: 0, rows: 0, failures: [failure], notStarted: 0 },
      ],
    };
  }
}
