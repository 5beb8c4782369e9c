// The cost basis of a FOCUS row (functions/lib/focus/rows/basis.ts) and the pricing values read
// from the Azure plugin's additional_info (focus-pricing.ts), case by case as docs/focus.md
// states them. Data source records are shaped as cost-analysis' data-source/list returns them.
import { describe, expect, it } from 'vitest';
import { costBasisOf, type RowFacts, rowCosts } from '../../../functions/lib/focus/rows/basis.ts';
import { focusUnitOf } from '../../../functions/lib/focus/rows/mapping.ts';
import { commitmentOf, pricingCategoryOf, skuOf } from '../../../functions/lib/focus/rows/pricing.ts';
import { focusTable } from '../../../functions/lib/tables/focus.ts';

const azure = (extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
  data_source_id: 'ds-azure',
  plugin_info: {
    options,
    metadata: { cost_info: { name: 'PayAsYouGo' }, data_info: { 'Actual Cost': {} }, ...extra },
  },
});
const usage = (fields: Partial<RowFacts>): RowFacts => ({
  cost: 10,
  data: { 'Actual Cost': 9 },
  info: {},
  category: 'Usage',
  pricingQuantity: 4,
  ...fields,
});

describe('the cost basis of a data source', () => {
  it('denies a data key the deny list names and cost_data_keys lacks, as a non-admin app sees it', () => {
    const deny = { permissions: { deny: ['data.Actual Cost', 'tags.owner'] } };

    expect(costBasisOf({ ...azure(), ...deny, cost_data_keys: [] }).deniedKeys).toEqual(['Actual Cost']);
    expect(costBasisOf({ ...azure(), ...deny, cost_data_keys: ['Actual Cost'] }).deniedKeys).toEqual([]);
    expect(costBasisOf({ ...azure(), ...deny }).deniedKeys).toEqual(['Actual Cost']);
  });

  it('reads the markup, the cost metric and what cost is', () => {
    const meta = costBasisOf(azure({ custom_cost_adjustment_percent: 15 }, { cost_metric: 'AmortizedCost' }));

    expect(meta).toMatchObject({ costInfo: 'PayAsYouGo', markupPercent: 15, costMetric: 'AmortizedCost' });
    expect(costBasisOf({ plugin_info: { metadata: { currency: 'USD' } } })).toEqual({
      costInfo: undefined,
      dataInfo: [],
      costMetric: undefined,
      reservationCostAtPayg: undefined,
      markupPercent: undefined,
      deniedKeys: [],
    });
  });
});

