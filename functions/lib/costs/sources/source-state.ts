// What Cloudforet says about a data source right now: per day, row count, cost sum and job_ids
// per attribution (cost/analyze, DAILY, one calendar month a call), and its sync jobs (job/list).
import type { CloudforetClient } from '../../cloudforet/client.ts';
import { type ApiRecord, listPages } from '../../cloudforet/pager.ts';
import type { AnswerCheck } from '../../cloudforet/parse-answer.ts';
import { ATTRIBUTION_KEYS, attributionKey, type GroupStat, sortGroups } from './fingerprint.ts';

export interface DayStat {
  readonly rows: number;
  readonly costSum: number;
  /** Per attribution; absent in manifests written before fingerprints were kept. */
  readonly groups?: readonly GroupStat[];
  /** Cloudforet: the job_ids of the day's rows. Manifests: the one job published, when filtered. */
  readonly jobs?: readonly string[];
}

/** Results per analyze page; a full page means there may be more. */
const ANALYZE_PAGE = 1000;
const ANALYZE_PATH = '/cost-analysis/cost/analyze';

/** One month of a data source's cost/analyze answer, read page by page to its end. */
export interface AnalyzedMonth {
  /** date -> stats, for the days with rows. */
  readonly days: Map<string, DayStat>;
  /**
   * Every page held a results list and the last one ended the answer. False only when the first
   * page held no results at all (`{}`, what the simulator answers for a month without rows and a
   * gateway may answer for anything): the month is not known, which is never "no rows".
   */
  readonly complete: boolean;
}

interface AnalyzeAnswer {
  results?: ApiRecord[];
  more?: boolean;
  total_count?: number;
}

/**
 * date -> stats for the days of the given months (YYYY-MM) that have rows. One request per
 * calendar month (and page), built the same way every time: Cloudforet caches analyze answers and
 * re-runs recent bodies after each sync to warm that cache, so the bodies must stay byte-stable.
 * A month whose first page held no results counts no day (see AnalyzedMonth.complete).
 */
export async function dayStats(
  client: CloudforetClient,
  dataSourceId: string,
  months: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, DayStat>> {
  const stats = new Map<string, DayStat>();
  for (const month of months) {
    for (const [date, day] of (await analyzeMonth(client, dataSourceId, month, signal)).days)
      stats.set(date, day);
  }
  return stats;
}

/**
 * One month's answer, every page of it. A page after the first is asked only because the one
 * before was full (or said `more`): one without a results list, or shorter than a page while
 * `more` or `total_count` says more groups exist, is no answer (CLOUDFORET_NOT_AN_ANSWER, retried,
 * then failed), never the month's end: the days it would hold are not known, not empty.
 */
export async function analyzeMonth(
  client: CloudforetClient,
  dataSourceId: string,
  month: string,
  signal?: AbortSignal,
): Promise<AnalyzedMonth> {
  const rows: ApiRecord[] = [];
  for (let start = 1; ; start += ANALYZE_PAGE) {
    const answer = await client.call<AnalyzeAnswer>(ANALYZE_PATH, analyzeBody(dataSourceId, month, start), {
      signal,
      check: analyzePage(start),
    });
    // Only a first page gets here without results (analyzePage refuses it on later pages).
    if (answer.results === undefined) return { days: statsByDay(rows), complete: false };
    rows.push(...answer.results);
    const more = answer.more ?? answer.results.length >= ANALYZE_PAGE;
    if (!more) return { days: statsByDay(rows), complete: true };
  }
}

/** What a page of a month's analyze answer from row `start` must be to count as one. */
export function analyzePage(start: number): AnswerCheck {
  return ({ results, more, total_count: total }) => {
    if (more !== undefined && typeof more !== 'boolean') return `"more": ${typeof more}, not a boolean`;
    if (results === undefined) {
      if (start > 1) return `no "results" for the groups from ${start}, after a full page`;
      if (more === true) return '"more": true and no "results"';
      if (typeof total === 'number' && total > 0) return `"total_count": ${total} and no "results"`;
      return undefined;
    }
    const got = (results as unknown[]).length;
    if (got >= ANALYZE_PAGE) return undefined;
    if (more === true) return `${got} groups from ${start} (a page is ${ANALYZE_PAGE}) and "more": true`;
    if (typeof total === 'number' && start - 1 + got < total)
      return `${got} groups from ${start} (a page is ${ANALYZE_PAGE}) and "total_count": ${total}`;
    return undefined;
  };
}

export function analyzeBody(dataSourceId: string, month: string, start: number): Record<string, unknown> {
  return {
    data_source_id: dataSourceId,
    query: {
      granularity: 'DAILY',
      start: `${month}-01`,
      end: lastDayOfMonth(month),
      group_by: [...ATTRIBUTION_KEYS],
      fields: {
        cost_sum: { key: 'cost', operator: 'sum' },
        row_count: { operator: 'count' },
        job_ids: { key: 'job_id', operator: 'add_to_set' },
      },
      sort: ['date', ...ATTRIBUTION_KEYS].map((key) => ({ key, desc: false })),
      page: { start, limit: ANALYZE_PAGE },
    },
  };
}

function lastDayOfMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
}

function statsByDay(results: readonly ApiRecord[]): Map<string, DayStat> {
  const days = new Map<string, { rows: number; costSum: number; groups: GroupStat[]; jobs: Set<string> }>();
  for (const r of results) {
    if (typeof r.date !== 'string') continue;
    const date = r.date.slice(0, 10);
    const day = days.get(date) ?? { rows: 0, costSum: 0, groups: [], jobs: new Set<string>() };
    const group = {
      key: attributionKey(r),
      rows: Number(r.row_count ?? 0),
      costSum: Number(r.cost_sum ?? 0),
    };
    day.rows += group.rows;
    day.costSum += group.costSum;
    day.groups.push(group);
    for (const job of Array.isArray(r.job_ids) ? r.job_ids : [])
      if (typeof job === 'string') day.jobs.add(job);
    days.set(date, day);
  }
  return new Map(
    [...days].map(([date, d]) => [date, { ...d, groups: sortGroups(d.groups), jobs: [...d.jobs].sort() }]),
  );
}

export type JobStatus = 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'TIMEOUT' | 'CANCELED';

export interface SyncJob {
  readonly jobId: string;
  readonly dataSourceId: string;
  readonly status: JobStatus | string;
  /** First months (YYYY-MM) the job replaced; it replaced every month from each to its start. */
  readonly changedFrom: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string | undefined;
  readonly finishedAt: string | undefined;
}

/** Every cost sync job Cloudforet keeps, of every data source. */
export async function listSyncJobs(client: CloudforetClient): Promise<SyncJob[]> {
  const jobs: SyncJob[] = [];
  for await (const page of listPages(client, { path: '/cost-analysis/job/list', idKey: 'job_id' })) {
    for (const r of page) if (typeof r.data_source_id === 'string') jobs.push(toJob(r));
  }
  return jobs;
}

function toJob(r: ApiRecord): SyncJob {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const changed = Array.isArray(r.changed) ? (r.changed as Array<{ start?: unknown }>) : [];
  return {
    jobId: String(r.job_id),
    dataSourceId: String(r.data_source_id),
    status: String(r.status),
    // `start` is a month or a timestamp: either way its first seven characters are the month.
    changedFrom: changed.flatMap((c) => (typeof c?.start === 'string' ? [c.start.slice(0, 7)] : [])),
    createdAt: text(r.created_at) ?? '',
    updatedAt: text(r.updated_at),
    finishedAt: text(r.finished_at),
  };
}
