// The simulator's unified-cost/list sums each (data source, month) once and reuses the sums until
// the cost rows change: a month's page builds that month alone, and the sums follow re-syncs and
// account links as a fresh build would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH = monthBack(2);
const OTHER = monthBack(3);
const FROM = `${OTHER}-25`;
const TO = `${MONTH}-04`;

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 53, dataSources: 3, workspaces: 2, from: FROM, to: TO, rowsPerDay: 30 });
});
afterAll(() => sim.close());

interface ListAnswer {
  results?: Record<string, unknown>[];
  total_count?: number;
}

async function listMonth(month: string): Promise<ListAnswer> {
  const answer = await fetch(`${sim.url}/cost-analysis/unified-cost/list`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sim.issueToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { filter: [{ k: 'billed_month', v: month, o: 'eq' }] } }),
  });
  return (await answer.json()) as ListAnswer;
}

const byId = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.unified_cost_id).localeCompare(String(b.unified_cost_id));

const dates = (month: string) =>
  Array.from({ length: 31 }, (_, d) => `${month}-${String(d + 1).padStart(2, '0')}`).filter(
    (date) => date >= FROM && date <= TO,
  );

/** The data source's month in its own currency: from unified costs, and from its cost rows. */
function sums(ds: string, month: string, serviceAccountId?: string): { unified: number; rows: number } {
  const unified = sim
    .unifiedCostRecords()
    .filter((r) => r.billed_month === month && r.data_source_id === ds)
    .filter((r) => serviceAccountId === undefined || r.service_account_id === serviceAccountId)
    .reduce((n, r) => n + (r.cost as Record<string, number>)[String(r.currency)]!, 0);
  const rows = dates(month)
    .flatMap((date) => sim.costRows(ds, date))
    .filter((r) => serviceAccountId === undefined || r.service_account_id === serviceAccountId)
    .reduce((n, r) => n + (typeof r.cost === 'number' ? r.cost : 0), 0);
  return { unified, rows };
}

describe('unified-cost/list', () => {
  it("answers a month's filter with exactly that month's rows of the whole listing", async () => {
    for (const month of [OTHER, MONTH]) {
      const answer = await listMonth(month);
      const whole = sim.unifiedCostRecords().filter((r) => r.billed_month === month);
      expect(whole.length).toBeGreaterThan(0);
      expect(answer.total_count).toBe(whole.length);
      expect([...(answer.results ?? [])].sort(byId)).toEqual([...whole].sort(byId));
    }
  });

  it('follows a re-sync of a day of the month', async () => {
    const ds = sim.dataSourceIds()[0]!;
    await listMonth(MONTH);
    const before = sums(ds, MONTH);
    expect(before.unified).toBeCloseTo(before.rows, 6);

    sim.resync(ds, `${MONTH}-02`, { costFactor: 3 });

    const after = sums(ds, MONTH);
    expect(after.rows).toBeGreaterThan(before.rows);
    expect(after.unified).toBeCloseTo(after.rows, 6);
  });

  it('follows an account newly linked to a workspace', async () => {
    // The routed data source (harness/simulator/world.ts) leaves its last account unlinked: its rows
    // are in no unified cost until it is linked.
    const routed = sim
      .dataSourceIds()
      .find((id) => sim.costRows(id, FROM).some((r) => String(r.workspace_id).startsWith('v-workspace-')))!;
    const listed = new Set(sim.unifiedCostRecords().map((r) => r.service_account_id));
    const unlinked = sim.costRows(routed, `${MONTH}-01`).find((r) => !listed.has(r.service_account_id))!;
    expect(unlinked).toBeDefined();
    const workspace = sim.workspaceIds()[1]!;

    sim.relinkAccount(routed, String(unlinked.account_id), workspace);

    const rows = (await listMonth(MONTH)).results!.filter(
      (r) => r.service_account_id === unlinked.service_account_id,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set([workspace]));
    const { unified, rows: costRows } = sums(routed, MONTH, String(unlinked.service_account_id));
    expect(unified).toBeCloseTo(costRows, 6);
  });
});
