// Planning is pure: (window, data sources, manifests, source stats, syncs in progress) -> units.
// The same plan drives the inline run, the CLI and the Step Functions backfill.
import type { DataSourceInfo } from './data-sources.ts';
import { daysBetween } from '../dates.ts';
import type { DayStat } from './source-state.ts';

export interface PlanInput {
  readonly from: string;
  readonly to: string;
  readonly dataSources: readonly DataSourceInfo[];
  /** dataSourceId -> date -> what the last export published (rows, cost sum). */
  readonly published: ReadonlyMap<string, ReadonlyMap<string, DayStat>>;
  /** dataSourceId -> date -> what Cloudforet has now; absent when `force`. */
  readonly source: ReadonlyMap<string, ReadonlyMap<string, DayStat>>;
  readonly syncing: ReadonlySet<string>;
  readonly force: boolean;
}

/** repair: the manifest's object is missing or of another size (costs/published-objects.ts). */
export type UnitReason = 'forced' | 'no-manifest' | 'rows-changed' | 'cost-changed' | 'repair';

export interface PlannedUnit {
  readonly dataSourceId: string;
  readonly date: string;
  readonly reason: UnitReason;
}

export interface CostPlan {
  readonly units: readonly PlannedUnit[];
  /** dataSourceId -> days skipped because they match what was published. */
  readonly unchanged: ReadonlyMap<string, number>;
  /** Data sources skipped for this run because a sync is running. */
  readonly skippedSyncing: readonly string[];
}

export function planCostUnits(input: PlanInput): CostPlan {
  const days = daysBetween(input.from, input.to);
  const units: PlannedUnit[] = [];
  const unchanged = new Map<string, number>();
  const skippedSyncing: string[] = [];
  for (const ds of input.dataSources) {
    if (input.syncing.has(ds.id)) {
      skippedSyncing.push(ds.id);
      continue;
    }
    for (const date of days) {
      const reason = unitReason(input, ds.id, date);
      if (reason) units.push({ dataSourceId: ds.id, date, reason });
      else unchanged.set(ds.id, (unchanged.get(ds.id) ?? 0) + 1);
    }
  }
  return { units, unchanged, skippedSyncing };
}

function unitReason(input: PlanInput, dataSourceId: string, date: string): UnitReason | undefined {
  if (input.force) return 'forced';
  const published = input.published.get(dataSourceId)?.get(date);
  if (!published) return 'no-manifest';
  const now = input.source.get(dataSourceId)?.get(date) ?? { rows: 0, costSum: 0 };
  if (now.rows !== published.rows) return 'rows-changed';
  return sameSum(now.costSum, published.costSum) ? undefined : 'cost-changed';
}

/** Sums of doubles added in different orders differ in the last bits; a restatement does not. */
export function sameSum(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(1e-6, 1e-9 * Math.max(Math.abs(a), Math.abs(b)));
}
