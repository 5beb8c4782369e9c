// The focus table: one FOCUS 1.3 row per exported Cloudforet cost row, derived from the published
// `costs` object of a (data source, billed day) unit (functions/lib/focus/). Column by column, and
// why: docs/focus.md. Partitioned by x_billing_period=YYYY-MM/x_charge_day=DD (layout.ts).
import type { Column, TableDef } from '../parquet/columns.ts';
import {
  type ChargeCategory,
  chargeCategoryOf,
  chargeFrequencyOf,
  focusUnitOf,
  serviceCategoryOf,
} from './focus-mapping.ts';

/** A row of a published costs object, as a Parquet reader gives it back, plus `billed_date`. */
export type CostRecord = Record<string, unknown>;

const day = (r: CostRecord) => r.billed_date as string;

/** What a FOCUS row needs besides its cost row: names from Cloudforet's identity, the run. */
export interface FocusContext {
  /** service_account_id -> its display name and the trusted (payer) account billing it. */
  readonly serviceAccounts: ReadonlyMap<string, { name?: string; trustedAccountId?: string }>;
  /** trusted_account_id -> the payer's provider account id and display name. */
  readonly trustedAccounts: ReadonlyMap<string, { accountId?: string; name?: string }>;
  /** provider code -> display name (provider/list). */
  readonly providerNames: ReadonlyMap<string, string>;
  /** region_key -> display name (region/list). */
  readonly regionNames: ReadonlyMap<string, string>;
  readonly exportedAtMs: number;
}

/** The names FOCUS tools show when Cloudforet's provider/list does not name a provider. */
const KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  aws: 'AWS',
  azure: 'Microsoft',
  google_cloud: 'Google Cloud',
};

const DAY_MS = 86_400_000;

/** Empty strings are NULL in FOCUS (Null Handling); anything else as text. */
function text(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const s = typeof value === 'string' ? value : String(value);
  return s === '' ? null : s;
}

function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A JSON object column of the costs table, parsed (malformed or absent: undefined). */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

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
  const map: Record<string, string | null> = {};
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

/** Per-row values more than one column reads, worked out once per row (see FocusRowCache). */
interface Derived {
  readonly category: ChargeCategory;
  readonly basis: 'plugin' | 'inferred';
  readonly lineItemType: string | undefined;
}

const derivedOf = new WeakMap<object, Derived>();

function derived(r: CostRecord): Derived {
  let d = derivedOf.get(r);
  if (!d) {
    const info = objectOf(r.additional_info);
    const mapped = chargeCategoryOf(info, amount(r.cost));
    d = { category: mapped.category, basis: mapped.basis, lineItemType: mapped.pluginValue };
    derivedOf.set(r, d);
  }
  return d;
}

const usageOrPurchase = (r: CostRecord) => {
  const category = derived(r).category;
  return category === 'Usage' || category === 'Purchase';
};

function serviceAccount(r: CostRecord, c: FocusContext) {
  const id = text(r.service_account_id);
  return id === null ? undefined : c.serviceAccounts.get(id);
}

function payer(r: CostRecord, c: FocusContext) {
  const trusted = serviceAccount(r, c)?.trustedAccountId;
  return trusted === undefined ? undefined : c.trustedAccounts.get(trusted);
}

/**
 * The payer's provider account id, else the row's own account (a standalone account bills itself);
 * a row with neither is billed through its Cloudforet service account, else its data source.
 */
function billingAccountId(r: CostRecord, c: FocusContext): string {
  return (
    text(payer(r, c)?.accountId) ??
    text(r.account_id) ??
    text(r.service_account_id) ??
    text(r.data_source_id) ??
    'unknown'
  );
}

