// One (data source, day) of cost rows, generated on demand. Row content is a function of
// (seed, data source, day, row index); the cost_id also of the sync version, so a re-sync
// yields the same costs under new ids. Rows come out sorted by cost_id.

import { PRODUCTS, REGIONS, TAG_VALUES } from './catalog.ts';
import { dayToDate } from './calendar.ts';
import type { Inventory } from './cloud-services.ts';
import { Rng, hashInts, hex12, permute48, round6 } from './prng.ts';
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
}

export const PRISTINE: DayState = { version: 0, rowDelta: 0, costFactor: 1 };

export function rowCount(settings: CostSettings, ds: DataSource, day: number, state: DayState): number {
  const { world, rowsPerDay } = settings;
  const inRange = day >= world.fromDay && day <= world.toDay;
  let base = 0;
  if (inRange) {
    base = settings.exactRowsPerDay
      ? rowsPerDay
      : Math.round(rowsPerDay * (0.5 + hashInts(world.seed, 61, ds.index, day) / 0x100000000));
  }
  return Math.max(0, base + state.rowDelta);
}

/** 48-bit counter unique per (data source, day, version, row): ids never collide. */
function costIdNumber(seed: number, ds: DataSource, day: number, version: number, j: number): number {
  const counter = (ds.index & 63) * 2 ** 42 + (day & 4095) * 2 ** 30 + (version & 63) * 2 ** 24 + j;
  return permute48(counter, hashInts(seed, 99));
}

export function generateDay(settings: CostSettings, ds: DataSource, day: number, state: DayState): CostRecord[] {
  const count = rowCount(settings, ds, day, state);
  const seed = settings.world.seed;
  const ids = new Float64Array(count);
  for (let j = 0; j < count; j++) ids[j] = costIdNumber(seed, ds, day, state.version, j);
  const order = Array.from({ length: count }, (_, j) => j).sort((a, b) => (ids[a] ?? 0) - (ids[b] ?? 0));
  const date = dayToDate(day);
  const rows = new Array<CostRecord>(count);
  for (let k = 0; k < count; k++) {
    const j = order[k] ?? 0;
    rows[k] = buildRow(settings, ds, day, date, j, `cost-${hex12(ids[j] ?? 0)}`, state.costFactor);
  }
  return rows;
}

function buildRow(
  settings: CostSettings,
  ds: DataSource,
  day: number,
  date: string,
  j: number,
  costId: string,
  factor: number,
): CostRecord {
  const { world, inventory } = settings;
  const rng = new Rng(hashInts(world.seed, 60, ds.index, day, j));
  const account = rng.pick(ds.accounts);
  const product = rng.pick(PRODUCTS[ds.provider]);
  const region = rng.pick(REGIONS[ds.provider]);
  const instanceType = product.instanceTypes ? rng.pick(product.instanceTypes) : undefined;
  const usageType = rng.pick(product.usageTypes);
  const row: CostRecord = { cost_id: costId };
  const cost = rng.chance(0.04) ? 0 : round6(Math.exp(rng.next() * 7 - 4) * factor);
  if (cost !== 0) row['cost'] = cost;
  const usage = rng.chance(0.05) ? 0 : round6(rng.next() * 100);
  if (usage !== 0) row['usage_quantity'] = usage;
  row['usage_unit'] = product.unit;
  row['provider'] = ds.provider;
  row['region_code'] = region;
  row['region_key'] = `${ds.provider}.${region}`;
  row['product'] = product.product;
  row['usage_type'] = instanceType && usageType === 'BoxUsage' ? `${usageType}:${instanceType}` : usageType;
  const billed = product.billedType && inventory.resourceIds.get(`${ds.provider}/${product.billedType}`);
  if (billed && rng.chance(0.8)) row['resource'] = rng.pick(billed);
  else if (rng.chance(0.5)) row['resource'] = `${product.product.toLowerCase().replace(/ /g, '-')}-${rng.hex(8)}`;
  const tagRoll = rng.next();
  if (tagRoll < 0.55) row['tags'] = { Name: rng.pick(TAG_VALUES.Name), env: rng.pick(TAG_VALUES.env), team: rng.pick(TAG_VALUES.team) };
  else if (tagRoll < 0.65) row['tags'] = {};
  row['additional_info'] = instanceType
    ? { 'Instance Type': instanceType, 'Pricing Model': rng.pick(['OnDemand', 'Reserved', 'Spot']) }
    : { 'Line Item Type': 'Usage' };
  if (rng.chance(0.3)) row['data'] = { 'Usage Hours': 24, 'Normalized Usage Amount': round6(rng.next() * 8) };
  row['domain_id'] = world.domainId;
  row['workspace_id'] = ds.routed ? account.vWorkspaceId : account.workspaceId;
  if (rng.chance(0.85)) row['project_id'] = account.projectId;
  row['service_account_id'] = account.serviceAccountId;
  row['data_source_id'] = ds.id;
  row['account_id'] = account.accountId;
  row['billed_year'] = date.slice(0, 4);
  row['billed_month'] = date.slice(0, 7);
  row['billed_date'] = date;
  return row;
}
