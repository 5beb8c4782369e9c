// What the simulator changes under a client: re-syncs (also mid-paging), running jobs and
// every injected fault kind.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FaultKind, type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const COST_LIST = '/cost-analysis/cost/list';
const DS_LIST = '/cost-analysis/data-source/list';

let sim: Simulator;
let token: string;
let ds: string;

function call(path: string, body: unknown): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  return (await (await call(path, body)).json()) as Record<string, unknown>;
}

const dayPage = (date: string, start: number) => ({
  data_source_id: ds,
  query: {
    filter: [{ k: 'billed_date', v: date, o: 'eq' }],
    sort: [{ key: 'cost_id' }],
    page: { start, limit: 1000 },
  },
});

beforeAll(async () => {
  sim = await startSimulator({
    from: '2024-03-01',
    to: '2024-03-05',
    rowsPerDay: 2_500,
    exactRowsPerDay: true,
  });
  token = sim.issueToken();
  ds = sim.dataSourceIds()[0]!;
});
afterAll(() => sim.close());
beforeEach(() => sim.resetRequestLog());

describe('re-syncs', () => {
  it('replaces a day with new cost_ids and keeps the costs', () => {
    const before = sim.costRows(ds, '2024-03-01');
    const truth = sim.costTruth(ds, '2024-03-01');

    sim.resync(ds, '2024-03-01');

    const after = sim.costRows(ds, '2024-03-01');
    const oldIds = new Set(before.map((r) => r['cost_id']));
    expect(after.filter((r) => oldIds.has(r['cost_id']))).toEqual([]);
    expect(sim.costTruth(ds, '2024-03-01')).toEqual(truth);
  });

  it('changes the truth by the row delta and cost factor', () => {
    const before = sim.costTruth(ds, '2024-03-02');

    sim.resync(ds, '2024-03-02', { rowDelta: -500, costFactor: 2 });

    const after = sim.costTruth(ds, '2024-03-02');
    expect(after.rows).toBe(2000);
    expect(after.costSum).toBeLessThan(before.costSum * 2);
    expect(after.costSum).toBeGreaterThan(before.costSum);
  });

  it('can empty a day', async () => {
    sim.resync(ds, '2024-03-05', { rowDelta: -1_000_000 });

    const json = await post(COST_LIST, dayPage('2024-03-05', 1));

    expect(json).toEqual({});
    expect(sim.costTruth(ds, '2024-03-05')).toEqual({ rows: 0, costSum: 0, usageQuantitySum: 0 });
  });

  it('moves last_synchronized_at', async () => {
    const before = (await post('/cost-analysis/data-source/get', { data_source_id: ds }))[
      'last_synchronized_at'
    ];

    sim.resync(ds, '2024-03-04');

    const after = (await post('/cost-analysis/data-source/get', { data_source_id: ds }))[
      'last_synchronized_at'
    ];
    expect(after).not.toBe(before);
  });

  it('re-syncs between two pages when asked', async () => {
    sim.resyncDuringPaging({
      afterRequests: 1,
      dataSourceId: ds,
      date: '2024-03-03',
      change: { rowDelta: 10 },
    });

    const first = await post(COST_LIST, dayPage('2024-03-03', 1));
    const second = await post(COST_LIST, dayPage('2024-03-03', 1001));

    expect([first['total_count'], second['total_count']]).toEqual([2500, 2510]);
  });

  it('shows a running job for a data source while set', async () => {
    const query = { filter: [{ k: 'status', v: 'IN_PROGRESS', o: 'eq' }] };
    sim.setJobInProgress(ds, true);

    const running = await post('/cost-analysis/job/list', { query });
    sim.setJobInProgress(ds, false);
    const none = await post('/cost-analysis/job/list', { query });

    expect((running['results'] as { data_source_id: string }[]).map((j) => j.data_source_id)).toEqual([ds]);
    expect(none).toEqual({});
  });
});

describe('faults', () => {
  it.each<[FaultKind, number, string | undefined]>([
    ['503', 503, 'ERROR_GRPC_CONNECTION'],
    ['500', 500, 'ERROR_DB_QUERY'],
    ['401', 401, 'ERROR_AUTHENTICATE_FAILURE'],
  ])('answers %s with its Cloudforet error', async (kind, status, code) => {
    sim.injectFault({ path: DS_LIST, kind });

    const res = await call(DS_LIST, {});

    expect(res.status).toBe(status);
    expect(((await res.json()) as { detail: { code: string } }).detail.code).toBe(code);
  });

  it('answers 504 with a proxy HTML page', async () => {
    sim.injectFault({ path: DS_LIST, kind: '504' });

    const res = await call(DS_LIST, {});

    expect(res.status).toBe(504);
    expect(await res.text()).toContain('504 Gateway Time-out');
  });

  it('answers 429 with Retry-After: 1', async () => {
    sim.injectFault({ path: DS_LIST, kind: '429' });

    const res = await call(DS_LIST, {});

    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('resets the connection without answering', async () => {
    sim.injectFault({ path: DS_LIST, kind: 'reset' });

    await expect(call(DS_LIST, {})).rejects.toThrow();

    expect(sim.requests.map((r) => r.status)).toEqual([0]);
  });

  it('answers slowly by delayMs', async () => {
    sim.injectFault({ path: DS_LIST, kind: 'slow', delayMs: 300 });
    const started = performance.now();

    const res = await call(DS_LIST, {});

    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('answers 200 with an HTML body for badjson', async () => {
    sim.injectFault({ path: DS_LIST, kind: 'badjson' });

    const res = await call(DS_LIST, {});

    const text = await res.text();
    expect(res.status).toBe(200);
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    expect(text.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('answers 200 with half the JSON for truncated', async () => {
    const whole = await (await call(DS_LIST, {})).text();
    sim.injectFault({ path: DS_LIST, kind: 'truncated' });

    const res = await call(DS_LIST, {});

    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toBe(whole.slice(0, Math.floor(whole.length / 2)));
  });

  it('answers 200 {} for empty', async () => {
    sim.injectFault({ path: DS_LIST, kind: 'empty' });

    const json = await post(DS_LIST, {});

    expect(json).toEqual({});
  });

  it('lets afterRequests requests through, then fails times requests', async () => {
    sim.injectFault({ path: DS_LIST, kind: '503', afterRequests: 1, times: 2 });

    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(DS_LIST, {})).status);

    expect(statuses).toEqual([200, 503, 503, 200]);
  });

  it('matches paths by regular expression', async () => {
    sim.injectFault({ path: /^\/cost-analysis\//, kind: '500' });

    const inventory = await call('/inventory/region/list', {});
    const cost = await call(DS_LIST, {});

    expect([inventory.status, cost.status]).toEqual([200, 500]);
  });
});
