// What the FOCUS cost columns mean, per data source, over simulator exports whose Azure data
// sources are written as the Azure plugin writes them (harness/simulator/azure-costs.ts): one with
// the default cost_metric, one with AmortizedCost and reservation purchases, one with a markup whose
// actual cost workspace apps may not read (permissions.deny). BilledCost per (data source, day) is
// data["Actual Cost"] where the app may read it, else Cloudforet's cost; the expected sums come
// from the simulator's own rows, not from the exporter.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

const FROM = monthsBack(2);
const TO = addDays(FROM, 2);
const DAYS = [FROM, addDays(FROM, 1), TO];

let sim: Simulator;
const dirs: string[] = [];
let domainOut: string;
let workspaceOut: string;
let workspaceId: string;

async function exportWith(token: string, name: string): Promise<string> {
  const app = await appFolder(name, token);
  dirs.push(app.dir);
  const out = join(app.dir, 'out');
  const argv = ['costs', '--endpoint', sim.url, '--secret-file', app.secretFile, '--out', out];
  expect(await main([...argv, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(0);
  return out;
}

beforeAll(async () => {
  // Nine data sources: Azure ones at 2 (default), 5 (AmortizedCost) and 8 (markup, denied).
  sim = await startSimulator({ seed: 36, dataSources: 9, from: FROM, to: TO, rowsPerDay: 60 });
  workspaceId = sim.workspaceIds()[0]!;
  domainOut = await exportWith(sim.issueToken(), 'basis-domain');
  workspaceOut = await exportWith(sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId }), 'basis-ws');
}, 120_000);
afterAll(async () => {
  await sim.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const focus = (out: string) =>
  `read_parquet('${join(out, 'focus', '*', '*', '*.parquet')}', hive_partitioning = true, hive_types_autocast = false)`;

/** Per (data source, day): Σ BilledCost, Σ EffectiveCost of usage, the basis columns seen. */
async function focusSums(out: string) {
  const { rows } = await queryDuckDB(`
    SELECT x_data_source_id AS ds, strftime(ChargePeriodStart AT TIME ZONE 'UTC', '%Y-%m-%d') AS d,
           count(*) AS n, sum(BilledCost) AS billed, sum(x_cloudforet_cost) AS cost,
           sum(EffectiveCost) FILTER (WHERE ChargeCategory = 'Usage') AS effective,
           string_agg(DISTINCT x_billed_cost_basis, ',' ORDER BY x_billed_cost_basis) AS billed_basis,
           count(*) FILTER (WHERE x_billed_cost_basis IS NULL OR x_cloudforet_cost_basis IS NULL
             OR x_effective_cost_basis IS NULL OR x_list_cost_basis IS NULL) AS no_basis
    FROM ${focus(out)} GROUP BY ALL ORDER BY ALL`);
  return new Map(rows.map((r) => [`${r.ds}/${r.d}`, r]));
}

/** The simulator's own rows of a (data source, day), as `workspace` sees them (all: undefined). */
function truth(ds: string, day: string, workspace?: string) {
  const rows = sim.costRows(ds, day).filter((r) => workspace === undefined || r.workspace_id === workspace);
  const sum = (f: (r: Record<string, unknown>) => unknown) =>
    rows.reduce((s, r) => s + (typeof f(r) === 'number' ? (f(r) as number) : 0), 0);
  const data = (r: Record<string, unknown>) => (r.data ?? {}) as Record<string, unknown>;
  return {
    rows: rows.length,
    cost: sum((r) => r.cost),
    actual: sum((r) => data(r)['Actual Cost']),
    amortized: sum((r) => data(r)['Amortized Cost']),
  };
}

const azureIds = () => sim.dataSourceIds().filter((id) => sim.costRows(id, FROM)[0]?.provider === 'azure');

describe('FOCUS cost columns per data source', () => {
  it('bills each Azure day its data["Actual Cost"] when a domain app exports it', async () => {
    const sums = await focusSums(domainOut);

    expect(azureIds()).toHaveLength(3);
    for (const ds of azureIds()) {
      for (const day of DAYS) {
        const got = sums.get(`${ds}/${day}`)!;
        const want = truth(ds, day);
        expect(Number(got.n)).toBe(want.rows);
        expect(got.billed).toBeCloseTo(want.actual, 6);
        expect(got.cost).toBeCloseTo(want.cost, 6);
        expect(got.billed_basis).toMatch(/^actual(,cost)?$/);
      }
    }
  });

  it("bills Cloudforet's cost where the actual cost is denied to a workspace app, and says so", async () => {
    const sums = await focusSums(workspaceOut);
    const listed = await fetch(`${sim.url}/cost-analysis/data-source/list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.issueToken()}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const deniedIds = new Set(
      ((await listed.json()) as { results: Record<string, unknown>[] }).results
        .filter((d) => JSON.stringify(d.permissions ?? {}).includes('data.Actual Cost'))
        .map((d) => d.data_source_id),
    );
    let denied = 0;

    for (const ds of azureIds()) {
      for (const day of DAYS) {
        const got = sums.get(`${ds}/${day}`);
        const want = truth(ds, day, workspaceId);
        if (want.rows === 0) continue;
        expect(Number(got!.n)).toBe(want.rows);
        const isDenied = deniedIds.has(ds);
        expect(got!.billed_basis).toBe(isDenied ? 'cost-actual-denied' : 'actual');
        if (isDenied) denied++;
        expect(got!.billed).toBeCloseTo(isDenied ? want.cost : want.actual, 6);
      }
    }
    expect(deniedIds.size).toBe(1);
    expect(denied).toBeGreaterThan(0);
  });

  it('takes EffectiveCost of usage from data["Amortized Cost"] where the plugin gives it', async () => {
    const sums = await focusSums(domainOut);
    const [amortizedDs] = azureIds().filter((ds) => truth(ds, FROM).amortized !== 0);

    expect(amortizedDs).toBeDefined();
    for (const day of DAYS) {
      // Reservation purchases (Purchase rows) carry no Amortized Cost and an EffectiveCost of 0.
      expect(sums.get(`${amortizedDs}/${day}`)!.effective).toBeCloseTo(truth(amortizedDs!, day).amortized, 6);
    }
  });

  it('says the basis of every cost column on every row, of every data source', async () => {
    for (const out of [domainOut, workspaceOut]) {
      for (const row of (await focusSums(out)).values()) expect(row.no_basis).toBe(0n);
    }
  });

  it('ties ListCost to ListUnitPrice × PricingQuantity exactly, wherever a unit price is given', async () => {
    const { rows } = await queryDuckDB(`
      SELECT count(*) FILTER (WHERE ListUnitPrice IS NOT NULL) AS priced,
             count(*) FILTER (WHERE ListUnitPrice IS NOT NULL AND ListUnitPrice * PricingQuantity <> ListCost) AS off,
             count(*) FILTER (WHERE ListUnitPrice < 0) AS negative,
             count(*) FILTER (WHERE x_list_cost_basis = 'pay-as-you-go' AND abs(ListCost - x_cloudforet_cost) > 1e-9) AS not_payg
      FROM ${focus(domainOut)}`);

    expect(rows[0]!.priced).toBeGreaterThan(0n);
    expect(rows[0]).toMatchObject({ off: 0n, negative: 0n, not_payg: 0n });
  });

  it('never names a resource by its id, and names some by their display names', async () => {
    const { rows } = await queryDuckDB(`
      SELECT count(*) FILTER (WHERE ResourceName = ResourceId) AS duplicated,
             count(ResourceName) AS named, count(ResourceId) AS with_id
      FROM ${focus(domainOut)}`);

    expect(rows[0]!.duplicated).toBe(0n);
    expect(rows[0]!.named).toBeGreaterThan(0n);
    expect(rows[0]!.named).toBeLessThan(rows[0]!.with_id as bigint);
  });

  it('holds no placeholder in any string column', async () => {
    const { rows: columns } = await queryDuckDB(
      `SELECT column_name FROM (DESCRIBE SELECT * FROM ${focus(domainOut)}) WHERE column_type = 'VARCHAR'`,
    );
    const placeholders = "('', 'unknown', 'n/a', 'na', 'none', 'null', 'not applicable', '-')";
    const checks = columns.map(
      (c) =>
        `count(*) FILTER (WHERE lower(trim("${c.column_name}")) IN ${placeholders}) AS "${c.column_name}"`,
    );

    const { rows } = await queryDuckDB(`SELECT ${checks.join(', ')} FROM ${focus(domainOut)}`);

    expect(columns.length).toBeGreaterThan(40);
    expect(Object.entries(rows[0]!).filter(([, n]) => n !== 0n)).toEqual([]);
  });
});
