// What a cost run says about its data sources beyond the units: skipped ones, stale sync jobs,
// mixed days; and the job-history mark it leaves for the next run.
import type { Logger } from '../../log.ts';
import type { DataSourceInfo } from '../sources/data-sources.ts';
import { type JobMark, markOf } from './job-marks.ts';
import type { CostExportPlan } from './plan-export.ts';
import type { NotSyncedDay } from './plan-units.ts';

export function skipReason(
  plan: Pick<CostExportPlan, 'skippedWarehouse' | 'skippedSyncing'>,
  dataSourceId: string,
): { skipped?: 'sync-in-progress' | 'warehouse' } {
  if (plan.skippedWarehouse.includes(dataSourceId)) return { skipped: 'warehouse' };
  if (plan.skippedSyncing.includes(dataSourceId)) return { skipped: 'sync-in-progress' };
  return {};
}

export function warnAboutSources(log: Logger, plan: CostExportPlan): void {
  for (const dataSourceId of plan.skippedWarehouse) {
    log.warn(
      'WAREHOUSE data source skipped: Cloudforet cannot list its costs (cost/list fails for this type)',
      {
        dataSourceId,
      },
    );
  }
  for (const job of plan.staleJobs) {
    log.warn(
      `sync job ${job.jobId} has been IN_PROGRESS since ${job.createdAt}: it is stale, so the data source was ` +
        'exported anyway; it will not sync again until the job is cancelled in Cloudforet',
      { dataSourceId: job.dataSourceId, jobId: job.jobId },
    );
  }
  const unsynced = new Map<string, NotSyncedDay[]>();
  for (const day of plan.notSynced) unsynced.set(day.jobId, [...(unsynced.get(day.jobId) ?? []), day]);
  for (const [jobId, days] of unsynced) {
    log.warn(
      `${days.length} day(s) not synced yet: sync job ${jobId} began before Cloudforet had them and did not ` +
        'finish; what is published for them is kept, and they are exported once a sync succeeds',
      { dataSourceId: days[0]!.dataSourceId, jobId, billedDates: days.map((d) => d.date) },
    );
  }
  for (const d of plan.damaged) {
    log.warn(`published object is not what its manifest describes (${d.why}): the day is exported again`, {
      dataSourceId: d.dataSourceId,
      billedDate: d.date,
      why: d.why,
    });
  }
  for (const day of plan.mixed) {
    const fields = { dataSourceId: day.dataSourceId, billedDate: day.date, jobIds: day.jobIds };
    if (day.publishedJobId) {
      log.warn(
        `mixed day (a failed sync's rows beside the last good ones): only job ${day.publishedJobId}'s rows are published`,
        fields,
      );
    } else {
      log.warn('mixed day whose true version cannot be told: the previous object is kept', fields);
    }
  }
}

/**
 * The job-history marks the run leaves for the next one (job-marks.ts writeJobMarks, once the
 * units are done): one per data source the plan did not skip (a running sync, WAREHOUSE).
 */
export function jobMarksOf(plan: CostExportPlan, dataSources: readonly DataSourceInfo[]): JobMark[] {
  const skipped = new Set([...plan.skippedSyncing, ...plan.skippedWarehouse]);
  return dataSources.filter((d) => !skipped.has(d.id)).map((d) => markOf(d.id, plan.jobsReadAt, plan.jobs));
}
