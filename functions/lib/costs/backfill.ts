// Backfills on Step Functions: plan once (units to S3, read by a Distributed Map), export each
// unit in its own invocation, then summarise from the manifests the units wrote.
import type { Compression } from '../export/listing-export.ts';
import type { CloudforetClient } from '../cloudforet/client.ts';
import type { CostUnitResult } from './unit.ts';
import { planCostExport } from './plan-inputs.ts';
import type { CostRunRequest } from './run.ts';
import { unitExecutor } from './unit-executor.ts';
import { listDataSources, selectDataSources } from './data-sources.ts';
import { UnitFailedError, UnitRetryableError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { PlannedUnit } from './plan.ts';
import type { Sink } from '../storage/sink.ts';
import { prepareDestination } from '../export/prepare-destination.ts';
import type { DestinationOwner } from '../storage/destination-claim.ts';
import type { JobMark } from './job-marks.ts';
import { clampToRetention } from './retention.ts';
import { jobMarksOf, warnAboutSources } from './run-reports.ts';
import {
  changedDaysByMonth,
  exportUnifiedMonths,
  monthsBetween,
  scopeObjectName,
  type UnifiedRunSummary,
} from './unified-run.ts';

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
}

export type BackfillItem = PlannedUnit & { readonly runId: string };

export function unitsKey(runId: string): string {
  return `_runs/costs/${runId}/units.json`;
}

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
  const window = clampToRetention(req, now);
  const plan = await planCostExport(deps.client, deps.sink, dataSources, { ...req, ...window, now });
  warnAboutSources(deps.log, plan);
  const items: BackfillItem[] = plan.units.map((u) => ({ runId: deps.runId, ...u }));
  const key = unitsKey(deps.runId);
  await destination.claim();
  await deps.sink.put(key, JSON.stringify(items), 'application/json');
  // Unified costs come from Cloudforet, not from the day units: the plan step exports them.
  const unified = await exportUnifiedMonths(
    { ...deps, scope: scopeObjectName(deps.credential) },
    monthsBetween(req.from, req.to),
    changedDaysByMonth(plan.units, plan.units),
  );
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
  };
  deps.log.info('backfill planned', { ...summary });
  return summary;
}

export async function runBackfillUnit(deps: BackfillDeps, item: BackfillItem): Promise<CostUnitResult> {
  const dataSources = selectDataSources(await listDataSources(deps.client), [item.dataSourceId]);
  const exec = await unitExecutor(
    { client: deps.client, sink: deps.sink, runId: item.runId, log: deps.log, compression: deps.compression },
    dataSources,
  );
  const outcome = await exec.run(item);
  if (!('code' in outcome)) return outcome;
  const message = `${item.dataSourceId} ${item.date}: ${outcome.message} [${outcome.code}]`;
  throw outcome.retryable
    ? new UnitRetryableError(outcome.code, message)
    : new UnitFailedError(outcome.code, message);
}
