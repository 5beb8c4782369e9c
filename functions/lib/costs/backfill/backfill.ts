// Backfills on Step Functions: plan once (units to S3, read by a Distributed Map), export each
// unit in its own invocation, then summarise from the manifests the units wrote.
import { archiveCostReports } from '../reports/archive.ts';
import type { Compression } from '../../export/listing-export.ts';
import type { CloudforetClient } from '../../cloudforet/client.ts';
import type { CostUnitResult } from '../days/export-day.ts';
import { type CostRunRequest, planCostExport } from '../planning/plan-export.ts';
import { unitExecutor } from '../days/day-runner.ts';
import { listDataSources, selectDataSources } from '../sources/data-sources.ts';
import { isIsoDate } from '../../dates.ts';
import { errorCode, errorMessage, EventError, UnitFailedError, UnitRetryableError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { PlannedUnit } from '../planning/plan-units.ts';
import { leaveCompactionFor } from '../../storage/compaction-state.ts';
import { backfillUnitsKey } from '../../storage/layout.ts';
import type { Sink } from '../../storage/sink.ts';
import { prepareDestination } from '../../export/prepare-destination.ts';
import type { DestinationOwner } from '../../storage/destination-claim.ts';
import type { JobMark } from '../planning/job-marks.ts';
import { clampToRetention } from '../planning/retention.ts';
import { jobMarksOf, warnAboutSources } from '../planning/plan-reports.ts';
import {
  changedDaysByMonth,
  exportUnifiedMonths,
  retainedMonths,
  scopeObjectName,
  type UnifiedRunSummary,
} from '../unified/export-months.ts';

export interface BackfillDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly log: Logger;
  /**
   * The app's scope: names the unified-cost objects ('domain' or the workspace id) and claims the
   * destination for it, as the inline run does (storage/destination-claim.ts).
   */
  readonly credential?: DestinationOwner;
  /** Parquet page codec (PARQUET_COMPRESSION); the writer's default unless set. */
  readonly compression?: Compression;
  /** The unit function's deadline: a unit it ends fails as UNIT_INTERRUPTED, untouched, and is retried. */
  readonly signal?: AbortSignal;
}

/** The unified-cost months the plan step exported (small: it travels in the execution's state). */
export interface BackfillUnifiedCosts {
  readonly scope: string;
  readonly months: ReadonlyArray<{ month: string; rows: number; isConfirmed: boolean }>;
  readonly failures: ReadonlyArray<{ month: string; code: string; message: string }>;
  readonly restatedConfirmedMonths: UnifiedRunSummary['restatedConfirmedMonths'];
}

export interface BackfillPlan {
  readonly runId: string;
  readonly from: string;
  readonly to: string;
  readonly force: boolean;
  readonly units: number;
  readonly unchanged: number;
  readonly skippedSyncInProgress: readonly string[];
  /** Key (relative to the sink) of the JSON array of units, the Distributed Map's items. */
  readonly unitsKey: string;
  readonly unifiedCosts?: BackfillUnifiedCosts;
  /** Days of the range (per data source) before Cloudforet's retention: not planned, archives kept. */
  readonly beyondRetention?: number;
  /** The first day planned when the range reached past retention. */
  readonly retainedFrom?: string;
  /**
   * Default-window backfills: the job-history marks to write for each data source whose units all
   * exported (the summary writes them), so the next run does not re-examine those months again.
   */
  readonly jobMarks?: readonly JobMark[];
  /** Months outside the window re-examined because a sync job replaced them since the last marks. */
  readonly reexamined?: ReadonlyArray<{ dataSourceId: string; months: readonly string[] }>;
  /** The daily (default-window) plan also archives cost reports: what it did, or why it failed. */
  readonly costReports?: BackfillCostReports;
  /** Set by the Focus state: what the focus pass derived, and its failures. */
  readonly focus?: BackfillFocus;
  /** Set by the Focus state when its function failed (Step Functions' Error and Cause). */
  readonly focusError?: { readonly Error?: string; readonly Cause?: string };
}

/** Counts only: the plan travels through Step Functions' state (256 KB). */
export type BackfillCostReports =
  | {
      readonly listed: number;
      readonly archived: number;
      readonly draftsWritten: number;
      /** Reports whose data listing answered no rows: not archived this run, asked again next run. */
      readonly dataUnanswered: number;
      readonly facts: number;
      readonly regenerated: number;
      /** Regenerations already past at the archive's first pass over their month (not alerted). */
      readonly regeneratedBeforeFirstPass: number;
      readonly skipped?: string;
    }
  | { readonly code: string; readonly error: string };

export interface BackfillFocus {
  readonly written: number;
  readonly removed: number;
  readonly notStarted: number;
  readonly failures: ReadonlyArray<{ dataSourceId: string; date: string; code: string; message: string }>;
}

export type BackfillItem = PlannedUnit & { readonly runId: string };

export const unitsKey = backfillUnitsKey;