describe('the cost columns of a row', () => {
  it('bills Azure its Actual Cost and lists its pay-as-you-go cost at an exact unit price', () => {
    const costs = rowCosts(costBasisOf(azure()), usage({}));

    expect(costs).toMatchObject({
      billed: 9,
      billedBasis: 'actual',
      effective: 9,
      costBasis: 'pay-as-you-go',
    });
    expect(costs).toMatchObject({ list: 2.5 * 4, listUnitPrice: 2.5, listBasis: 'pay-as-you-go' });
  });

  it('lists a pay-as-you-go row with no quantity to price at its billed charge (ListCost-C-008-C)', () => {
    for (const pricingQuantity of [null, 0]) {
      const costs = rowCosts(costBasisOf(azure()), usage({ pricingQuantity }));
      expect(costs).toMatchObject({ billed: 9, list: 9, listUnitPrice: null, listBasis: 'billed' });
    }
  });

  it('bills cost where the Actual Cost is denied, or where the plugin declares no other charge', () => {
    const denied = costBasisOf({
      ...azure(),
      permissions: { deny: ['data.Actual Cost'] },
      cost_data_keys: [],
    });

    expect(rowCosts(denied, usage({}))).toMatchObject({ billed: 10, billedBasis: 'cost-actual-denied' });
    expect(rowCosts(costBasisOf({}), usage({}))).toMatchObject({
      billed: 10,
      billedBasis: 'cost',
      list: 10,
      listBasis: 'billed',
      listUnitPrice: null,
      costBasis: 'as-reported',
    });
    expect(rowCosts(undefined, usage({}))).toMatchObject({ billed: 10, billedBasis: 'cost' });
  });

  it('takes Amortized Cost on usage, 0 on a purchase, and the looked-up retail price for the list', () => {
    const meta = costBasisOf(azure({}, { cost_metric: 'AmortizedCost' }));
    const reserved = usage({
      data: { 'Amortized Cost': 6, 'Actual Cost': 0 },
      info: { 'Pricing Model': 'Reservation', 'PayG Unit Price': 0.5 },
    });

    expect(rowCosts(meta, reserved)).toMatchObject({ billed: 0, effective: 6, effectiveBasis: 'amortized' });
    expect(rowCosts(meta, reserved)).toMatchObject({ list: 2, listUnitPrice: 0.5, listBasis: 'unit-price' });
    expect(
      rowCosts(meta, usage({ category: 'Purchase', cost: 0, data: { 'Actual Cost': 700 } })),
    ).toMatchObject({ billed: 700, effective: 0, effectiveBasis: 'purchase' });
  });

  it('lists a markup row at its billed charge, and a credit at its billed charge', () => {
    const markup = costBasisOf(azure({ custom_cost_adjustment_percent: 15 }));

    expect(rowCosts(markup, usage({ cost: 10.35 }))).toMatchObject({
      list: 9,
      listBasis: 'billed',
      costBasis: 'markup',
    });
    expect(
      rowCosts(costBasisOf(azure()), usage({ category: 'Credit', cost: -3, data: { 'Actual Cost': -3 } })),
    ).toMatchObject({ billed: -3, effective: -3, list: -3, listUnitPrice: null });
  });
});

describe('pricing values from the Azure plugin', () => {
  it.each([
    ['OnDemand', 'Usage', 'Standard'],
    ['Spot', 'Usage', 'Dynamic'],
    ['Reservation', 'Usage', null],
    ['Reservation', 'Purchase', 'Standard'],
    ['OnDemand', 'Tax', null],
    [undefined, 'Usage', null],
  ] as const)('Pricing Model %s on a %s row -> %s', (model, category, expected) => {
    expect(pricingCategoryOf({ 'Pricing Model': model }, category)).toBe(expected);
  });

  it('calls a covered charge Committed only when it names its commitment discount', () => {
    expect(pricingCategoryOf({ 'Pricing Model': 'SavingsPlan', 'Benefit Id': 'b-1' }, 'Usage')).toBe(
      'Committed',
    );
    expect(pricingCategoryOf({ 'Pricing Model': 'Reservation', 'Reservation Id': 'r-1' }, 'Usage')).toBe(
      'Committed',
    );
  });

  it('names the commitment discount of a covered row, and its status', () => {
    const info = {
      'Pricing Model': 'SavingsPlan',
      'Benefit Id': '/providers/Microsoft.BillingBenefits/savingsPlanOrders/o/savingsPlans/s',
      'Benefit Name': 'sp-compute',
      'Charge Type': 'UnusedSavingsPlan',
    };

    expect(commitmentOf(info, 'Usage')).toEqual({
      id: info['Benefit Id'],
      name: 'sp-compute',
      category: 'Spend',
      type: 'Savings Plan',
      status: 'Unused',
    });
    expect(commitmentOf({ 'Pricing Model': 'OnDemand', 'Benefit Id': 'x' }, 'Usage')).toBeNull();
  });

  it('gives SKU ids from Product Id and Meter Id, none on tax; no unit from N/A', () => {
    expect(skuOf({ 'Product Id': 'DZH318Z0BQ4L', 'Meter Id': 'm-1' }, 'Usage')).toEqual({
      skuId: 'DZH318Z0BQ4L',
      skuPriceId: 'm-1:DZH318Z0BQ4L',
    });
    expect(skuOf({ 'Product Id': 'DZH318Z0BQ4L' }, 'Tax')).toEqual({ skuId: null, skuPriceId: null });
    expect([focusUnitOf('N/A'), focusUnitOf(null), focusUnitOf('Hrs')]).toEqual([null, null, 'Hours']);
  });
});

