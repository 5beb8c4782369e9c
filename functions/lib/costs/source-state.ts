// What Cloudforet says about a data source right now: per-day row counts and cost sums
// (cost/analyze, DAILY, at most 31 days a call) and whether a sync is running (job/list).
import type { CloudforetClient } from '../cloudforet/client.ts';
import { addDays } from '../dates.ts';
import { listPages } from '../cloudforet/pager.ts';

export interface DayStat {
  readonly rows: number;
  readonly costSum: number;
}

const ANALYZE_MAX_DAYS = 31;

/** date -> {rows, costSum} for the days that have rows; days absent have none. */
export async function dailyCostStats(
  client: CloudforetClient,
  dataSourceId: string,
  from: string,
  to: string,
): Promise<Map<string, DayStat>> {
  const stats = new Map<string, DayStat>();
  for (let start = from; start <= to; start = addDays(start, ANALYZE_MAX_DAYS)) {
    const lastOfChunk = addDays(start, ANALYZE_MAX_DAYS - 1);
    const end = lastOfChunk < to ? lastOfChunk : to;
    const answer = await client.call<{ results?: Array<Record<string, unknown>> }>(
      '/cost-analysis/cost/analyze',
      {
        data_source_id: dataSourceId,
        query: {
          granularity: 'DAILY',
          start,
          end,
          fields: { cost_sum: { key: 'cost', operator: 'sum' }, row_count: { operator: 'count' } },
        },
      },
    );
    for (const r of answer.results ?? []) {
      if (typeof r.date !== 'string') continue;
      stats.set(r.date.slice(0, 10), { rows: Number(r.row_count ?? 0), costSum: Number(r.cost_sum ?? 0) });
    }
  }
  return stats;
}

/** Data sources with a cost sync IN_PROGRESS: their rows are in flux. */
export async function syncingDataSources(client: CloudforetClient): Promise<Set<string>> {
  const ids = new Set<string>();
  const req = {
    path: '/cost-analysis/job/list',
    idKey: 'job_id',
    filter: [{ k: 'status', v: 'IN_PROGRESS', o: 'eq' }],
  };
  for await (const page of listPages(client, req)) {
    for (const job of page) if (typeof job.data_source_id === 'string') ids.add(job.data_source_id);
  }
  return ids;
}
