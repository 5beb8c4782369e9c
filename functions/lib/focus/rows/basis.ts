// What each cost column of a FOCUS row is built from. Cloudforet's `cost` means what the data
// source's plugin makes it mean (docs/focus.md, "Cost basis per plugin"): the Azure plugin writes
// the pay-as-you-go cost (or a resale markup) into `cost` and the invoiced charge into
// data["Actual Cost"], and says so in its metadata (cost_info, data_info). This module reads that
// metadata from a data source record and picks, row by row, the figure each FOCUS column needs.

/** The data keys the Azure plugin writes (manager/cost_manager.py `_get_aggregate_data`). */
export const ACTUAL_COST = 'Actual Cost';
export const AMORTIZED_COST = 'Amortized Cost';

/** A data source's cost metadata, as data-source/list gives it to this app. */
export interface CostBasisMeta {
  /** plugin_info.metadata.cost_info.name: what `cost` is, where the plugin says (Azure: PayAsYouGo). */
  readonly costInfo?: string;
  /** The measures the plugin declares under `data` (metadata.data_info keys). */
  readonly dataInfo: readonly string[];
  /** plugin_info.options.cost_metric (Azure: ActualCost, the default, or AmortizedCost). */
  readonly costMetric?: string;
  /** plugin_info.options.include_reservation_cost_at_payg: reservation rows' `cost` is not pay-as-you-go. */
  readonly reservationCostAtPayg?: string;
  /** metadata.custom_cost_adjustment_percent p: `cost` = Actual Cost × (1 + p/100), a resale price. */
  readonly markupPercent?: number;
  /** `data` keys permissions.deny hides from this app: named by the deny list, absent from cost_data_keys. */
  readonly deniedKeys: readonly string[];
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads a data-source/list record. cost-analysis (service/data_source_service.py
 * `_filter_cost_data_keys_with_permissions_by_data_source_vo`) removes the denied keys from
 * `cost_data_keys` for every caller but a DOMAIN_ADMIN, and cost/list nulls their values
 * (service/cost_service.py `_remove_deny_fields_with_data_source_vo`): a denied key still listed
 * in cost_data_keys is one this app may read. Without cost_data_keys, a denied key counts as denied.
 */
export function costBasisOf(record: Record<string, unknown>): CostBasisMeta {
  const plugin = obj(record.plugin_info);
  const metadata = obj(plugin.metadata);
  const options = obj(plugin.options);
  const deny = obj(record.permissions).deny;
  const visible = Array.isArray(record.cost_data_keys) ? new Set(record.cost_data_keys) : undefined;
  const deniedKeys = (Array.isArray(deny) ? deny : [])
    .filter((d): d is string => typeof d === 'string' && d.startsWith('data.'))
    .map((d) => d.slice('data.'.length))
    .filter((key) => !visible?.has(key));
  const markup = metadata.custom_cost_adjustment_percent ?? options.custom_cost_adjustment_percent;
  return {
    costInfo: str(obj(metadata.cost_info).name),
    dataInfo: Object.keys(obj(metadata.data_info)),
    costMetric: str(options.cost_metric),
    reservationCostAtPayg: str(options.include_reservation_cost_at_payg),
    markupPercent: typeof markup === 'number' && Number.isFinite(markup) && markup !== 0 ? markup : undefined,
    deniedKeys: [...new Set(deniedKeys)].sort(),
  };
}

/** What Cloudforet's `cost` is (x_cloudforet_cost_basis). */
export type CloudforetCostBasis = 'pay-as-you-go' | 'markup' | 'as-reported';
/** Where BilledCost came from (x_billed_cost_basis). */
export type BilledBasis = 'actual' | 'cost' | 'cost-actual-denied';
/** Where EffectiveCost came from (x_effective_cost_basis). */
export type EffectiveBasis = 'amortized' | 'billed' | 'purchase';
/** Where ListCost came from (x_list_cost_basis). */
export type ListBasis = 'pay-as-you-go' | 'unit-price' | 'billed';

export interface RowCosts {
  readonly billed: number;
  readonly billedBasis: BilledBasis;
  readonly effective: number;
  readonly effectiveBasis: EffectiveBasis;
  readonly list: number;
  readonly listBasis: ListBasis;
  /** Non-null only where a pay-as-you-go price per pricing unit is known (list = price × quantity). */
  readonly listUnitPrice: number | null;
  readonly costBasis: CloudforetCostBasis;
}

/** What a row's costs depend on besides its data source's metadata. */
export interface RowFacts {
  readonly cost: number;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly info: Readonly<Record<string, unknown>> | undefined;
  readonly category: 'Usage' | 'Purchase' | 'Tax' | 'Credit' | 'Adjustment';
  /** PricingQuantity, or null where the row has none. */
  readonly pricingQuantity: number | null;
}

const finite = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

export function cloudforetCostBasis(meta: CostBasisMeta | undefined): CloudforetCostBasis {
  if (meta?.markupPercent !== undefined) return 'markup';
  if (meta?.costInfo?.toLowerCase() === 'payasyougo') return 'pay-as-you-go';
  return 'as-reported';
}

/**
 * The invoiced charge: data["Actual Cost"] where the plugin declares its `cost` is something else
 * (cost_info, or data_info naming the key) and this app may read it; else `cost`. With
 * cost_metric AmortizedCost the plugin still writes "Actual Cost" on every row (0 on usage a
 * reservation covers; the reservation's purchase rows carry it), though data_info names only
 * "Amortized Cost". A row without the key (the plugin's credit rows) is billed its `cost`.
 */
function billedOf(meta: CostBasisMeta | undefined, row: RowFacts): Pick<RowCosts, 'billed' | 'billedBasis'> {
  const declares = meta !== undefined && (meta.costInfo !== undefined || meta.dataInfo.includes(ACTUAL_COST));
  if (!declares) return { billed: row.cost, billedBasis: 'cost' };
  if (meta.deniedKeys.includes(ACTUAL_COST)) return { billed: row.cost, billedBasis: 'cost-actual-denied' };
  const actual = finite(row.data?.[ACTUAL_COST]);
  return actual === undefined
    ? { billed: row.cost, billedBasis: 'cost' }
    : { billed: actual, billedBasis: 'actual' };
}

/** Whether `cost` is the row's pay-as-you-go cost (cost_manager.py `_get_cost_from_result_with_options`). */
function costIsPayg(meta: CostBasisMeta | undefined, row: RowFacts): boolean {
  if (cloudforetCostBasis(meta) !== 'pay-as-you-go') return false;
  // With include_reservation_cost_at_payg set, reservation and savings plan rows carry their
  // billed cost in `cost` instead.
  const model = row.info?.['Pricing Model'];
  return meta?.reservationCostAtPayg === undefined || (model !== 'Reservation' && model !== 'SavingsPlan');
}

export function rowCosts(meta: CostBasisMeta | undefined, row: RowFacts): RowCosts {
  const { billed, billedBasis } = billedOf(meta, row);
  const usageOrPurchase = row.category === 'Usage' || row.category === 'Purchase';
  const amortized = meta?.deniedKeys.includes(AMORTIZED_COST)
    ? undefined
    : finite(row.data?.[AMORTIZED_COST]);
  const [effective, effectiveBasis]: [number, EffectiveBasis] =
    row.category === 'Purchase'
      ? [0, 'purchase']
      : row.category === 'Usage' && amortized !== undefined
        ? [amortized, 'amortized']
        : [billed, 'billed'];
  const q = row.pricingQuantity;
  const unitPrice = finite(row.info?.['PayG Unit Price']);
  let list: Pick<RowCosts, 'list' | 'listBasis' | 'listUnitPrice'> = {
    list: billed,
    listBasis: 'billed',
    listUnitPrice: null,
  };
  if (usageOrPurchase && q !== null && unitPrice !== undefined && unitPrice >= 0) {
    // The retail price the plugin looked up (amortized reservation rows): FOCUS ties ListCost to it.
    list = { list: unitPrice * q, listBasis: 'unit-price', listUnitPrice: unitPrice };
  } else if (usageOrPurchase && costIsPayg(meta, row) && q !== null && q > 0 && row.cost >= 0) {
    // ListCost is the product of the unit price and PricingQuantity, exactly, as FOCUS checks it.
    // Without a quantity to price there is no ListUnitPrice, and FOCUS then asks ListCost to match
    // BilledCost (ListCost-C-008-C): such rows keep the billed basis.
    const price = row.cost / q;
    list = { list: price * q, listBasis: 'pay-as-you-go', listUnitPrice: price };
  }
  return { billed, billedBasis, effective, effectiveBasis, ...list, costBasis: cloudforetCostBasis(meta) };
}