describe('a FOCUS row of the Azure plugin', () => {
  const context = {
    serviceAccounts: new Map(),
    trustedAccounts: new Map(),
    providerNames: new Map(),
    regionNames: new Map(),
    costBases: new Map([['ds-azure', costBasisOf(azure())]]),
    resourceNames: new Map([['/subscriptions/s/providers/x/vm-2', 'web-02']]),
    exportedAtMs: 0,
  };
  const row = (info: Record<string, unknown>, resource?: string) => ({
    cost_id: 'c1',
    cost: 4,
    usage_quantity: 24,
    usage_unit: '1 Hour',
    provider: 'azure',
    data_source_id: 'ds-azure',
    billed_date: '2026-10-01',
    data: JSON.stringify({ 'Actual Cost': 0 }),
    additional_info: JSON.stringify(info),
    ...(resource && { resource }),
  });
  const values = (r: Record<string, unknown>) =>
    Object.fromEntries(focusTable.columns.map((col) => [col.name, col.value(r, context)]));

  it('has no consumed quantity on an unused reservation, and names the reservation', () => {
    const v = values(
      row({ 'Charge Type': 'UnusedReservation', 'Pricing Model': 'Reservation', 'Reservation Id': 'r-1' }),
    );

    expect(v).toMatchObject({
      ChargeCategory: 'Usage',
      CommitmentDiscountStatus: 'Unused',
      ConsumedQuantity: null,
    });
    expect(v).toMatchObject({ PricingQuantity: 24, PricingUnit: 'Hours', CommitmentDiscountId: 'r-1' });
    expect(v).toMatchObject({ BilledCost: 0, x_cloudforet_cost: 4, x_billed_cost_basis: 'actual' });
  });

  it('takes the resource id and name the plugin keeps, else the name inventory gives, never the id', () => {
    const own = values(row({ 'Resource Id': '/subscriptions/s/providers/x/vm-1', 'Resource Name': 'vm-1' }));
    const listed = values(row({}, '/subscriptions/s/providers/x/vm-2'));
    const unnamed = values(row({}, 'vm-3'));

    expect([own.ResourceId, own.ResourceName]).toEqual(['/subscriptions/s/providers/x/vm-1', 'vm-1']);
    expect(listed.ResourceName).toBe('web-02');
    expect([unnamed.ResourceId, unnamed.ResourceName]).toEqual(['vm-3', null]);
  });
});

describe('a FOCUS row of the Google plugin', () => {
  it('is billed to the billing account the plugin names, and names its project', () => {
    const context = {
      serviceAccounts: new Map([['sa-1', { name: 'Analytics project' }]]),
      trustedAccounts: new Map(),
      providerNames: new Map(),
      regionNames: new Map(),
      costBases: new Map(),
      resourceNames: new Map(),
      exportedAtMs: 0,
    };
    const row = (serviceAccountId?: string) => ({
      cost: 2,
      provider: 'google_cloud',
      account_id: 'project-alpha',
      billed_date: '2026-10-01',
      additional_info: JSON.stringify({
        'Billing Account ID': '01ABCD-234567-89EFGH',
        'Project Name': 'alpha',
        'Cost Type': 'regular',
      }),
      ...(serviceAccountId && { service_account_id: serviceAccountId }),
    });
    const pick = (r: Record<string, unknown>, names: string[]) =>
      names.map((n) => focusTable.columns.find((col) => col.name === n)!.value(r, context));
    const columns = ['BillingAccountId', 'BillingAccountName', 'SubAccountId', 'SubAccountName'];

    expect(pick(row('sa-1'), columns)).toEqual([
      '01ABCD-234567-89EFGH',
      '01ABCD-234567-89EFGH',
      'project-alpha',
      'Analytics project',
    ]);
    expect(pick(row(), columns)[3]).toBe('alpha');
  });
});
