// One (data source, day) of cost rows. A day is held only as its id order (12 bytes a row);
// rows are written straight to JSON when a page needs them. Content depends on
// (seed, data source, day, row index), the cost_id also on the sync version, so a re-sync
// yields the same costs under new ids.

import {
  type AzureSetup,
  azureFigures,
  azureInfo,
  azureSetup,
  benefitRowJson,
  isBenefitRow,
} from './azure-costs.ts';
import { dayToDate } from './calendar.ts';
import { PRODUCTS, type Product, REGIONS, TAG_VALUES } from './catalog.ts';
import type { Inventory } from './cloud-services.ts';
import { type CostDraw, costMicros, drawRow, PRICING_MODELS } from './cost-draw.ts';
import { hashInts, hex12, microsJson, permute48, unpermute48 } from './prng.ts';
import type { ApiRecord, DataSource, World } from './world.ts';

export type CostRecord = ApiRecord;

export interface CostSettings {
  readonly world: World;
  readonly inventory: Inventory;
  readonly rowsPerDay: number;
  readonly exactRowsPerDay: boolean;
}

/** What re-syncs did to one day. */
export interface DayState {
  readonly version: number;
  readonly rowDelta: number;
  readonly costFactor: number;
  /** The sync job whose rows these are; undefined: the data source's initial sync. */
  readonly jobId?: string;
  /** Re-attribution: row of account k is attributed to account k + shift (same count and costs). */
  readonly shift?: number;
  /** A failed sync's partial new version, kept beside this one until a sync succeeds. */
  readonly leftover?: Leftover;
}

export interface Leftover {
  readonly version: number;
  readonly jobId: string;
  /** Rows 0 .. rows-1 of the new version were inserted before the job failed. */
  readonly rows: number;
}

export const PRISTINE: DayState = { version: 0, rowDelta: 0, costFactor: 1 };

export function rowCount(settings: CostSettings, ds: DataSource, day: number, state: DayState): number {
  const { world, rowsPerDay } = settings;
  let base = 0;
  if (day >= world.fromDay && day <= world.toDay) {
    base = settings.exactRowsPerDay
      ? rowsPerDay
      : Math.round(rowsPerDay * (0.5 + hashInts(world.seed, 61, ds.index, day) / 0x100000000));
  }
  return Math.max(0, base + state.rowDelta);
}

/** Ids permute a 48-bit counter unique per (data source, day, version, row): they never collide. */
function counterBase(ds: DataSource, day: number, version: number): number {
  return (ds.index & 63) * 2 ** 42 + (day & 4095) * 2 ** 30 + (version & 63) * 2 ** 24;
}

/** A day's rows in cost_id order: `rows[k]` is the row index behind the k-th smallest id. */
export interface DayOrder {
  readonly ids: Float64Array;
  readonly rows: Uint32Array;
}

export function dayOrder(settings: CostSettings, ds: DataSource, day: number, state: DayState): DayOrder {
  const count = rowCount(settings, ds, day, state);
  const key = hashInts(settings.world.seed, 99);
  const base = counterBase(ds, day, state.version);
  const ids = new Float64Array(count);
  for (let j = 0; j < count; j++) ids[j] = permute48(base + j, key);
  // A plain numeric sort, then each row index recovered by inverting the permutation:
  // far cheaper than sorting indexes with a comparator.
  ids.sort();
  const rows = new Uint32Array(count);
  for (let k = 0; k < count; k++) rows[k] = unpermute48(ids[k] as number, key) - base;
  return { ids, rows };
}

/** Writes the rows of one (data source, day, version) as JSON, reusing every fixed fragment. */
export class RowWriter {
  /** Per account and with/without project: everything from domain_id to the closing brace. */
  private readonly endings: string[] = [];
  private readonly fragments = new Map<number, string>();

  constructor(
    private readonly settings: CostSettings,
    private readonly ds: DataSource,
    private readonly day: number,
    private readonly state: DayState,
  ) {
    const date = dayToDate(day);
    const billed = `"billed_year":"${date.slice(0, 4)}","billed_month":"${date.slice(0, 7)}","billed_date":"${date}"}`;
    for (const a of ds.accounts) {
      const workspaceId = ds.routed ? a.vWorkspaceId : a.workspaceId;
      const head = `"domain_id":"${settings.world.domainId}","workspace_id":"${workspaceId}",`;
      const rest = `"service_account_id":"${a.serviceAccountId}","data_source_id":"${ds.id}","account_id":"${a.accountId}",${billed}`;
      this.endings.push(head + rest, `${head}"project_id":"${a.projectId}",${rest}`);
    }
  }

