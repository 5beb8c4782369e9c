// What one FOCUS row is worked out from: its cost row, the context of the pass (names, each data
// source's cost basis), and the values more than one column reads, derived once per row.
import { type CostBasisMeta, type RowCosts, rowCosts } from './basis.ts';
import { type ChargeCategory, chargeCategoryOf, focusUnitOf } from './mapping.ts';
import { type Commitment, commitmentOf } from './pricing.ts';

/** A row of a published costs object, as a Parquet reader gives it back, plus `billed_date`. */
export type CostRecord = Record<string, unknown>;

/** The billed day the focus pass sets on each row. */
export const day = (r: CostRecord) => r.billed_date as string;

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
  /** data_source_id -> what its `cost` and `data` keys are (focus-basis.ts). */
  readonly costBases: ReadonlyMap<string, CostBasisMeta>;
  /** Provider resource id -> the display name inventory gives it (never the id itself). */
  readonly resourceNames: ReadonlyMap<string, string>;
  /** Provider resource id -> its kind as inventory files it (`<group> <type>`); absent: none known. */
  readonly resourceTypes?: ReadonlyMap<string, string>;
  readonly exportedAtMs: number;
}

/** Empty strings are NULL in FOCUS (Null Handling); anything else as text. */
export function text(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const s = typeof value === 'string' ? value : String(value);
  return s === '' ? null : s;
}

export function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A JSON object column of the costs table, parsed (malformed or absent: undefined). */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
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

/** Per-row values more than one column reads, worked out once per row. */
interface Derived {
  readonly category: ChargeCategory;
  readonly basis: 'plugin' | 'inferred';
  readonly lineItemType: string | undefined;
  readonly info: Record<string, unknown> | undefined;
  /** The usage unit in FOCUS Unit Format; null where the row names none. */
  readonly unit: string | null;
  readonly costs: RowCosts;
}

const derivedOf = new WeakMap<object, Derived>();

export function derived(r: CostRecord, c: FocusContext): Derived {
  let d = derivedOf.get(r);
  if (!d) {
    const info = objectOf(r.additional_info);
    const mapped = chargeCategoryOf(info, amount(r.cost));
    const unit = focusUnitOf(text(r.usage_unit));
    const category = mapped.category;
    const pricedRow = unit !== null && (category === 'Usage' || category === 'Purchase');
    const costs = rowCosts(c.costBases.get(text(r.data_source_id) ?? ''), {
      cost: amount(r.cost),
      data: objectOf(r.data),
      info,
      category,
      pricingQuantity: pricedRow ? amount(r.usage_quantity) : null,
    });
    d = { category, basis: mapped.basis, lineItemType: mapped.pluginValue, info, unit, costs };
    derivedOf.set(r, d);
  }
  return d;
}

/**
 * Where a quantity is given without a unit, both are NULL: FOCUS 1.3 wants a unit beside every
 * quantity ("PricingUnit MUST NOT be null when PricingQuantity is not null") and forbids
 * placeholders ("Columns MUST NOT use … placeholder values … regardless of whether the column
 * allows nulls or not"); the quantity stays in x_usage_quantity. docs/focus.md says why.
 */
export const priced = (r: CostRecord, c: FocusContext) => {
  const d = derived(r, c);
  return d.unit !== null && (d.category === 'Usage' || d.category === 'Purchase');
};
export const commitment = (r: CostRecord, c: FocusContext): Commitment | null =>
  commitmentOf(derived(r, c).info, derived(r, c).category);

/** FOCUS: "ConsumedQuantity MUST be null when … CommitmentDiscountStatus is "Unused"" (nothing was used). */
export const consumed = (r: CostRecord, c: FocusContext) => {
  const d = derived(r, c);
  return d.unit !== null && d.category === 'Usage' && commitment(r, c)?.status !== 'Unused';
};

/** The Azure plugin keeps the resource id in additional_info (cost_manager.py `_get_additional_info`). */
export const resourceId = (r: CostRecord, c: FocusContext): string | null =>
  text(r.resource) ?? text(derived(r, c).info?.['Resource Id']);

/**
 * A display name: the Azure plugin's "Resource Name" (the last segment of the resource id, the
 * name its owner gave it), else the name inventory gives the id; never the id itself.
 */
export function resourceType(r: CostRecord, c: FocusContext): string | null {
  const id = resourceId(r, c);
  return id === null ? null : (c.resourceTypes?.get(id) ?? null);
}

export function resourceName(r: CostRecord, c: FocusContext): string | null {
  const id = resourceId(r, c);
  if (id === null) return null;
  const own = text(derived(r, c).info?.['Resource Name']);
  const name = own !== null && own !== id ? own : c.resourceNames.get(id);
  return name === undefined || name === id ? null : name;
}
