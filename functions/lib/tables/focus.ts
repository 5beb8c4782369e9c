// The focus table: one FOCUS 1.3 row per exported Cloudforet cost row, derived from the published
// `costs` object of a (data source, billed day) unit (functions/lib/focus/). Column by column, and
// why: docs/focus.md. Partitioned by x_billing_period=YYYY-MM/x_charge_day=DD (layout.ts).

import { chargeFrequencyOf, serviceCategoryOf } from '../focus/rows/mapping.ts';
import { pricingCategoryOf, skuOf } from '../focus/rows/pricing.ts';
import {
  amount,
  type CostRecord,
  commitment,
  consumed,
  day,
  derived,
  type FocusContext,
  objectOf,
  priced,
  resourceId,
  resourceName,
  resourceType,
  text,
} from '../focus/rows/row.ts';
import type { Column, TableDef } from '../parquet/columns.ts';

export type { CostRecord, FocusContext } from '../focus/rows/row.ts';

/** The names FOCUS tools show when Cloudforet's provider/list does not name a provider. */
const KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  aws: 'AWS',
  azure: 'Microsoft',
  google_cloud: 'Google Cloud',
};

const DAY_MS = 86_400_000;

/**
 * Tags as a MAP<string, string> (Glue `map<string,string>`, a Parquet MAP): what Trino can read
 * and FOCUS tools (CID) expect. Cloudforet's tags are provider tags with string values; any
 * other value becomes its JSON text (3 -> "3", true -> "true", {"a":1} -> "{\"a\":1}"), so one
 * odd tag does not lose the rest. A null value stays NULL (a key without a value); an empty key
 * is dropped (Trino map keys are not empty by FOCUS's rules for keys). No tags: NULL.
 */
export function focusTags(value: unknown): Record<string, string | null> | null {
  const tags = objectOf(value);
  if (!tags) return null;
  // No prototype: a tag key "__proto__" (a valid AWS tag key) is then a key like any other, where
  // on a plain object assigning it would set the prototype and lose the tag.
  const map: Record<string, string | null> = Object.create(null);
  let count = 0;
  for (const [key, v] of Object.entries(tags)) {
    if (key === '') continue;
    map[key] = v === null || typeof v === 'string' ? v : JSON.stringify(v);
    count++;
  }
  return count === 0 ? null : map;
}

function providerName(r: CostRecord, c: FocusContext): string | null {
  const code = text(r.provider);
  if (code === null) return null;
  return c.providerNames.get(code) ?? KNOWN_PROVIDERS[code] ?? code;
}

function monthStartMs(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, 1);
}

function nextMonthStartMs(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 1);
}

function dayStartMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

function serviceAccount(r: CostRecord, c: FocusContext) {
  const id = text(r.service_account_id);
  return id === null ? undefined : c.serviceAccounts.get(id);
}

function payer(r: CostRecord, c: FocusContext) {
  const trusted = serviceAccount(r, c)?.trustedAccountId;
  return trusted === undefined ? undefined : c.trustedAccounts.get(trusted);
}

/**
 * The payer's provider account id, else the billing account the plugin names (the Google plugin's
 * `Billing Account ID`), else the row's own account (a standalone account bills itself); a row
 * with none is billed through its Cloudforet service account, else its data source.
 */
function billingAccountId(r: CostRecord, c: FocusContext): string | null {
  return (
    text(payer(r, c)?.accountId) ??
    text(derived(r, c).info?.['Billing Account ID']) ??
    text(r.account_id) ??
    text(r.service_account_id) ??
    text(r.data_source_id)
  );
}

/** The names plugins give the row's account: Google's project, Azure's subscription. */
const PLUGIN_ACCOUNT_NAMES = ['Project Name', 'Subscription Name'] as const;

type FocusColumn = Column<CostRecord, FocusContext>;