/** FOCUS wants a unit wherever a quantity is given; a Cloudforet row may lack one. */
const unit = (r: CostRecord) => {
  const u = text(r.usage_unit);
  return u === null ? 'Unknown' : focusUnitOf(u);
};

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
  schemaVersion: 3,
  description:
    'FOCUS 1.3 cost and usage rows, one per Cloudforet cost row, derived from the costs table; ' +
    'one file per data source and charge day.',
  columns: [
    double('BilledCost', 'Cloudforet cost, in BillingCurrency', (r) => amount(r.cost)),
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
        const name = sa?.trustedAccountId !== undefined ? text(payer(r, c)?.name) : text(sa?.name);
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
      (r) => derived(r).category,
    ),
    string('ChargeClass', 'NULL: restated days replace their rows (docs/focus.md)', () => null),
    string('ChargeDescription', "The provider's usage type (Cloudforet keeps no description)", (r) =>
      text(r.usage_type),
    ),
    string('ChargeFrequency', 'Usage-Based, Recurring or One-Time, from the charge category', (r) =>
      chargeFrequencyOf(derived(r).category, derived(r).lineItemType),
    ),
    timestamp('ChargePeriodEnd', '00:00 UTC of the next day (exclusive)', (r) => dayStartMs(day(r)) + DAY_MS),
    timestamp('ChargePeriodStart', '00:00 UTC of billed_date', (r) => dayStartMs(day(r))),
    notYet(
      'CommitmentDiscountCategory',
      'string',
      'Spend or Usage; NULL where no commitment discount is named',
    ),
    notYet(
      'CommitmentDiscountId',
      'string',
      "The commitment discount's provider id; NULL where none is named",
    ),
    notYet(
      'CommitmentDiscountName',
      'string',
      "The commitment discount's display name; NULL where none is named",
    ),
    notYet('CommitmentDiscountQuantity', 'double', 'NULL: Cloudforet cost rows carry no commitment quantity'),
    notYet(
      'CommitmentDiscountStatus',
      'string',
      'Used or Unused; NULL where no commitment discount is named',
    ),
    notYet('CommitmentDiscountType', 'string', "The provider's kind of commitment; NULL where none is named"),
    notYet('CommitmentDiscountUnit', 'string', 'NULL: with CommitmentDiscountQuantity'),
    double('ConsumedQuantity', 'usage_quantity, on Usage rows only', (r) =>
      derived(r).category === 'Usage' ? amount(r.usage_quantity) : null,
    ),
    string(
      'ConsumedUnit',
      'usage_unit in FOCUS unit format (Unknown when the row names none), on Usage rows only',
      (r) => (derived(r).category === 'Usage' ? unit(r) : null),
    ),
    double('ContractedCost', 'BilledCost: Cloudforet keeps no negotiated prices', (r) => amount(r.cost)),
    notYet('ContractedUnitPrice', 'double', 'NULL: Cloudforet cost rows carry no negotiated unit price'),
    double(
      'EffectiveCost',
      'BilledCost; 0 on Purchase rows (FOCUS: a purchase is effective where it is used)',
      (r) => (derived(r).category === 'Purchase' ? 0 : amount(r.cost)),
    ),
    string('HostProviderName', 'The cloud whose costs these are', providerName),
    string('InvoiceIssuerName', 'The provider (Cloudforet records no reseller)', providerName),
    double('ListCost', 'BilledCost: Cloudforet keeps no list prices', (r) => amount(r.cost)),
    notYet('ListUnitPrice', 'double', "The provider's public unit price; NULL where the row has none"),
    notYet('PricingCategory', 'string', 'Standard, Dynamic, Committed or Other; NULL where unknown'),
    double('PricingQuantity', 'usage_quantity, on Usage and Purchase rows', (r) =>
      usageOrPurchase(r) ? amount(r.usage_quantity) : null,
    ),
    string(
      'PricingUnit',
      'usage_unit in FOCUS unit format (Unknown when none), on Usage and Purchase rows',
      (r) => (usageOrPurchase(r) ? unit(r) : null),
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
    string('ResourceId', 'Provider resource id', (r) => text(r.resource)),
    string('ResourceName', 'The resource id: cost rows carry no resource names', (r) => text(r.resource)),
    notYet('ResourceType', 'string', 'NULL: Cloudforet cost rows carry no resource type'),
    string('ServiceCategory', 'FOCUS service category from the product (docs/focus.md)', (r) =>
      serviceCategoryOf(text(r.product)),
    ),
    string('ServiceName', 'Provider product or service', (r) => text(r.product) ?? 'Unknown'),
    string(
      'ServiceProviderName',
      'The provider that sold the service (Cloudforet records no reseller)',
      providerName,
    ),
    notYet('SkuId', 'string', "The provider's SKU (product) id; NULL where the row has none"),
    notYet('SkuMeter', 'string', "The provider's meter of the SKU; NULL where the row has none"),
    {
      name: 'SkuPriceDetails',
      type: 'map',
      description: 'Properties of the SKU price, key to value; NULL where the row has none',
      value: () => null,
    },
    notYet(
      'SkuPriceId',
      'string',
      "The provider's price-list id of the SKU price; NULL where the row has none",
    ),
    string('SubAccountId', 'Provider account, subscription or project', (r) => text(r.account_id)),
    string(
      'SubAccountName',
      "The service account's display name, else the account id; NULL with SubAccountId",
      (r, c) => {
        const id = text(r.account_id);
        return id === null ? null : (text(serviceAccount(r, c)?.name) ?? id);
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
      (r) => derived(r).basis,
    ),
    custom('x_additional_info', 'additional_info', 'Plugin-defined details (JSON)'),
    timestamp('x_exported_at', 'When the focus row was written (UTC)', (_r, c) => c.exportedAtMs),
  ],
};
