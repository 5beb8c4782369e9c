// One FOCUS row from one cost row, column by column (functions/lib/tables/focus.ts), with no
// export around it: the names from Cloudforet's identity come in as a context. What the focus
// pass writes and reads back is in test/system/focus/focus-table.test.ts and test/focus-conformance*.test.ts.
import { describe, expect, it } from 'vitest';
import { type CostRecord, type FocusContext, focusTable } from '../../functions/lib/tables/focus.ts';

const CONTEXT: FocusContext = {
  serviceAccounts: new Map([
    ['sa-linked', { name: 'Shop (prod)', trustedAccountId: 'ta-1' }],
    ['sa-alone', { name: 'Lab' }],
  ]),
  trustedAccounts: new Map([['ta-1', { accountId: '999999999999', name: 'Payer Org' }]]),
  providerNames: new Map([['aws', 'AWS']]),
  regionNames: new Map([['aws.ap-northeast-2', 'Asia Pacific (Seoul)']]),
  costBases: new Map(),
  resourceNames: new Map(),
  exportedAtMs: Date.UTC(2026, 2, 16, 6),
};

const USAGE: CostRecord = {
  billed_date: '2026-03-15',
  cost: 12.5,
  currency: 'USD',
  usage_quantity: 3,
  usage_unit: 'Hrs',
  provider: 'aws',
  region_code: 'ap-northeast-2',
  region_key: 'aws.ap-northeast-2',
  product: 'AmazonEC2',
  usage_type: 'APN2-BoxUsage:t3.micro',
  resource: 'i-0abc',
  account_id: '111111111111',
  service_account_id: 'sa-linked',
  data_source_id: 'ds-1',
  // As the published costs object holds it: a JSON string.
  additional_info: JSON.stringify({ 'Line Item Type': 'Usage' }),
};

/** The named columns of the FOCUS row `record` maps to (named, so appended columns change nothing here). */
function focusRow(record: CostRecord, names: readonly string[]): Record<string, unknown> {
  const columns = focusTable.columns.filter((c) => names.includes(c.name));
  return Object.fromEntries(columns.map((c) => [c.name, c.value(record, CONTEXT)]));
}

describe('a FOCUS row from a cost row', () => {
  it('keeps the cost as billed, list, contracted and effective cost, in the row currency', () => {
    expect(
      focusRow(USAGE, ['BilledCost', 'ListCost', 'ContractedCost', 'EffectiveCost', 'BillingCurrency']),
    ).toEqual({
      BilledCost: 12.5,
      ListCost: 12.5,
      ContractedCost: 12.5,
      EffectiveCost: 12.5,
      BillingCurrency: 'USD',
    });
  });

  it('spans the calendar month as the billing period and the UTC day as the charge period', () => {
    expect(
      focusRow(USAGE, ['BillingPeriodStart', 'BillingPeriodEnd', 'ChargePeriodStart', 'ChargePeriodEnd']),
    ).toEqual({
      BillingPeriodStart: Date.UTC(2026, 2, 1),
      BillingPeriodEnd: Date.UTC(2026, 3, 1),
      ChargePeriodStart: Date.UTC(2026, 2, 15),
      ChargePeriodEnd: Date.UTC(2026, 2, 16),
    });
  });

  it('bills a linked account to its payer and names the sub-account after its service account', () => {
    expect(
      focusRow(USAGE, ['BillingAccountId', 'BillingAccountName', 'SubAccountId', 'SubAccountName']),
    ).toEqual({
      BillingAccountId: '999999999999',
      BillingAccountName: 'Payer Org',
      SubAccountId: '111111111111',
      SubAccountName: 'Shop (prod)',
    });
  });

  it('bills a standalone account to itself', () => {
    const alone = { ...USAGE, service_account_id: 'sa-alone' };

    expect(focusRow(alone, ['BillingAccountId', 'BillingAccountName'])).toEqual({
      BillingAccountId: '111111111111',
      BillingAccountName: 'Lab',
    });
  });

  it('maps a usage row: quantities in FOCUS units, category and frequency from the plugin', () => {
    expect(
      focusRow(USAGE, [
        'ChargeCategory',
        'ChargeFrequency',
        'ConsumedQuantity',
        'ConsumedUnit',
        'PricingQuantity',
        'PricingUnit',
        'x_charge_category_basis',
      ]),
    ).toEqual({
      ChargeCategory: 'Usage',
      ChargeFrequency: 'Usage-Based',
      ConsumedQuantity: 3,
      ConsumedUnit: 'Hours',
      PricingQuantity: 3,
      PricingUnit: 'Hours',
      x_charge_category_basis: 'plugin',
    });
  });

  it('maps a recurring fee as a purchase: no consumed quantity, no effective cost', () => {
    const fee = {
      ...USAGE,
      additional_info: JSON.stringify({ 'Line Item Type': 'SavingsPlanRecurringFee' }),
    };

    expect(
      focusRow(fee, [
        'ChargeCategory',
        'ChargeFrequency',
        'ConsumedQuantity',
        'PricingQuantity',
        'EffectiveCost',
      ]),
    ).toEqual({
      ChargeCategory: 'Purchase',
      ChargeFrequency: 'Recurring',
      ConsumedQuantity: null,
      PricingQuantity: 3,
      EffectiveCost: 0,
    });
  });

  it('names the provider, region and service, and categorises the service', () => {
    expect(
      focusRow(USAGE, [
        'ServiceProviderName',
        'RegionId',
        'RegionName',
        'ServiceName',
        'ServiceCategory',
        'ResourceId',
      ]),
    ).toEqual({
      ServiceProviderName: 'AWS',
      RegionId: 'ap-northeast-2',
      RegionName: 'Asia Pacific (Seoul)',
      ServiceName: 'AmazonEC2',
      ServiceCategory: 'Compute',
      ResourceId: 'i-0abc',
    });
  });

  it('infers a credit from a negative cost when the plugin names no charge type', () => {
    const refund = { ...USAGE, cost: -4, additional_info: '{}' };

    expect(focusRow(refund, ['ChargeCategory', 'ChargeFrequency', 'x_charge_category_basis'])).toEqual({
      ChargeCategory: 'Credit',
      ChargeFrequency: 'One-Time',
      x_charge_category_basis: 'inferred',
    });
  });
});
