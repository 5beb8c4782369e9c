// What a data source's sync jobs say for planning (pure): is a sync running (or stuck), which
// months did syncs replace since the last export, and which job's rows are the true ones of a day.
import type { SyncJob } from '../sources/source-state.ts';

/** Twice Cloudforet's default job timeout: a job running longer has crashed. */
export const DEFAULT_STALE_JOB_AFTER_MS = 4 * 3_600_000;

export interface SourceJobs {
  /** A sync running now (not stale): the data source's rows are in flux. */
  readonly running: SyncJob | undefined;
  /** IN_PROGRESS jobs older than the stale limit: they will never finish. */
  readonly stale: readonly SyncJob[];
  /** The earliest month a job finished since `since` (or a stale one) replaced, if any. */
  readonly changedFrom: string | undefined;
  /** Successful jobs, newest first. */
  readonly successes: readonly SyncJob[];
  /** Jobs that ended without success (FAILURE, TIMEOUT, CANCELED) or went stale: they may have left rows. */
  readonly unsettled: readonly SyncJob[];
}

export interface JobHistoryOptions {
  readonly now: Date;
  readonly staleAfterMs: number;
  /** Jobs finished before this were seen by an earlier run; undefined: none was recorded. */
  readonly since?: string;
  /** Jobs finished from `since` on that the earlier run saw already. */
  readonly seen?: ReadonlySet<string>;
}

export function sourceJobs(
  all: readonly SyncJob[],
  dataSourceId: string,
  opts: JobHistoryOptions,
): SourceJobs {
  const jobs = all.filter((j) => j.dataSourceId === dataSourceId);
  const staleBefore = opts.now.getTime() - opts.staleAfterMs;
  const inProgress = jobs.filter((j) => j.status === 'IN_PROGRESS');
  const isStale = (j: SyncJob) => Date.parse(j.updatedAt ?? j.createdAt) < staleBefore;
  const stale = inProgress.filter(isStale);
  const finished = jobs.filter(
    (j) =>
      j.status !== 'IN_PROGRESS' &&
      (opts.since === undefined || ((j.finishedAt ?? j.createdAt) >= opts.since && !opts.seen?.has(j.jobId))),
  );
  const months = [...finished, ...stale].flatMap((j) => j.changedFrom).sort();
  return {
    running: inProgress.find((j) => !isStale(j)),
    stale,
    changedFrom: months[0],
    successes: jobs
      .filter((j) => j.status === 'SUCCESS')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    unsettled: [...jobs.filter((j) => j.status !== 'SUCCESS' && j.status !== 'IN_PROGRESS'), ...stale],
  };
}

/**
 * The job whose rows are a day's true version: the newest successful job that replaced the day's
 * month (it replaced every month from its `changed` start up to the day it ran).
 */
export function lastSuccessfulJobOf(successes: readonly SyncJob[], date: string): SyncJob | undefined {
  return successes.find((j) => replaced(j, date));
}

/** The job replaced the day: a month it named is not after the day's, and it ran on or after it. */
export function replaced(job: SyncJob, date: string): boolean {
  const month = date.slice(0, 7);
  return date <= job.createdAt.slice(0, 10) && job.changedFrom.some((m) => m <= month);
}

/** The first day Cloudforet still holds rows for: it keeps 12 months, this one included. */
export function retentionStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
}
