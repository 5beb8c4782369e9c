// Everything a route may read or change, in one place, and how it is built from the options.

import { costMonths, dayNumber, dayToDate, isDate, todayNumber } from './calendar.ts';
import { buildInventory, type Inventory } from './cloud-services.ts';
import { CostStore } from './cost-store.ts';
import { buildIdentity, type Identity } from './identity.ts';
import type { Claims } from './tokens.ts';
import { buildWorld, type World } from './world.ts';

export interface SimulatorOptions {
  seed?: number;
  dataSources?: number;
  from?: string;
  to?: string;
  rowsPerDay?: number;
  exactRowsPerDay?: boolean;
  cloudServices?: number;
  workspaces?: number;
  latencyMs?: number;
  port?: number;
  /**
   * Enforce Cloudforet's retention as of the real clock: a DAILY cost/analyze starting more than
   * this many months back is a 400 ERROR_INVALID_DATE_RANGE. Off by default: most tests use fixed dates.
   */
  retentionMonths?: number;
  /** Every month's unified costs at Cloudforet's fallback rates (rate fetching failed). */
  fallbackRates?: boolean;
}

export interface SimState {
  readonly world: World;
  readonly inventory: Inventory;
  readonly identity: Identity;
  readonly costs: CostStore;
  readonly retentionMonths?: number;
  /** Months (YYYY-MM) whose unified costs use Cloudforet's hard-coded fallback rates. */
  readonly fallbackRateMonths: Set<string>;
  /** Months (YYYY-MM) whose unified costs are not aggregated yet. */
  readonly missingUnifiedMonths: Set<string>;
  /** Data sources of type WAREHOUSE: their cost/list fails. */
  readonly warehouses: Set<string>;
}

export interface RouteContext {
  readonly state: SimState;
  readonly body: Record<string, unknown>;
  readonly claims: Claims;
}

/** A verb: the top-level fields its request message defines, and what it answers (JSON). */
export interface Route {
  readonly fields: readonly string[];
  readonly handle: (ctx: RouteContext) => string;
}

/** The cost range: the options' dates, by default the 14 days ending yesterday (UTC). */
function dateRange(opts: SimulatorOptions): [number, number] {
  for (const [name, value] of Object.entries({ from: opts.from, to: opts.to })) {
    if (value !== undefined && !isDate(value)) {
      throw new Error(`simulator: option ${name} must be YYYY-MM-DD, got ${value}`);
    }
  }
  const toDay = opts.to ? dayNumber(opts.to) : todayNumber() - 1;
  const fromDay = opts.from ? dayNumber(opts.from) : toDay - 13;
  if (fromDay > toDay) throw new Error(`simulator: from ${opts.from} is after to ${dayToDate(toDay)}`);
  return [fromDay, toDay];
}

export function buildState(opts: SimulatorOptions): SimState {
  const [fromDay, toDay] = dateRange(opts);
  const world = buildWorld({
    seed: opts.seed ?? 1,
    dataSources: opts.dataSources ?? 3,
    workspaces: Math.max(1, opts.workspaces ?? 2),
    fromDay,
    toDay,
  });
  const inventory = buildInventory(world, opts.cloudServices ?? 120);
  const costs = new CostStore({
    world,
    inventory,
    rowsPerDay: opts.rowsPerDay ?? 40,
    exactRowsPerDay: opts.exactRowsPerDay ?? false,
  });
  const state = {
    world,
    inventory,
    identity: buildIdentity(world),
    costs,
    retentionMonths: opts.retentionMonths,
    warehouses: new Set<string>(),
    fallbackRateMonths: new Set<string>(),
    missingUnifiedMonths: new Set<string>(),
  };
  if (opts.fallbackRates) for (const month of costMonths(world)) state.fallbackRateMonths.add(month);
  return state;
}
