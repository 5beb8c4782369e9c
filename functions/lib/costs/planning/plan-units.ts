// Planning is pure: (window, data sources, manifests, source stats, job history) -> units.
// The same plan drives the inline run, the CLI and the Step Functions backfill.
import { daysBetween } from '../../dates.ts';
import type { DataSourceInfo } from '../sources/data-sources.ts';
import { sameGroups, sameSum } from '../sources/fingerprint.ts';
import type { DayStat, SyncJob } from '../sources/source-state.ts';
import { lastSuccessfulJobOf, replaced } from './job-history.ts';

export { sameSum } from '../sources/fingerprint.ts';

export interface PlanInput {
  readonly from: string;
  readonly to: string;
  readonly dataSources: readonly DataSourceInfo[];
  /** dataSourceId -> date -> what the last export published. */
  readonly published: ReadonlyMap<string, ReadonlyMap<string, DayStat>>;
  /** dataSourceId -> date -> what Cloudforet has now (days absent have no rows). */
  readonly source: ReadonlyMap<string, ReadonlyMap<string, DayStat>>;
  readonly syncing: ReadonlySet<string>;
  readonly force: boolean;
  /** dataSourceId -> days outside [from, to] that syncs replaced since the last export. */
  readonly reexamine?: ReadonlyMap<string, readonly string[]>;
  /** dataSourceId -> its successful sync jobs, newest first: they say which rows of a mixed day are true. */
  readonly successes?: ReadonlyMap<string, readonly SyncJob[]>;
  /** dataSourceId -> its failed, timed-out, cancelled and stale jobs: rows they left may sit in a day. */
  readonly unsettled?: ReadonlyMap<string, readonly SyncJob[]>;
}

/** repair: the manifest's object is missing or of another size (published-objects.ts). */
export type UnitReason =
  | 'forced'
  | 'no-manifest'
  | 'rows-changed'
  | 'cost-changed'
  | 'attribution-changed'
  | 'no-fingerprint'
  | 'mixed'
  | 'repair';

export interface PlannedUnit {
  readonly dataSourceId: string;
  readonly date: string;
  readonly reason: UnitReason;
  /** Publish only the rows of this sync job (the day also holds a failed sync's rows). */
  readonly jobId?: string;
  /** Cloudforet's cost/analyze totals of the day as the plan read them (every job's rows). */
  readonly analyzed?: AnalyzeTotals;
}

export interface AnalyzeTotals {
  readonly rows: number;
  readonly costSum: number;
}

/** A day holding rows of several sync jobs: a failed sync's leftovers beside the true version. */
export interface MixedDay {
  readonly dataSourceId: string;
  readonly date: string;
  readonly jobIds: readonly string[];
  /** The job whose rows are published; undefined: it could not be told, the previous object stays. */
  readonly publishedJobId: string | undefined;
}

/**
 * A day after a failed or stale job began that holds no row of the last successful job: Cloudforet
 * never synced it (the job that would have is the one that failed or hangs). Not drift and not a
 * failure: what is published stays, and the run reports the day and the job.
 */
export interface NotSyncedDay {
  readonly dataSourceId: string;
  readonly date: string;
  /** The failed or stale job that began before the day was synced. */
  readonly jobId: string;
}

export interface CostPlan {
  readonly units: readonly PlannedUnit[];
  /** dataSourceId -> days skipped because they match what was published. */
  readonly unchanged: ReadonlyMap<string, number>;
  /** Data sources skipped for this run because a sync is running. */
  readonly skippedSyncing: readonly string[];
  /** WAREHOUSE data sources: Cloudforet cannot list their costs. */
  readonly skippedWarehouse: readonly string[];
  readonly mixed: readonly MixedDay[];
  readonly notSynced: readonly NotSyncedDay[];
}