  draw(j: number): CostDraw {
    return drawRow(this.settings.world.seed, this.settings.inventory, this.ds, this.day, j);
  }

  /** A fragment built once per distinct value of `key` (a small integer). */
  private fragment(key: number, build: () => string): string {
    let text = this.fragments.get(key);
    if (text === undefined) {
      text = build();
      this.fragments.set(key, text);
    }
    return text;
  }

  private usage(d: CostDraw): string {
    return this.fragment(d.product * 10_000 + d.region * 1000 + d.usageType * 10 + d.instanceType + 1, () => {
      const provider = this.ds.provider;
      const product = PRODUCTS[provider][d.product] as Product;
      const region = REGIONS[provider][d.region];
      const picked = product.usageTypes[d.usageType];
      const instance = product.instanceTypes?.[d.instanceType];
      const usageType = instance && picked === 'BoxUsage' ? `${picked}:${instance}` : picked;
      return `"usage_unit":"${product.unit}","provider":"${provider}","region_code":"${region}","region_key":"${provider}.${region}","product":"${product.product}","usage_type":"${usageType}",`;
    });
  }

  private tags(d: CostDraw): string {
    return d.tags < 0
      ? d.tags === -2
        ? '"tags":{},'
        : ''
      : this.fragment(-1 - d.tags, () => {
          const { Name, env, team } = TAG_VALUES;
          return `"tags":{"Name":"${Name[Math.floor(d.tags / 100)]}","env":"${env[Math.floor(d.tags / 10) % 10]}","team":"${team[d.tags % 10]}"},`;
        });
  }

  private labels(d: CostDraw): string {
    const info = this.fragment(
      -1_000_000 - d.product * 1000 - (d.instanceType + 1) * 10 - d.pricingModel - 1,
      () => {
        const instance = PRODUCTS[this.ds.provider][d.product]?.instanceTypes?.[d.instanceType];
        return instance
          ? `"additional_info":{"Instance Type":"${instance}","Pricing Model":"${PRICING_MODELS[d.pricingModel]}"},`
          : '"additional_info":{"Line Item Type":"Usage"},';
      },
    );
    return this.tags(d) + info;
  }

  json(j: number, id: number): string {
    const d = this.draw(j);
    const account = (d.account + (this.state.shift ?? 0)) % this.ds.accounts.length;
    const ending = this.endings[account * 2 + (d.hasProject ? 1 : 0)];
    const setup = azureSetup(this.ds);
    if (setup !== undefined) return this.azureJson(setup, d, j, id, account) + ending;
    const cost = costMicros(d, this.state.costFactor);
    let out = `{"cost_id":"cost-${hex12(id)}",`;
    if (cost !== 0) out += `"cost":${microsJson(cost)},`;
    if (d.usageMicros !== 0) out += `"usage_quantity":${microsJson(d.usageMicros)},`;
    out += this.usage(d);
    if (d.resource !== undefined) out += `"resource":"${d.resource}",`;
    out += this.labels(d);
    if (d.normalizedMicros !== undefined) {
      out += `"data":{"Usage Hours":24,"Normalized Usage Amount":${microsJson(d.normalizedMicros)}},`;
    }
    return out + ending;
  }

  /** An Azure row as the Azure plugin writes it (azure-costs.ts), up to the common ending. */
  private azureJson(setup: AzureSetup, d: CostDraw, j: number, id: number, account: number): string {
    const figures = azureFigures(setup, d, this.state.costFactor, j);
    const picked = PRODUCTS.azure[d.product]?.usageTypes[d.usageType] ?? '';
    const ctx = {
      subscriptionId: this.ds.accounts[account]?.accountId ?? '',
      usageType: picked,
      resource: d.resource,
    };
    let out = `{"cost_id":"cost-${hex12(id)}",`;
    if (figures.cost !== 0) out += `"cost":${microsJson(figures.cost)},`;
    if (isBenefitRow(setup, j)) {
      out += benefitRowJson(d, ctx);
    } else {
      if (d.usageMicros !== 0) out += `"usage_quantity":${microsJson(d.usageMicros)},`;
      out += this.usage(d);
      if (d.resource !== undefined) out += `"resource":"${d.resource}",`;
      const instance = PRODUCTS.azure[d.product]?.instanceTypes?.[d.instanceType];
      out += this.tags(d) + azureInfo(setup, d, instance, ctx);
    }
    return `${out}"data":${figures.data},`;
  }
}
