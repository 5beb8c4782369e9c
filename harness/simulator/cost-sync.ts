// A sync job as cost-analysis runs it: it replaces every month from `start` to today. A job that
// succeeds re-inserts each day under new ids (and its job_id); one that fails leaves the rows it
// had inserted beside the old version, and last_synchronized_at stays where it was.

import { dayNumber, dayToDate } from './calendar.ts';
import type { CostChange, CostStore } from './cost-store.ts';
import type { DataSource } from './world.ts';

export interface SyncOptions {
  /** The first month replaced, YYYY-MM. */
  readonly start: string;
  readonly status?: 'SUCCESS' | 'FAILURE';
  /** SUCCESS: what changed on some days (date -> change); other days only get new ids. */
  readonly changes?: Readonly<Record<string, CostChange>>;
  /** FAILURE: date -> rows the job had inserted before it failed. */
  readonly leftoverRows?: Readonly<Record<string, number>>;
}

// cost-analysis service/job_service.py _close_job: success deletes changed months, FAILURE keeps rows.
export function runSync(store: CostStore, ds: DataSource, opts: SyncOptions): string {
  const job = store.jobs.start(ds, opts.start, Date.now() - 60_000);
  const jobId = String(job['job_id']);
  if (opts.status === 'FAILURE') {
    for (const [date, rows] of Object.entries(opts.leftoverRows ?? {})) {
      store.addLeftover(ds, dayNumber(date), jobId, rows);
    }
    store.jobs.finish(job, 'FAILURE');
    return jobId;
  }
  const first = dayNumber(`${opts.start}-01`);
  for (const day of store.candidateDays(ds)) {
    if (day >= first) store.resync(ds, day, opts.changes?.[dayToDate(day)] ?? {}, jobId);
  }
  store.jobs.finish(job, 'SUCCESS');
  return jobId;
}
