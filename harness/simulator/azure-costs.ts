// Azure cost rows as cloudforet-io/plugin-azure-cost-mgmt-cost-datasource (1.3.26, src/cloudforet/
// cost_analysis/) writes them. Its `cost` is the pay-as-you-go cost, or a resale markup; the
// invoiced charge is data["Actual Cost"]. The simulator's Azure data sources take turns:
// the 1st (index 2) is set up as the plugin's default (cost_metric ActualCost), the 2nd (index 5)
// with cost_metric AmortizedCost and reservation purchases, the 3rd (index 8) with
// custom_cost_adjustment_percent and a permissions.deny on the actual cost (an MSP's customer view).
// Figures are integer micro-units, so sums stay exact (cost-store.ts truth).

import { type CostDraw, costMicros, PRICING_MODELS } from './cost-draw.ts';
import { hashInts, microsJson } from './prng.ts';
import type { DataSource } from './world.ts';

export type AzureSetup = 'actual' | 'amortized' | 'markup';

/** custom_cost_adjustment_percent of the markup data source. */
export const MARKUP_PERCENT = 15;
/** What the MSP hides from its customers' workspaces (a data source's permissions.deny). */
export const DENIED_ACTUAL = 'data.Actual Cost';

export function azureSetup(ds: DataSource): AzureSetup | undefined {
  if (ds.provider !== 'azure') return undefined;
  return (['actual', 'amortized', 'markup'] as const)[Math.floor(ds.index / 3) % 3];
}

/**
 * cost/list as a caller other than a DOMAIN_ADMIN gets it (cost-analysis service/cost_service.py
 * `_remove_deny_fields_with_data_source_vo`): each denied field whose value is truthy becomes null;
 * a 0 is left as it is.
 */
export function withDeniedNulled(answer: string): string {
  return answer.replace(/"Actual Cost":(?!0[,}])-?[0-9][0-9.e+-]*/g, '"Actual Cost":null');
}

/** The plugin's `data` keys per setup (the data source's cost_data_keys once rows are synced). */
export function azureDataKeys(setup: AzureSetup): string[] {
  return setup === 'amortized' ? ['Actual Cost', 'Amortized Cost', 'Saved Cost'] : ['Actual Cost'];
}

/**
 * plugin_info of an Azure data source: options as set by whoever registered it, metadata as
 * manager/data_source_manager.py `init_response` returns for them.
 */
export function azurePluginInfo(setup: AzureSetup, currency: string | undefined): Record<string, unknown> {
  const unit = currency === undefined ? {} : { unit: currency };
  const options: Record<string, unknown> = { collect_resource_id: true, ...(currency && { currency }) };
  if (setup === 'amortized') options.cost_metric = 'AmortizedCost';
  if (setup === 'markup') options.custom_cost_adjustment_percent = MARKUP_PERCENT;
  const dataKey = setup === 'amortized' ? 'Amortized Cost' : 'Actual Cost';
  const metadata: Record<string, unknown> = {
    ...(currency && { currency }),
    cost_info: { name: 'PayAsYouGo', ...unit },
    data_info: { [dataKey]: { name: dataKey, ...unit } },
    // init_response: "AmortizedCost" unless the option says "ActualCost"; cost_manager.py reads the option.
    include_reservation_cost_at_payg: 'AmortizedCost',
    ...(setup === 'markup' && { custom_cost_adjustment_percent: MARKUP_PERCENT }),
  };
  return { plugin_id: 'plugin-azure-cost-mgmt-cost-datasource', version: '1.3.26', options, metadata };
}

/** Signed micro-units as JSON (microsJson takes non-negative ones). */
const signedJson = (micros: number): string => (micros < 0 ? `-${microsJson(-micros)}` : microsJson(micros));

/** A multiple of 20 micro-units: × (1 + 15/100) stays a whole number of micro-units. */
const to20 = (micros: number): number => Math.round(micros / 20) * 20;

/** Pay-as-you-go prices of the Azure instance types, per hour (the retail price list's unitPrice). */
export const AZURE_PAYG = ['0.192', '0.0832', '0.504'];

const isReservation = (d: CostDraw): boolean => PRICING_MODELS[d.pricingModel] === 'Reserved';

/**
 * The reservation purchases the benefit job adds (main.py `cost_get_data` with is_benefit_job,
 * cost_manager.py `_make_benefit_cost_info`): only with cost_metric AmortizedCost. Real purchases
 * come once a month; here row 0 of every day is one, so a short range has some.
 */
export const isBenefitRow = (setup: AzureSetup | undefined, j: number): boolean =>
  setup === 'amortized' && j === 0;

export interface AzureFigures {
  /** `cost` in micro-units. */
  readonly cost: number;
  /** The row's `data` object as JSON. */
  readonly data: string;
}

/**
 * `cost` and `data` of one row. cost_manager.py: `_get_cost_from_result_with_options` gives the
 * pay-as-you-go cost; `_get_aggregate_data` puts costinbillingcurrency in "Actual Cost" (with
 * AmortizedCost: in "Amortized Cost", "Actual Cost" 0 on reservation rows, "Saved Cost" = retail −
 * amortized on them); `_make_data_info` makes `cost` = Actual Cost × (1 + p/100) with a markup.
 * Here the billed charge is 90 % of pay-as-you-go (a negotiated discount), a reservation's
 * amortized rate 60 %, and usage a reservation covers is billed 0.
 */