const string = (name: string, description: string, value: FocusColumn['value']): FocusColumn => ({
  name,
  type: 'string',
  description,
  value,
});
const double = (name: string, description: string, value: FocusColumn['value']): FocusColumn => ({
  name,
  type: 'double',
  description,
  value,
});
const timestamp = (name: string, description: string, value: FocusColumn['value']): FocusColumn => ({
  name,
  type: 'timestamp',
  description,
  value,
});
/**
 * A FOCUS column Cloudforet's cost rows do not fill yet: present, as the spec asks where the clouds
 * support the concept (docs/focus.md, "Columns present but NULL"), and NULL on every row.
 */
const notYet = (name: string, type: 'string' | 'double', description: string): FocusColumn => ({
  name,
  type,
  description,
  value: () => null,
});
const custom = (name: string, field: string, description: string): FocusColumn =>
  string(name, description, (r) => text(r[field]));

export const focusTable: TableDef<CostRecord, FocusContext> = {
  name: 'focus',
  partitionKey: 'x_billing_period',
  dayKey: 'x_charge_day',
  schemaVersion: 4,
  description:
    'FOCUS 1.3 cost and usage rows, one per Cloudforet cost row, derived from the costs table; ' +
    'one file per data source and charge day.',
  columns: [
    double(
      'BilledCost',
      'The invoiced charge: data["Actual Cost"] where the plugin keeps it apart and this app may read it, else cost',
      (r, c) => derived(r, c).costs.billed,
    ),
    string(
      'BillingAccountId',
      'Payer: the trusted account billing the service account, else the provider account itself',
      billingAccountId,
    ),
    string(
      'BillingAccountName',
      "The payer's display name (a standalone account: the service account's); else its id",
      (r, c) => {
        const sa = serviceAccount(r, c);
        // A billing account only the plugin names has no name Cloudforet knows: its id.
        const pluginPayer = text(derived(r, c).info?.['Billing Account ID']) !== null;
        const name =
          sa?.trustedAccountId !== undefined ? text(payer(r, c)?.name) : pluginPayer ? null : text(sa?.name);
        return name ?? billingAccountId(r, c);
      },
    ),
    string('BillingCurrency', "The data source's currency (ISO 4217)", (r) => text(r.currency)),
    timestamp('BillingPeriodEnd', 'First instant of the next calendar month (exclusive)', (r) =>
      nextMonthStartMs(day(r)),
    ),
    timestamp('BillingPeriodStart', 'First instant of the calendar month of the charge', (r) =>
      monthStartMs(day(r)),
    ),
    notYet('CapacityReservationId', 'string', 'NULL: Cloudforet cost rows name no capacity reservation'),
    notYet('CapacityReservationStatus', 'string', 'NULL: with CapacityReservationId'),
    string(
      'ChargeCategory',
      'Usage, Purchase, Tax, Credit or Adjustment (docs/focus.md)',
      (r, c) => derived(r, c).category,
    ),
    string('ChargeClass', 'NULL: restated days replace their rows (docs/focus.md)', () => null),
    string('ChargeDescription', "The provider's usage type (Cloudforet keeps no description)", (r) =>
      text(r.usage_type),
    ),
    string('ChargeFrequency', 'Usage-Based, Recurring or One-Time, from the charge category', (r, c) =>
      chargeFrequencyOf(derived(r, c).category, derived(r, c).lineItemType),
    ),
    timestamp('ChargePeriodEnd', '00:00 UTC of the next day (exclusive)', (r) => dayStartMs(day(r)) + DAY_MS),
    timestamp('ChargePeriodStart', '00:00 UTC of billed_date', (r) => dayStartMs(day(r))),
    string(
      'CommitmentDiscountCategory',
      'Usage (a reservation) or Spend (a savings plan)',
      (r, c) => commitment(r, c)?.category ?? null,
    ),
    string(
      'CommitmentDiscountId',
      "The plugin's Benefit Id, else its Reservation Id",
      (r, c) => commitment(r, c)?.id ?? null,
    ),
    string(
      'CommitmentDiscountName',
      "The plugin's Benefit Name, else its Reservation Name",
      (r, c) => commitment(r, c)?.name ?? null,
    ),
    notYet('CommitmentDiscountQuantity', 'double', 'NULL: Cloudforet cost rows carry no commitment quantity'),
    string(
      'CommitmentDiscountStatus',
      'Used, or Unused on the unused-commitment charge types; Usage rows',
      (r, c) => commitment(r, c)?.status ?? null,
    ),
    string('CommitmentDiscountType', 'Reservation or Savings Plan', (r, c) => commitment(r, c)?.type ?? null),
    notYet('CommitmentDiscountUnit', 'string', 'NULL: with CommitmentDiscountQuantity'),
    double('ConsumedQuantity', 'usage_quantity, on Usage rows that name a unit', (r, c) =>
      consumed(r, c) ? amount(r.usage_quantity) : null,
    ),
    string('ConsumedUnit', 'usage_unit in FOCUS unit format, on Usage rows that name one', (r, c) =>
      consumed(r, c) ? derived(r, c).unit : null,
    ),
    double(
      'ContractedCost',
      'BilledCost: Cloudforet keeps no negotiated prices',
      (r, c) => derived(r, c).costs.billed,
    ),
    notYet('ContractedUnitPrice', 'double', 'NULL: Cloudforet cost rows carry no negotiated unit price'),
    double(
      'EffectiveCost',
      'data["Amortized Cost"] on Usage rows that have it, else BilledCost; 0 on Purchase rows',
      (r, c) => derived(r, c).costs.effective,
    ),
    string('HostProviderName', 'The cloud whose costs these are', providerName),
    string('InvoiceIssuerName', 'The provider (Cloudforet records no reseller)', providerName),
    double(
      'ListCost',
      'The pay-as-you-go cost where the plugin gives it (x_list_cost_basis), else BilledCost',
      (r, c) => derived(r, c).costs.list,
    ),
    double(
      'ListUnitPrice',
      'Pay-as-you-go price per PricingUnit where the plugin gives one (docs/focus.md)',
      (r, c) => derived(r, c).costs.listUnitPrice,
    ),
    string('PricingCategory', "From the plugin's Pricing Model: Standard, Dynamic or Committed", (r, c) =>
      pricingCategoryOf(derived(r, c).info, derived(r, c).category),
    ),
    double('PricingQuantity', 'usage_quantity, on Usage and Purchase rows that name a unit', (r, c) =>
      priced(r, c) ? amount(r.usage_quantity) : null,
    ),
    string(
      'PricingUnit',
      'usage_unit in FOCUS unit format, on Usage and Purchase rows that name one',
      (r, c) => (priced(r, c) ? derived(r, c).unit : null),
    ),
    string('ProviderName', 'Deprecated in FOCUS 1.3 (ServiceProviderName); kept for 1.2 tools', providerName),
    string('PublisherName', 'Deprecated in FOCUS 1.3 (HostProviderName); kept for 1.2 tools', providerName),
    string('RegionId', 'Provider region code', (r) => text(r.region_code)),
    string('RegionName', 'Region display name (region/list), else the code', (r, c) => {
      const code = text(r.region_code);
      if (code === null) return null;
      const key = text(r.region_key);
      return (key === null ? undefined : c.regionNames.get(key)) ?? code;
    }),
    string(
      'ResourceId',
      "Provider resource id (the Azure plugin's Resource Id where the row has no resource)",
      (r, c) => resourceId(r, c),
    ),
    string(
      'ResourceName',
      "The resource's display name (the plugin's, else inventory's); NULL where none is known",
      resourceName,
    ),
    string(
      'ResourceType',
      "The resource's kind as inventory files it (`<cloud service group> <type>`, e.g. `EC2 Instance`); NULL where inventory does not know the resource",
      resourceType,
    ),
    string('ServiceCategory', 'FOCUS service category from the product (docs/focus.md)', (r) =>
      serviceCategoryOf(text(r.product)),
    ),
    string('ServiceName', 'Provider product or service', (r) => text(r.product)),
    string(
      'ServiceProviderName',
      'The provider that sold the service (Cloudforet records no reseller)',
      providerName,
    ),
    string(
      'SkuId',
      "Azure's Product Id (the plugin's); NULL for plugins that keep none",
      (r, c) => skuOf(derived(r, c).info, derived(r, c).category).skuId,
    ),
    string('SkuMeter', "Azure's Meter Name, where the row has a SkuId", (r, c) => {
      const d = derived(r, c);
      return skuOf(d.info, d.category).skuId === null ? null : text(d.info?.['Meter Name']);
    }),
    {
      name: 'SkuPriceDetails',
      type: 'map',
      description: 'Properties of the SKU price, key to value; NULL where the row has none',
      value: () => null,
    },
    string(
      'SkuPriceId',
      '<Meter Id>:<Product Id>, the key the Azure plugin looks its retail price up by',
      (r, c) => skuOf(derived(r, c).info, derived(r, c).category).skuPriceId,
    ),
    string('SubAccountId', 'Provider account, subscription or project', (r) => text(r.account_id)),
    string(
      'SubAccountName',
      "The service account's display name, else the plugin's (project, subscription), else the id",
      (r, c) => {
        const id = text(r.account_id);
        if (id === null) return null;
        const info = derived(r, c).info;
        const plugin = PLUGIN_ACCOUNT_NAMES.map((k) => text(info?.[k])).find((n) => n !== null);
        return text(serviceAccount(r, c)?.name) ?? plugin ?? id;
      },
    ),
    {
      name: 'Tags',
      type: 'map',
      description: 'Resource tags, key to value; a value that is not a string is its JSON text',
      value: (r) => focusTags(r.tags),
    },
    custom('x_cost_id', 'cost_id', 'Cloudforet cost row id'),
    custom('x_data_source_id', 'data_source_id', 'Cloudforet cost data source'),
    custom('x_domain_id', 'domain_id', 'Cloudforet domain'),
    custom('x_workspace_id', 'workspace_id', 'Cloudforet workspace (virtual ones mapped to the real)'),
    custom('x_v_workspace_id', 'v_workspace_id', 'The original virtual workspace id, if any'),
    custom('x_project_id', 'project_id', 'Cloudforet project'),
    custom('x_service_account_id', 'service_account_id', 'Cloudforet service account'),
    custom('x_provider', 'provider', 'Cloudforet provider code'),
    custom('x_usage_type', 'usage_type', 'Provider usage type'),
    custom('x_usage_unit', 'usage_unit', 'The usage unit as the provider wrote it'),
    custom('x_region_key', 'region_key', 'provider.region_code'),
    string(
      'x_charge_category_basis',
      "plugin: from the plugin's charge type; inferred: from the cost's sign",
      (r, c) => derived(r, c).basis,
    ),
    double('x_cloudforet_cost', "Cloudforet's cost, as the costs table holds it", (r) => amount(r.cost)),
    string(
      'x_cloudforet_cost_basis',
      "What Cloudforet's cost is: pay-as-you-go, markup, or as-reported (docs/focus.md)",
      (r, c) => derived(r, c).costs.costBasis,
    ),
    string(
      'x_billed_cost_basis',
      'actual (data["Actual Cost"]), cost, or cost-actual-denied (permissions.deny hides it from this app)',
      (r, c) => derived(r, c).costs.billedBasis,
    ),
    string(
      'x_effective_cost_basis',
      'amortized (data["Amortized Cost"]), billed, or purchase (0)',
      (r, c) => derived(r, c).costs.effectiveBasis,
    ),
    string(
      'x_list_cost_basis',
      'pay-as-you-go (cost), unit-price (PayG Unit Price × PricingQuantity), or billed',
      (r, c) => derived(r, c).costs.listBasis,
    ),
    double('x_usage_quantity', 'usage_quantity as Cloudforet gave it, with or without a unit', (r) =>
      amount(r.usage_quantity),
    ),
    custom('x_additional_info', 'additional_info', 'Plugin-defined details (JSON)'),
    timestamp('x_exported_at', 'When the focus row was written (UTC)', (_r, c) => c.exportedAtMs),
  ],
};
