// FOCUS values from Cloudforet cost rows: charge category and frequency from the plugin's own
// charge-type field, service category from the product. The tables, and their sources, are in
// docs/focus.md; a value no table knows falls back as documented there, never to NULL.

export type ChargeCategory = 'Usage' | 'Purchase' | 'Tax' | 'Credit' | 'Adjustment';

/**
 * The plugin fields that carry a provider's charge type, in additional_info: AWS cost rows carry
 * the Cost and Usage Report's line item type, Azure rows the cost details' charge type, Google
 * Cloud rows the billing export's cost type.
 */
export const CHARGE_TYPE_FIELDS = ['Line Item Type', 'Charge Type', 'Cost Type'] as const;

/** Lower-cased plugin charge type -> FOCUS ChargeCategory. */
export const CHARGE_CATEGORIES: Readonly<Record<string, ChargeCategory>> = {
  // AWS CUR line_item_line_item_type
  usage: 'Usage',
  discountedusage: 'Usage',
  savingsplancoveredusage: 'Usage',
  savingsplannegation: 'Usage',
  rifee: 'Purchase',
  fee: 'Purchase',
  savingsplanrecurringfee: 'Purchase',
  savingsplanupfrontfee: 'Purchase',
  tax: 'Tax',
  credit: 'Credit',
  refund: 'Credit',
  bundleddiscount: 'Credit',
  edpdiscount: 'Credit',
  privateratediscount: 'Credit',
  sppdiscount: 'Credit',
  distributordiscount: 'Credit',
  // Azure cost details ChargeType (the plugin's enums: data_source_manager.py)
  purchase: 'Purchase',
  roundadjustment: 'Adjustment',
  unusedreservation: 'Usage',
  unusedsavingsplan: 'Usage',
  adjustment: 'Adjustment',
  roundingadjustment: 'Adjustment',
  // Google Cloud billing export cost_type
  regular: 'Usage',
  rounding_error: 'Adjustment',
};

/** Plugin charge types that recur every period (the rest of Purchase is one-time). */
const RECURRING = new Set(['rifee', 'savingsplanrecurringfee']);

export interface MappedCategory {
  readonly category: ChargeCategory;
  /** plugin: the plugin named the charge type; inferred: it did not, so the cost's sign decides. */
  readonly basis: 'plugin' | 'inferred';
  /** The plugin's charge type, lower-cased, when it named a known one. */
  readonly pluginValue?: string;
}

export function chargeCategoryOf(
  info: Readonly<Record<string, unknown>> | undefined,
  cost: number,
): MappedCategory {
  for (const field of CHARGE_TYPE_FIELDS) {
    const value = info?.[field];
    if (typeof value !== 'string') continue;
    const key = value.replaceAll(' ', '').toLowerCase();
    const category = CHARGE_CATEGORIES[key] ?? CHARGE_CATEGORIES[value.toLowerCase()];
    if (category) return { category, basis: 'plugin', pluginValue: key };
  }
  // No charge type the tables know: a negative amount is money back, anything else is usage.
  return { category: cost < 0 ? 'Credit' : 'Usage', basis: 'inferred' };
}

/** FOCUS ChargeFrequency: usage is usage-based; recurring fees recur; the rest happens once. */
export function chargeFrequencyOf(category: ChargeCategory, pluginValue: string | undefined): string {
  if (category === 'Usage') return 'Usage-Based';
  if (category === 'Purchase' && pluginValue !== undefined && RECURRING.has(pluginValue)) return 'Recurring';
  return 'One-Time';
}

/** Cloudforet product name -> FOCUS ServiceCategory (the spec's allowed values). */
export const SERVICE_CATEGORIES: Readonly<Record<string, string>> = {
  AmazonEC2: 'Compute',
  AWSLambda: 'Compute',
  'Compute Engine': 'Compute',
  'Virtual Machines': 'Compute',
  AmazonS3: 'Storage',
  'Cloud Storage': 'Storage',
  Storage: 'Storage',
  AmazonRDS: 'Databases',
  'Cloud SQL': 'Databases',
  'Azure Database for PostgreSQL': 'Databases',
  AmazonDynamoDB: 'Databases',
  BigQuery: 'Analytics',
  AmazonAthena: 'Analytics',
  AmazonCloudWatch: 'Management and Governance',
  'Azure Monitor': 'Management and Governance',
  'Cloud Monitoring': 'Management and Governance',
  AmazonVPC: 'Networking',
  AmazonCloudFront: 'Networking',
  'Virtual Network': 'Networking',
  'Cloud CDN': 'Networking',
  AWSKeyManagementService: 'Security',
  'Key Vault': 'Security',
};

export function serviceCategoryOf(product: string | null): string {
  return (product !== null && SERVICE_CATEGORIES[product]) || 'Other';
}

/**
 * Provider usage units -> FOCUS Unit Format (`Hours`, `GB-Months`, …), for the units AWS, Azure
 * and Google Cloud cost rows carry; any other unit is kept as the provider wrote it (the original
 * is always in x_usage_unit).
 */
export const FOCUS_UNITS: Readonly<Record<string, string>> = {
  Hrs: 'Hours',
  hour: 'Hours',
  hours: 'Hours',
  '1 Hour': 'Hours',
  'GB-Mo': 'GB-Months',
  '1 GB/Month': 'GB-Months',
  'gibibyte month': 'GiB-Months',
  tebibyte: 'TiB',
  gibibyte: 'GiB',
  'Lambda-GB-Second': 'GB-Seconds',
  Request: 'Requests',
  requests: 'Requests',
};

/**
 * What plugins write where no unit applies: AWS Cost Explorer answers "N/A" for a group mixing
 * units. No unit at all, not a unit named "N/A" (FOCUS forbids placeholder values).
 */
const NO_UNIT = new Set(['n/a', 'na', 'none', 'null', 'unknown', '-']);

export function focusUnitOf(unit: string | null): string | null {
  if (unit === null || NO_UNIT.has(unit.trim().toLowerCase()) || unit.trim() === '') return null;
  return FOCUS_UNITS[unit] ?? unit;
}
