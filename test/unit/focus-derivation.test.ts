// The FOCUS derivation end to end in one process (unit tier): a cost run publishes a day of six
// data sources (three plugins' cost bases, Azure reservations among them) from the simulator in
// process to a temporary directory; the focus pass derives their FOCUS rows from those published
// costs objects, with names from the same simulator; hyparquet reads both tables back. One FOCUS
// row per cost row; BilledCost the invoiced charge, its totals the costs'; the ChargeCategory and
// ListCost rules; names; and a restated day derived again while the others stay current.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { parseManifest } from '../../functions/lib/destination/manifest.ts';
import { focusManifestKey, focusObjectKey } from '../../functions/lib/focus/derive.ts';
import { exportFocus } from '../../functions/lib/focus/pass.ts';
import { type Row, readWithHyparquet } from '../../harness/hyparquet-reader.ts';
import { type InProcessCloudforet, inProcessCloudforet, tempSink } from '../support/in-process-cloudforet.ts';

const DAY = addDays(utcDay(new Date()), -1);
const WINDOW = { from: DAY, to: DAY };

let cf: InProcessCloudforet;
let out: Awaited<ReturnType<typeof tempSink>>;
let ids: string[];

beforeAll(async () => {
  // Six data sources: the third is Azure pay-as-you-go, the sixth Azure amortized (reservations).
  cf = inProcessCloudforet({
    seed: 51,
    dataSources: 6,
    from: DAY,
    to: DAY,
    rowsPerDay: 12,
    cloudServices: 20,
  });
  out = await tempSink('focus-derivation');
  ids = cf.sim.dataSourceIds();
  const run = await runCostExport(
    { client: cf.client, sink: out.sink, focus: false, unifiedCosts: false },
    { ...WINDOW, dataSourceIds: ids },
  );
  expect(run).toMatchObject({ written: ids.length, failed: 0 });
});
afterAll(async () => {
  await cf.close();
  await out.remove();
});

const focusPass = (runId: string) => exportFocus({ client: cf.client, sink: out.sink, runId }, WINDOW);
const rowsOf = async (key: string) => readWithHyparquet(await readFile(join(out.dir, key)));
const manifestOf = async (key: string) => parseManifest(await readFile(join(out.dir, key), 'utf8'));
const sum = (rows: readonly Row[], pick: (r: Row) => unknown) =>
  rows.reduce((a, r) => a + (pick(r) as number), 0);
const info = (r: Row): Record<string, unknown> => JSON.parse((r['additional_info'] as string) || '{}');
const data = (r: Row): Record<string, unknown> => JSON.parse((r['data'] as string) || '{}');
/** The cost row behind each FOCUS row, by cost id; read once per focus pass (cleared after one). */
const paired = new Map<string, Promise<Array<{ cost: Row; focus: Row }>>>();
function pairs(ds: string): Promise<Array<{ cost: Row; focus: Row }>> {
  const read = async () => {
    const costs = new Map((await rowsOf(costObjectKey(ds, DAY))).map((r) => [r['cost_id'], r]));
    return (await rowsOf(focusObjectKey(ds, DAY))).map((focus) => ({
      cost: costs.get(focus['x_cost_id'])!,
      focus,
    }));
  };
  if (!paired.has(ds)) paired.set(ds, read());
  return paired.get(ds)!;
}

