// The simulator's cost/list and cost/analyze against its own ground truth: paging, caps,
// empty answers, omitted zero fields and speed on a big day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const DAY = '2024-03-02';
const COST_LIST = '/cost-analysis/cost/list';

let sim: Simulator;
let token: string;
let ds: string;

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const onDay = (date: string, page: object = {}, extra: object = {}) => ({
  data_source_id: ds,
  query: { filter: [{ k: 'billed_date', v: date, o: 'eq' }], sort: [{ key: 'cost_id' }], page, ...extra },
});

const results = (json: Record<string, unknown>) => (json['results'] ?? []) as Record<string, unknown>[];

beforeAll(async () => {
  sim = await startSimulator({
    from: '2024-03-01',
    to: '2024-03-03',
    rowsPerDay: 2_500,
    exactRowsPerDay: true,
  });
  token = sim.issueToken();
  ds = sim.dataSourceIds()[0]!;
});
afterAll(() => sim.close());

describe('cost/list paging', () => {
  it('caps a limit of 5,000 at 1,000 rows and pages by row offset', async () => {
    const starts = [1, 1001, 2001];

    const pages = await Promise.all(
      starts.map((start) => post(COST_LIST, onDay(DAY, { start, limit: 5000 }))),
    );

    expect(pages.map((p) => results(p.json).length)).toEqual([1000, 1000, 500]);
    expect(pages.map((p) => p.json['total_count'])).toEqual([2500, 2500, 2500]);
  });

  it('answers the first 1,000 rows without a page', async () => {
    const { json } = await post(COST_LIST, { data_source_id: ds, query: {} });

    expect(results(json)).toHaveLength(1000);
    expect(json['total_count']).toBe(7500);
  });

  it('answers {} when nothing matches', async () => {
    const { status, json } = await post(COST_LIST, onDay('2023-01-01'));

    expect(status).toBe(200);
    expect(json).toEqual({});
  });

  it('answers only total_count for a page past the end', async () => {
    const { json } = await post(COST_LIST, onDay(DAY, { start: 2501, limit: 1000 }));

    expect(json).toEqual({ total_count: 2500 });
  });

  it('answers only total_count for count_only', async () => {
    const { json } = await post(COST_LIST, onDay(DAY, {}, { count_only: true }));

    expect(json).toEqual({ total_count: 2500 });
  });

  it('pages exactly the rows costRows reports, in cost_id order', async () => {
    const pages = await Promise.all([1, 1001, 2001].map((start) => post(COST_LIST, onDay(DAY, { start }))));

    const paged = pages.flatMap((p) => results(p.json));

    expect(paged).toEqual(sim.costRows(ds, DAY));
    expect(paged.map((r) => r['cost_id'])).toEqual(paged.map((r) => r['cost_id'] as string).sort());
  });

  it('omits zero, empty and null fields from records', async () => {
    const rows = sim.costRows(ds, DAY);

    const emptyValued = rows.flatMap((row) =>
      Object.entries(row).filter(
        ([, v]) => v === 0 || v === '' || v === null || v === false || (Array.isArray(v) && v.length === 0),
      ),
    );

    expect(emptyValued).toEqual([]);
    expect(rows.filter((r) => !('cost' in r)).length).toBeGreaterThan(0);
    expect(rows.filter((r) => !('usage_quantity' in r)).length).toBeGreaterThan(0);
  });

  it('sorts by any key, omitted costs last when descending, then by cost_id', async () => {
    const query = { sort: [{ key: 'cost', desc: true }], filter: [{ k: 'billed_date', v: DAY, o: 'eq' }] };
    const byCost = (r: Record<string, unknown>) => (r['cost'] as number | undefined) ?? -1;
    const expected = sim
      .costRows(ds, DAY)
      .sort((a, b) => byCost(b) - byCost(a) || (a['cost_id'] as string).localeCompare(b['cost_id'] as string))
      .map((r) => r['cost_id']);

    const pages = await Promise.all(
      [1, 1001, 2001].map((start) =>
        post(COST_LIST, { data_source_id: ds, query: { ...query, page: { start } } }),
      ),
    );

    expect(pages.flatMap((p) => results(p.json)).map((r) => r['cost_id'])).toEqual(expected);
  });

  it('projects fields with only', async () => {
    const { json } = await post(COST_LIST, onDay(DAY, { limit: 1 }, { only: ['cost_id', 'billed_date'] }));

    expect(Object.keys(results(json)[0]!)).toEqual(['cost_id', 'billed_date']);
  });
});

describe('cost/analyze', () => {
  it('sums each day to the ground truth', async () => {
    const query = {
      granularity: 'DAILY',
      start: '2024-03-01',
      end: '2024-03-31',
      fields: { n: { key: 'cost', operator: 'sum' }, c: { operator: 'count' } },
    };

    const { json } = await post('/cost-analysis/cost/analyze', { data_source_id: ds, query });

    const days = results(json);
    expect(days.map((d) => d['date'])).toEqual(['2024-03-01', '2024-03-02', '2024-03-03']);
    for (const day of days) {
      const truth = sim.costTruth(ds, day['date'] as string);
      expect(day['c']).toBe(2500);
      expect(day['n']).toBeCloseTo(truth.costSum, 6);
    }
  });

  it('rejects more than 31 days', async () => {
    const query = {
      granularity: 'DAILY',
      start: '2024-01-01',
      end: '2024-02-01',
      fields: { c: { operator: 'count' } },
    };

    const { status, json } = await post('/cost-analysis/cost/analyze', { data_source_id: ds, query });

    expect(status).toBe(400);
    expect(json).toMatchObject({ detail: { code: 'ERROR_INVALID_DATE_RANGE' } });
  });
});

describe('a 50,000-row day', () => {
  it('pages through in under 5 seconds', async () => {
    const big = await startSimulator({
      from: '2024-03-01',
      to: '2024-03-01',
      rowsPerDay: 50_000,
      exactRowsPerDay: true,
    });
    const bigToken = big.issueToken();
    const body = (start: number) =>
      JSON.stringify({
        data_source_id: big.dataSourceIds()[0],
        query: {
          filter: [{ k: 'billed_date', v: '2024-03-01', o: 'eq' }],
          sort: [{ key: 'cost_id' }],
          page: { start },
        },
      });
    const started = performance.now();
    let rows = 0;

    for (let start = 1; start <= 50_000; start += 1000) {
      const res = await fetch(`${big.url}${COST_LIST}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bigToken}`, 'content-type': 'application/json' },
        body: body(start),
      });
      rows += ((await res.json()) as { results: unknown[] }).results.length;
    }

    await big.close();
    expect(rows).toBe(50_000);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