export async function planBackfill(
  deps: BackfillDeps,
  req: CostRunRequest,
  now = new Date(),
): Promise<BackfillPlan> {
  // As the inline run: sweep, check writable and refuse another scope's destination first.
  const destination = await prepareDestination(deps.sink, {
    startedAt: now,
    owner: deps.credential,
    costs: true,
  });
  const dataSources = selectDataSources(await listDataSources(deps.client), req.dataSourceIds);
  await destination.claim();
  const window = clampToRetention(req, now);
  const plan = await planCostExport(deps.client, deps.sink, dataSources, { ...req, ...window, now });
  warnAboutSources(deps.log, plan);
  // Before any unit: views read the months the backfill changes from their days until its final
  // step compacts them again (units only mark; storage/compaction-state.ts).
  await leaveCompactionFor(
    deps.sink,
    plan.units.map((u) => u.date.slice(0, 7)),
    (table, why) =>
      deps.log.warn('compaction_state unreadable: every month read from its days', { table, why }),
  );
  const items: BackfillItem[] = plan.units.map((u) => ({ runId: deps.runId, ...u }));
  const key = unitsKey(deps.runId);
  await deps.sink.put(key, JSON.stringify(items), 'application/json');
  // Unified costs come from Cloudforet, not from the day units: the plan step exports them.
  const unified = await exportUnifiedMonths(
    { ...deps, scope: scopeObjectName(deps.credential) },
    retainedMonths(window, req.to),
    changedDaysByMonth(plan.units, plan.units),
  );
  // The daily plan (the default window) archives Cloudforet's cost reports (costs/reports/archive.ts).
  const costReports = req.followJobs ? await backfillCostReports(deps) : undefined;
  const summary: BackfillPlan = {
    runId: deps.runId,
    from: req.from,
    to: req.to,
    force: req.force ?? false,
    units: items.length,
    unchanged: [...plan.unchanged.values()].reduce((a, b) => a + b, 0),
    skippedSyncInProgress: plan.skippedSyncing,
    unitsKey: key,
    ...(window.beyondRetention.length > 0 && {
      beyondRetention: window.beyondRetention.length * dataSources.length,
      retainedFrom: window.from,
    }),
    ...(req.followJobs && {
      jobMarks: jobMarksOf(plan, dataSources),
      reexamined: [...plan.reexamined].map(([dataSourceId, months]) => ({ dataSourceId, months })),
    }),
    unifiedCosts: {
      scope: unified.scope,
      months: unified.months.map(({ month, rows, isConfirmed }) => ({ month, rows, isConfirmed })),
      failures: unified.failures.map(({ month, code, message }) => ({ month, code, message })),
      restatedConfirmedMonths: unified.restatedConfirmedMonths,
    },
    ...(costReports && { costReports }),
  };
  deps.log.info('backfill planned', { ...summary });
  return summary;
}

async function backfillCostReports(deps: BackfillDeps): Promise<BackfillCostReports> {
  try {
    const r = await archiveCostReports(deps);
    return {
      listed: r.listed,
      archived: r.archived.length,
      draftsWritten: r.draftsWritten,
      dataUnanswered: r.dataUnanswered.length,
      facts: r.facts,
      regenerated: r.regenerated.length,
      regeneratedBeforeFirstPass: r.regeneratedBeforeFirstPass.length,
      ...(r.skipped && { skipped: r.skipped }),
    };
  } catch (error) {
    deps.log.error('cost reports failed', { code: errorCode(error), error: errorMessage(error) });
    return { code: errorCode(error), error: errorMessage(error) };
  }
}

/** A unit's result as the Distributed Map records it: its figures, not its per-attribution groups. */
export type BackfillUnitResult = Omit<CostUnitResult, 'groups'>;

export async function runBackfillUnit(deps: BackfillDeps, item: BackfillItem): Promise<BackfillUnitResult> {
  const dataSources = selectDataSources(await listDataSources(deps.client), [item.dataSourceId]);
  const exec = await unitExecutor(
    {
      client: deps.client,
      sink: deps.sink,
      runId: item.runId,
      log: deps.log,
      compression: deps.compression,
      signal: deps.signal,
    },
    dataSources,
  );
  const outcome = await exec.run(item);
  if (!('code' in outcome)) {
    const { groups: _, ...figures } = outcome;
    return figures;
  }
  const message = `${item.dataSourceId} ${item.date}: ${outcome.message} [${outcome.code}]`;
  throw outcome.retryable
    ? new UnitRetryableError(outcome.code, message)
    : new UnitFailedError(outcome.code, message);
}

/** A Distributed Map item as the plan step wrote it; anything else is refused with what it should be. */
export function parseBackfillItem(event: unknown): BackfillItem {
  const e = (event ?? {}) as Partial<BackfillItem>;
  if (typeof e.runId !== 'string' || typeof e.dataSourceId !== 'string' || !isIsoDate(e.date)) {
    throw new EventError(
      'EVENT_BAD_UNIT',
      'a backfill unit is {"runId", "dataSourceId", "date": "YYYY-MM-DD"}, written by the plan step',
    );
  }
  const jobId = typeof e.jobId === 'string' ? { jobId: e.jobId } : {};
  const a = e.analyzed;
  const analyzed = a && Number.isFinite(a.rows) && Number.isFinite(a.costSum) ? { analyzed: a } : {};
  return {
    runId: e.runId,
    dataSourceId: e.dataSourceId,
    date: e.date,
    reason: e.reason ?? 'forced',
    ...jobId,
    ...analyzed,
  };
}
