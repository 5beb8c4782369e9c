// The simulator's sync jobs as cost-analysis keeps them: job history with `changed`, job_id on
// every row (filterable, and in analyze), a failed sync's leftover rows, WAREHOUSE sources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const DAY = '2024-03-02';
let sim: Simulator;
let token: string;
let ds: string;

interface Answer {
  status: number;
  results?: Array<Record<string, unknown>>;
  total_count?: number;
}

async function post(path: string, body: unknown): Promise<Answer> {
  const answer = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: answer.status, ...((await answer.json()) as object) };
}

const jobsOfDay = async () => {
  const answer = await post('/cost-analysis/cost/analyze', {
    data_source_id: ds,
    query: {
      granularity: 'DAILY',
      start: DAY,
      end: DAY,
      fields: { jobs: { key: 'job_id', operator: 'add_to_set' } },
    },
  });
  return [...((answer.results?.[0]?.jobs as string[] | undefined) ?? [])].sort();
};

beforeAll(async () => {
  sim = await startSimulator({
    dataSources: 2,
    from: '2024-03-01',
    to: '2024-03-05',
    rowsPerDay: 50,
    exactRowsPerDay: true,
  });
  token = sim.issueToken();
  ds = sim.dataSourceIds()[0]!;
});
afterAll(() => sim.close());

describe('simulated sync jobs', () => {
  it('lists a sync with the month it replaced from, and gives every day it replaced its job_id', async () => {
    const jobId = sim.sync(ds, { start: '2024-03' });

    const { results } = await post('/cost-analysis/job/list', {
      query: { filter: [{ k: 'job_id', v: jobId, o: 'eq' }] },
    });

    expect(results).toEqual([
      expect.objectContaining({ status: 'SUCCESS', changed: [{ start: '2024-03' }], data_source_id: ds }),
    ]);
    expect(await jobsOfDay()).toEqual([jobId]);
  });

  it("keeps a failed sync's rows beside the last good ones until a sync succeeds; job_id filters them apart", async () => {
    const good = sim.sync(ds, { start: '2024-03' });
    const failed = sim.sync(ds, { start: '2024-03', status: 'FAILURE', leftoverRows: { [DAY]: 20 } });
    const listOf = (jobId?: string) =>
      post('/cost-analysis/cost/list', {
        data_source_id: ds,
        query: {
          filter: [
            { k: 'billed_date', v: DAY, o: 'eq' },
            ...(jobId ? [{ k: 'job_id', v: jobId, o: 'eq' }] : []),
          ],
        },
      });

    expect(await jobsOfDay()).toEqual([good, failed].sort());
    expect((await listOf()).total_count).toBe(70);
    expect((await listOf(good)).total_count).toBe(50);
    expect((await listOf(failed)).results?.every((r) => !('job_id' in r))).toBe(true);
    sim.sync(ds, { start: '2024-03' });
    expect((await listOf()).total_count).toBe(50);
  });

  it('answers cost/list of a WAREHOUSE data source with 500 ERROR_UNKNOWN', async () => {
    const other = sim.dataSourceIds()[1]!;
    sim.setWarehouse(other);

    const answer = await post('/cost-analysis/cost/list', { data_source_id: other, query: {} });
    const { results } = await post('/cost-analysis/data-source/list', {});

    expect(answer).toMatchObject({ status: 500, detail: { code: 'ERROR_UNKNOWN' } });
    expect(results?.find((r) => r.data_source_id === other)?.data_source_type).toBe('WAREHOUSE');
  });
});
