// FOCUS pricing, commitment and SKU values from what the cost plugins keep in additional_info.
// Only the Azure plugin carries them (manager/cost_manager.py `_get_additional_info` and
// `_make_benefit_cost_info` of cloudforet-io/plugin-azure-cost-mgmt-cost-datasource): Pricing
// Model, Benefit Id / Name, Reservation Id / Name, Charge Type, Meter Id, Product Id. The AWS and
// Google plugins keep none of them, so their rows leave these columns NULL (docs/focus.md).
import type { ChargeCategory } from './mapping.ts';

type Info = Readonly<Record<string, unknown>> | undefined;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Lower-cased, spaces removed: the plugins spell one value several ways (SavingsPlan, Savings Plan). */
const key = (v: unknown): string | null => str(v)?.replaceAll(' ', '').toLowerCase() ?? null;

const COMMITTED = new Set(['reservation', 'reserved', 'savingsplan']);

/**
 * FOCUS PricingCategory from the pricing model: on-demand is Standard, spot is Dynamic, a charge a
 * reservation or savings plan covers is Committed, and the purchase of one is Standard ("This does
 * include the purchase of a commitment discount at agreed upon rates"). NULL on Tax (a MUST),
 * where the plugin names no model, and on a committed charge whose commitment has no id.
 */
export function pricingCategoryOf(info: Info, category: ChargeCategory): string | null {
  if (category === 'Tax') return null;
  const model = key(info?.['Pricing Model']);
  if (model === null) return null;
  if (model === 'ondemand') return 'Standard';
  if (model === 'spot') return 'Dynamic';
  if (!COMMITTED.has(model)) return 'Other';
  if (category === 'Purchase') return 'Standard';
  // Committed names a commitment discount: without its id the row cannot say which, so NULL.
  return commitmentOf(info, category) === null ? null : 'Committed';
}

export interface Commitment {
  readonly id: string;
  readonly name: string | null;
  /** FOCUS CommitmentDiscountCategory: a reservation commits to usage, a savings plan to spend. */
  readonly category: 'Usage' | 'Spend';
  /** CommitmentDiscountType: the provider's own name for the kind of commitment. */
  readonly type: string;
  /** CommitmentDiscountStatus on Usage rows: Unused for the plugin's unused-commitment charge types. */
  readonly status: 'Used' | 'Unused' | null;
}

/**
 * The commitment discount a charge is related to: its Benefit Id (the plugin's fully qualified
 * Azure id), else its Reservation Id, on rows whose pricing model is a reservation or savings plan.
 */
export function commitmentOf(info: Info, category: ChargeCategory): Commitment | null {
  const model = key(info?.['Pricing Model']);
  if (model === null || !COMMITTED.has(model)) return null;
  const id = str(info?.['Benefit Id']) ?? str(info?.['Reservation Id']);
  if (id === null) return null;
  const savingsPlan = model === 'savingsplan';
  const charge = key(info?.['Charge Type']);
  return {
    id,
    name: str(info?.['Benefit Name']) ?? str(info?.['Reservation Name']),
    category: savingsPlan ? 'Spend' : 'Usage',
    type: savingsPlan ? 'Savings Plan' : 'Reservation',
    status:
      category !== 'Usage'
        ? null
        : charge === 'unusedreservation' || charge === 'unusedsavingsplan'
          ? 'Unused'
          : 'Used',
  };
}

/**
 * SkuId is Azure's Product Id; SkuPriceId is `<Meter Id>:<Product Id>`, the key under which the
 * plugin itself looks a retail price up (`_get_unit_price_from_meter_id` matches the price list's
 * meterId and skuId, and caches it as f"{meter_id}:{product_id}"). NULL on Tax rows (a MUST).
 */
export function skuOf(
  info: Info,
  category: ChargeCategory,
): { skuId: string | null; skuPriceId: string | null } {
  if (category === 'Tax') return { skuId: null, skuPriceId: null };
  const product = str(info?.['Product Id']);
  const meter = str(info?.['Meter Id']);
  return { skuId: product, skuPriceId: product !== null && meter !== null ? `${meter}:${product}` : null };
}
