// The random choices behind one cost row, a pure function of (seed, data source, day, row).
// Choices are kept as indexes into the catalogue, so the JSON writer can reuse fragments
// and ground truth can read costs without building rows.

import { PRODUCTS, REGIONS, TAG_VALUES } from './catalog.ts';
import type { Inventory } from './cloud-services.ts';
import { hashInts, Rng } from './prng.ts';
import type { DataSource } from './world.ts';

export const PRICING_MODELS = ['OnDemand', 'Reserved', 'Spot'] as const;

export interface CostDraw {
  readonly account: number;
  readonly product: number;
  readonly region: number;
  readonly usageType: number;
  /** -1 when the product has no instance types. */
  readonly instanceType: number;
  readonly pricingModel: number;
  /** Cost before any re-sync factor; 0 for the rows whose cost is exactly zero. */
  readonly rawCost: number;
  /** Numbers are held as integer micro-units: exact decimals, cheap to print. */
  readonly usageMicros: number;
  readonly normalizedMicros: number | undefined;
  readonly resource: string | undefined;
  /** -1: no tags key; -2: `"tags":{}`; else name*100 + env*10 + team. */
  readonly tags: number;
  readonly hasProject: boolean;
}

export function drawRow(
  seed: number,
  inventory: Inventory,
  ds: DataSource,
  day: number,
  j: number,
): CostDraw {
  const rng = new Rng(hashInts(seed, 60, ds.index, day, j));
  const account = rng.int(ds.accounts.length);
  const product = rng.int(PRODUCTS[ds.provider].length);
  const { instanceTypes, usageTypes, billedType, slug } = PRODUCTS[ds.provider][product] ?? {
    usageTypes: [],
  };
  const region = rng.int(REGIONS[ds.provider].length);
  const instanceType = instanceTypes ? rng.int(instanceTypes.length) : -1;
  const usageType = rng.int(usageTypes.length);
  const rawCost = rng.chance(0.04) ? 0 : Math.exp(rng.next() * 7 - 4);
  const usageMicros = rng.chance(0.05) ? 0 : Math.round(rng.next() * 100e6);
  const billed = billedType ? inventory.resourceIds.get(`${ds.provider}/${billedType}`) : undefined;
  const resource = drawResource(rng, billed, slug);
  const tags = drawTags(rng);
  const pricingModel = instanceType >= 0 ? rng.int(PRICING_MODELS.length) : -1;
  const normalizedMicros = rng.chance(0.3) ? Math.round(rng.next() * 8e6) : undefined;
  const hasProject = rng.chance(0.85);
  return {
    account,
    product,
    region,
    usageType,
    instanceType,
    pricingModel,
    rawCost,
    usageMicros,
    normalizedMicros,
    resource,
    tags,
    hasProject,
  };
}

/** Mostly a billed cloud service's resource id, else sometimes a made-up one, else none. */
function drawResource(
  rng: Rng,
  billed: readonly string[] | undefined,
  slug: string | undefined,
): string | undefined {
  if (billed && rng.chance(0.8)) return rng.pick(billed);
  return rng.chance(0.5) ? `${slug}-${rng.hex(8)}` : undefined;
}

function drawTags(rng: Rng): number {
  const roll = rng.next();
  if (roll >= 0.65) return -1;
  if (roll >= 0.55) return -2;
  return (
    rng.int(TAG_VALUES.Name.length) * 100 +
    rng.int(TAG_VALUES.env.length) * 10 +
    rng.int(TAG_VALUES.team.length)
  );
}

/** The row's cost as served, in micro-units: rounded after any re-sync factor. */
export const costMicros = (draw: CostDraw, factor: number): number => Math.round(draw.rawCost * factor * 1e6);