export function planCostUnits(input: PlanInput): CostPlan {
  const units: PlannedUnit[] = [];
  const unchanged = new Map<string, number>();
  const [skippedSyncing, skippedWarehouse]: [string[], string[]] = [[], []];
  const mixed: MixedDay[] = [];
  const notSynced: NotSyncedDay[] = [];
  for (const ds of input.dataSources) {
    if (ds.type === 'WAREHOUSE') skippedWarehouse.push(ds.id);
    else if (input.syncing.has(ds.id)) skippedSyncing.push(ds.id);
    if (ds.type === 'WAREHOUSE' || input.syncing.has(ds.id)) continue;
    const days = [...(input.reexamine?.get(ds.id) ?? []), ...daysBetween(input.from, input.to)];
    for (const date of [...new Set(days)].sort()) {
      const { reason, jobId, mixedDay, unsynced } = decide(input, ds.id, date);
      if (mixedDay) mixed.push(mixedDay);
      if (unsynced) notSynced.push(unsynced);
      if (reason) units.push({ dataSourceId: ds.id, date, reason, ...(jobId && { jobId }) });
      else if (!unsynced && (!mixedDay || mixedDay.publishedJobId))
        unchanged.set(ds.id, (unchanged.get(ds.id) ?? 0) + 1);
    }
  }
  return { units, unchanged, skippedSyncing, skippedWarehouse, mixed, notSynced };
}

interface Decision {
  readonly reason?: UnitReason;
  readonly jobId?: string;
  readonly mixedDay?: MixedDay;
  readonly unsynced?: NotSyncedDay;
}

const EMPTY: DayStat = { rows: 0, costSum: 0, groups: [], jobs: [] };

function decide(input: PlanInput, dataSourceId: string, date: string): Decision {
  const now = input.source.get(dataSourceId)?.get(date) ?? EMPTY;
  const published = input.published.get(dataSourceId)?.get(date);
  if ((now.jobs?.length ?? 0) > 1) return decideMixed(input, dataSourceId, date, now, published);
  // Force is for the window; days outside it are there because a sync replaced them: compare.
  const forced = input.force && date >= input.from && date <= input.to;
  const reason = forced ? 'forced' : changeReason(now, published);
  return reason ? afterUnsettledJob(input, dataSourceId, date, now, reason) : {};
}

/**
 * A day a failed (or stale) job replaced after the last successful one may hold its rows even when
 * analyze does not show them (its answers are cached until a sync succeeds): publish only the last
 * successful job's rows, or keep the previous object when that job is not known.
 */
function afterUnsettledJob(
  input: PlanInput,
  dataSourceId: string,
  date: string,
  now: DayStat,
  reason: UnitReason,
): Decision {
  const good = lastSuccessfulJobOf(input.successes?.get(dataSourceId) ?? [], date);
  const after = (input.unsettled?.get(dataSourceId) ?? []).find(
    (j) => replaced(j, date) && (!good || j.createdAt > good.createdAt),
  );
  if (!after) return { reason };
  // The day holds no row of the last good job: the job after it began before the day was synced.
  if (good && now.jobs !== undefined && !now.jobs.includes(good.jobId)) {
    return { unsynced: { dataSourceId, date, jobId: after.jobId } };
  }
  if (good) return { reason, jobId: good.jobId };
  return { mixedDay: { dataSourceId, date, jobIds: now.jobs ?? [], publishedJobId: undefined } };
}

/** Why a day's rows differ from what was published; undefined when they would land the same. */
function changeReason(now: DayStat, published: DayStat | undefined): UnitReason | undefined {
  if (!published) return 'no-manifest';
  if (now.rows !== published.rows) return 'rows-changed';
  if (now.rows === 0) return undefined;
  if (!sameSum(now.costSum, published.costSum)) return 'cost-changed';
  if (now.groups && !published.groups) return 'no-fingerprint';
  if (now.groups && published.groups && !sameGroups(now.groups, published.groups))
    return 'attribution-changed';
  return undefined;
}

/** Only the newest successful job's rows are true; a job's rows never change while they last. */
function decideMixed(
  input: PlanInput,
  dataSourceId: string,
  date: string,
  now: DayStat,
  published: DayStat | undefined,
): Decision {
  const jobIds = now.jobs ?? [];
  const job = lastSuccessfulJobOf(input.successes?.get(dataSourceId) ?? [], date);
  const publishedJobId = job && jobIds.includes(job.jobId) ? job.jobId : undefined;
  const mixedDay: MixedDay = { dataSourceId, date, jobIds, publishedJobId };
  if (!publishedJobId) return { mixedDay };
  const forced = input.force && date >= input.from && date <= input.to;
  const done = !forced && published?.jobs?.length === 1 && published.jobs[0] === publishedJobId;
  return done ? { mixedDay } : { reason: 'mixed', jobId: publishedJobId, mixedDay };
}