export function azureFigures(setup: AzureSetup, d: CostDraw, factor: number, j: number): AzureFigures {
  const payg = costMicros(d, factor);
  if (isBenefitRow(setup, j)) return { cost: 0, data: `{"Actual Cost":${microsJson(payg)}}` };
  const negotiated = to20(payg * 0.9);
  if (setup === 'amortized') {
    const amortized = isReservation(d) ? to20(payg * 0.6) : negotiated;
    let data = `{"Amortized Cost":${microsJson(amortized)},"Actual Cost":${isReservation(d) ? 0 : microsJson(amortized)}`;
    if (isReservation(d)) {
      const retail = Math.round(Number(AZURE_PAYG[d.instanceType]) * d.usageMicros);
      data += `,"Saved Cost":${amortized > 0 ? signedJson(retail - amortized) : 0}`;
    }
    return { cost: payg, data: `${data}}` };
  }
  const actual = isReservation(d) ? 0 : negotiated;
  const cost = setup === 'markup' ? (actual * (100 + MARKUP_PERCENT)) / 100 : payg;
  return { cost, data: `{"Actual Cost":${microsJson(actual)}}` };
}

/** The served `cost` of a row, in micro-units: what ground truth sums. */
export function servedCostMicros(ds: DataSource, d: CostDraw, factor: number, j: number): number {
  const setup = azureSetup(ds);
  return setup === undefined ? costMicros(d, factor) : azureFigures(setup, d, factor, j).cost;
}

/** The served usage_quantity of a row, in micro-units. */
export function servedUsageMicros(ds: DataSource, d: CostDraw, j: number): number {
  return isBenefitRow(azureSetup(ds), j) ? 1e6 : d.usageMicros;
}

/** A GUID-shaped id, stable per parts (Azure meter ids are GUIDs). */
function guid(...parts: number[]): string {
  const h = (k: number) => (hashInts(77, k, ...parts) >>> 0).toString(16).padStart(8, '0');
  const a = h(1) + h(2) + h(3) + h(4);
  return `${a.slice(0, 8)}-${a.slice(8, 12)}-${a.slice(12, 16)}-${a.slice(16, 20)}-${a.slice(20, 32)}`;
}

/**
 * additional_info as cost_manager.py `_get_additional_info` fills it: Charge Type, Pricing Model,
 * Subscription Id, Meter Id / Name, Product Id; Instance Type on virtual machines; Benefit and Reservation
 * Id / Name on reservation rows; Resource Id / Name with the option collect_resource_id; PayG Unit
 * Price on reservation rows with cost_metric AmortizedCost.
 */
export function azureInfo(
  setup: AzureSetup,
  d: CostDraw,
  instance: string | undefined,
  ctx: AzureRowContext,
): string {
  const fields: string[] = [];
  const add = (key: string, value: string) => fields.push(`"${key}":${value}`);
  add('Charge Type', '"Usage"');
  add('Subscription Id', JSON.stringify(ctx.subscriptionId));
  add('Meter Id', `"${guid(d.product, d.usageType, d.instanceType)}"`);
  add('Meter Name', JSON.stringify(ctx.usageType));
  add(
    'Product Id',
    `"DZH318Z0${(hashInts(78, d.product, d.instanceType) >>> 0).toString(36).toUpperCase().slice(0, 4)}"`,
  );
  if (instance) {
    const model = isReservation(d) ? 'Reservation' : PRICING_MODELS[d.pricingModel];
    add('Instance Type', `"${instance}"`);
    add('Pricing Model', `"${model}"`);
    if (isReservation(d)) {
      const ids = reservationIds(d.instanceType);
      add('Reservation Id', `"${ids.reservationId}"`);
      add('Reservation Name', `"${ids.name}"`);
      add('Benefit Id', `"${ids.benefitId}"`);
      add('Benefit Name', `"${ids.name}"`);
      if (setup === 'amortized') add('PayG Unit Price', AZURE_PAYG[d.instanceType] ?? '0');
    }
  } else {
    add('Pricing Model', '"OnDemand"');
  }
  if (ctx.resource !== undefined) {
    add('Resource Id', JSON.stringify(ctx.resource));
    add('Resource Name', JSON.stringify(ctx.resource.split('/').pop()));
  }
  return `"additional_info":{${fields.join(',')}},`;
}

export interface AzureRowContext {
  readonly subscriptionId: string;
  /** The row's usage_type: the plugin's metername. */
  readonly usageType: string;
  readonly resource: string | undefined;
}

function reservationIds(instanceType: number) {
  const order = guid(90, instanceType);
  const reservation = guid(91, instanceType);
  return {
    reservationId: reservation,
    benefitId: `/providers/Microsoft.Capacity/reservationOrders/${order}/reservations/${reservation}`,
    name: `VM_RI_${['D4s', 'B2ms', 'E8s'][instanceType] ?? 'VM'}_01`,
  };
}

/** A benefit job row (cost_manager.py `_make_benefit_cost_info`): a reservation's purchase. */
export function benefitRowJson(d: CostDraw, ctx: AzureRowContext): string {
  const ids = reservationIds(Math.max(0, d.instanceType));
  const info = [
    '"Pricing Model":"Reservation"',
    `"Benefit Id":"${ids.benefitId}"`,
    `"Benefit Name":"${ids.name}"`,
    `"Reservation Id":"${ids.reservationId}"`,
    `"Reservation Name":"${ids.name}"`,
    '"Charge Type":"Purchase"',
    `"Subscription Id":${JSON.stringify(ctx.subscriptionId)}`,
  ].join(',');
  return `"usage_quantity":1,"provider":"azure","product":"Virtual Machines","tags":{},"additional_info":{${info}},`;
}