describe('FOCUS rows derived from the published costs objects', () => {
  it('writes one FOCUS row per cost row of every unit, and a manifest naming its source', async () => {
    const pass = await focusPass('focus-1');

    expect(pass).toMatchObject({ written: ids.length, current: 0, failures: [] });
    for (const ds of ids) {
      const costs = await rowsOf(costObjectKey(ds, DAY));
      const focus = await rowsOf(focusObjectKey(ds, DAY));
      expect(focus.map((r) => r['x_cost_id']).sort()).toEqual(costs.map((r) => r['cost_id']).sort());
      expect(new Set(focus.map((r) => r['x_data_source_id']))).toEqual(new Set([ds]));
      const source = await manifestOf(costManifestKey(ds, DAY));
      expect(await manifestOf(focusManifestKey(ds, DAY))).toMatchObject({
        rows: costs.length,
        sourceKey: costObjectKey(ds, DAY),
        sourceSha256: source!.sha256,
        sourceRows: source!.rows,
      });
    }
  });

  it("BilledCost is the invoiced charge: Azure's Actual Cost, else cost; its totals are the costs'", async () => {
    let azure = 0;
    for (const ds of ids) {
      const rows = await pairs(ds);
      const costSum = (await manifestOf(costManifestKey(ds, DAY)))!.costSum!;
      const focusSum = (await manifestOf(focusManifestKey(ds, DAY)))!.costSum!;
      const isAzure = rows[0]!.cost['provider'] === 'azure';
      const invoiced = (r: Row) => (isAzure ? (data(r)['Actual Cost'] as number) : (r['cost'] as number));
      for (const { cost, focus } of rows) {
        expect(focus['BilledCost']).toBe(invoiced(cost));
        expect(focus['x_cloudforet_cost']).toBe(cost['cost']);
        expect(focus['BillingCurrency']).toBe(cost['currency']);
      }
      expect(focusSum).toBeCloseTo(
        rows.reduce((a, p) => a + invoiced(p.cost), 0),
        9,
      );
      expect(
        sum(
          rows.map((p) => p.focus),
          (r) => r['x_cloudforet_cost'],
        ),
      ).toBeCloseTo(costSum, 9);
      if (isAzure) {
        azure++;
        // Azure's cost is pay-as-you-go, where the invoice (Actual Cost) has reservation
        // discounts below it and reservation purchases above it (on some days): the totals differ,
        // either way round (2026-11-29's purchases put the invoice above).
        expect(Math.abs(focusSum - costSum)).toBeGreaterThan(1e-6);
      } else expect(focusSum).toBeCloseTo(costSum, 9);
    }
    expect(azure).toBe(2);
  });

  it('ChargeCategory follows the plugin charge type, else usage; a purchase has no EffectiveCost', async () => {
    const seen = new Set<string>();
    for (const ds of ids) {
      for (const { cost, focus } of await pairs(ds)) {
        const type = info(cost)['Charge Type'] ?? info(cost)['Line Item Type'];
        const category = focus['ChargeCategory'] as string;
        seen.add(category);
        if (type === undefined) {
          expect([category, focus['x_charge_category_basis']]).toEqual([
            (cost['cost'] as number) < 0 ? 'Credit' : 'Usage',
            'inferred',
          ]);
        } else expect(focus['x_charge_category_basis']).toBe('plugin');
        if (type === 'Purchase') {
          expect(category).toBe('Purchase');
          expect(focus['EffectiveCost']).toBe(0);
          expect(focus['ChargeFrequency']).not.toBe('Usage-Based');
        }
        if (category === 'Usage') expect(focus['ChargeFrequency']).toBe('Usage-Based');
      }
    }
    expect([...seen].sort()).toEqual(['Purchase', 'Usage']);
  });

  it("ListCost: the pay-as-you-go cost or the plugin's unit price times quantity where known, else BilledCost", async () => {
    const bases = new Map<string, number>();
    for (const ds of ids) {
      for (const { cost, focus } of await pairs(ds)) {
        const basis = focus['x_list_cost_basis'] as string;
        bases.set(basis, (bases.get(basis) ?? 0) + 1);
        if (basis === 'billed') {
          expect(focus['ListCost']).toBe(focus['BilledCost']);
          expect(focus['ListUnitPrice']).toBeNull();
        } else if (basis === 'pay-as-you-go') {
          expect(cost['provider']).toBe('azure');
          expect(focus['ListCost']).toBeCloseTo(cost['cost'] as number, 9);
          expect(focus['ListUnitPrice']).toBeCloseTo(
            (cost['cost'] as number) / (cost['usage_quantity'] as number),
            9,
          );
        } else {
          expect(basis).toBe('unit-price');
          expect(focus['ListUnitPrice']).toBe(info(cost)['PayG Unit Price']);
          expect(focus['ListCost']).toBeCloseTo(
            (info(cost)['PayG Unit Price'] as number) * (focus['PricingQuantity'] as number),
            9,
          );
        }
        if (cost['provider'] !== 'azure') expect(basis).toBe('billed');
      }
    }
    expect([...bases.keys()].sort()).toEqual(['billed', 'pay-as-you-go', 'unit-price']);
  });

  it("names: the service account's name, the provider's display name, the product", async () => {
    const accounts = new Map(
      cf.sim.records('service_accounts').map((a) => [a['service_account_id'], a['name']]),
    );
    const providers = new Map(cf.sim.records('providers').map((p) => [p['provider'], p['name']]));
    for (const ds of ids) {
      for (const { cost, focus } of await pairs(ds)) {
        expect(focus['SubAccountName']).toBe(accounts.get(cost['service_account_id']));
        expect(focus['SubAccountName']).toEqual(expect.any(String));
        expect(focus['ServiceProviderName']).toBe(providers.get(cost['provider']));
        expect(focus['ServiceName']).toBe(cost['product']);
        expect(focus['SubAccountId']).toBe(cost['account_id']);
      }
    }
  });

  it('a restated costs day is derived again, and only that one; its BilledCost follows', async () => {
    // Not Azure: there BilledCost is not the cost the manifest sums.
    const ds = ids.find((id) => cf.sim.costRows(id, DAY)[0]!.provider !== 'azure')!;
    cf.sim.resync(ds, DAY, { costFactor: 2 });
    const run = await runCostExport(
      { client: cf.client, sink: out.sink, focus: false, unifiedCosts: false },
      { ...WINDOW, dataSourceIds: ids },
    );
    expect(run).toMatchObject({ written: 1, failed: 0 });

    const pass = await focusPass('focus-2');
    paired.clear();

    expect(pass).toMatchObject({ written: 1, current: ids.length - 1, failures: [] });
    const costSum = (await manifestOf(costManifestKey(ds, DAY)))!.costSum!;
    expect(sum(await rowsOf(focusObjectKey(ds, DAY)), (r) => r['BilledCost'])).toBeCloseTo(costSum, 9);
    expect(costSum).toBeCloseTo(cf.sim.costTruth(ds, DAY).costSum, 6);
  });
});
