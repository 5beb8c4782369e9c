// The cost-analysis job history: one record per sync, as job/list shows it. Each data source
// starts with its last three scheduled syncs; tests add syncs (successful, failed, running).
// `changed` names the first month a job replaced: it replaced every month from there to today.

import { dayToDate, dayToMs } from './calendar.ts';
import { hashInts, stableId } from './prng.ts';
import type { ApiRecord, DataSource, World } from './world.ts';

export type JobStatus = 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'TIMEOUT' | 'CANCELED';

const HOUR_MS = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();

export class JobBook {
  private readonly jobs: ApiRecord[] = [];
  private counter = 0;

  constructor(private readonly world: World) {
    for (const ds of world.dataSources) {
      for (let back = 2; back >= 0; back--) {
        const startedMs =
          dayToMs(world.toDay - back) + 16 * HOUR_MS + (hashInts(world.seed, 80, ds.index, back) % 600_000);
        // Plugins re-sync from the month of (last sync - 7 days); the oldest one kept is the
        // first sync, which loaded the whole range.
        const start = dayToDate(back === 2 ? world.fromDay : world.toDay - back - 7).slice(0, 7);
        this.jobs.push(this.record(ds, stableId('job', world.seed, ds.id, back), start, startedMs));
        this.finish(this.jobs[this.jobs.length - 1]!, 'SUCCESS', startedMs + 20 * 60_000);
      }
    }
  }

  /** The job behind a day's rows no test sync has touched: the newest first sync covering it. */
  initialJobId(ds: DataSource, day: number): string {
    const { world } = this;
    const month = dayToDate(day).slice(0, 7);
    const back = [0, 1].find((b) => dayToDate(world.toDay - b - 7).slice(0, 7) <= month) ?? 2;
    return stableId('job', world.seed, ds.id, back);
  }

  /** A new job, IN_PROGRESS since `startedMs`. */
  start(ds: DataSource, start: string, startedMs: number): ApiRecord {
    const id = stableId('job', this.world.seed, ds.id, 'sim', ++this.counter);
    const job = this.record(ds, id, start, startedMs);
    this.jobs.push(job);
    return job;
  }

  // cost-analysis manager/job_manager.py change_*_status: status, finished_at (updated_at by auto_now).
  finish(job: ApiRecord, status: Exclude<JobStatus, 'IN_PROGRESS'>, atMs = Date.now()): void {
    job['status'] = status;
    job['updated_at'] = iso(atMs);
    job['finished_at'] = iso(atMs);
  }

  /** Running jobs of a data source are dropped (as if a later sync had cancelled and pruned them). */
  dropRunning(ds: DataSource): void {
    for (let i = this.jobs.length - 1; i >= 0; i--) {
      const job = this.jobs[i]!;
      if (job['data_source_id'] === ds.id && job['status'] === 'IN_PROGRESS') this.jobs.splice(i, 1);
    }
  }

  records(): ApiRecord[] {
    return this.jobs.map((job) => ({ ...job }));
  }

  private record(ds: DataSource, jobId: string, start: string, startedMs: number): ApiRecord {
    return {
      job_id: jobId,
      status: 'IN_PROGRESS',
      changed: [{ start }],
      data_source_id: ds.id,
      domain_id: this.world.domainId,
      created_at: iso(startedMs),
      updated_at: iso(startedMs),
    };
  }
}
