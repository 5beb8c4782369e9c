// The simulator answers cost_id ranges (`gt`, `gte`, `lt`, `lte`: a day paged in two ranges of ids
// at once) from its id order without generating rows; the same request with one more condition
// that only row filtering can answer (filters.ts, the semantics of Cloudforet's MongoDB query
// builder) must give the same rows and total_count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const DAY = '2024-03-02';
const COST_LIST = '/cost-analysis/cost/list';

let sim: Simulator;
let token: string;
let ds: string;

async function list(conditions: object[], filtered: boolean) {
  const filter = [
    { k: 'billed_date', v: DAY, o: 'eq' },
    ...conditions,
    // True of every row, and only row filtering can tell: the slow path.
    ...(filtered ? [{ k: 'cost_id', v: true, o: 'exists' }] : []),
  ];
  const res = await fetch(`${sim.url}${COST_LIST}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data_source_id: ds,
      query: { filter, sort: [{ key: 'cost_id' }], page: { start: 1, limit: 1000 } },
    }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { results?: { cost_id: string }[]; total_count?: number };
  return { total: json.total_count ?? 0, ids: (json.results ?? []).map((r) => r.cost_id) };
}

beforeAll(async () => {
  sim = await startSimulator({ from: DAY, to: DAY, rowsPerDay: 2_500, exactRowsPerDay: true });
  token = sim.issueToken();
  ds = sim.dataSourceIds()[0]!;
});
afterAll(() => sim.close());

describe('cost_id ranges', () => {
  it('answers each range as row filtering does, and two halves make the day', async () => {
    const day = await list([], false);
    expect(day.total).toBe(2_500);
    const [a, b] = [day.ids[100]!, day.ids[700]!];
    const ranges: object[][] = [
      [{ k: 'cost_id', v: 'cost-8', o: 'lt' }],
      [{ k: 'cost_id', v: 'cost-8', o: 'gte' }],
      [
        { k: 'cost_id', v: 'cost-8', o: 'gte' },
        { k: 'cost_id', v: 'cost-c', o: 'gt' },
      ],
      [
        { k: 'cost_id', v: a, o: 'gt' },
        { k: 'cost_id', v: b, o: 'lt' },
      ],
      [
        { k: 'cost_id', v: a, o: 'gte' },
        { k: 'cost_id', v: b, o: 'lte' },
      ],
      [
        { k: 'cost_id', v: b, o: 'gte' },
        { k: 'cost_id', v: a, o: 'lt' },
      ],
    ];
    for (const range of ranges) {
      const fast = await list(range, false);
      const filtered = await list(range, true);
      expect(fast, JSON.stringify(range)).toEqual(filtered);
    }
    expect((await list(ranges[3]!, false)).ids).toEqual(day.ids.slice(101, 700));
    expect((await list(ranges[4]!, false)).ids).toEqual(day.ids.slice(100, 701));
    expect((await list(ranges[5]!, false)).total).toBe(0);
    const low = await list(ranges[0]!, false);
    const high = await list(ranges[1]!, false);
    expect(low.total + high.total).toBe(2_500);
    expect(low.total).toBeGreaterThan(1_000);
    expect(high.total).toBeGreaterThan(1_000);
  });
});
