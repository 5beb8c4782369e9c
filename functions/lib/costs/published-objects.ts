// Manifests say what was published; the objects may say otherwise (deleted or truncated behind
// the exporter's back). One listing of the table, with sizes, finds every unit whose object is
// missing or of another size, and planning re-exports it as a repair.
import { costTable } from '../tables/costs.ts';
import type { UnitManifest } from '../storage/manifest.ts';
import type { Sink } from '../storage/sink.ts';
import type { CostPlan, PlannedUnit } from './plan.ts';

export interface ReadManifest {
  readonly dataSourceId: string;
  readonly date: string;
  readonly manifest: UnitManifest;
}

/** Units whose manifest names an object that is not there, or not of the published size. */
export async function damagedUnits(
  sink: Sink,
  manifests: readonly ReadManifest[],
): Promise<Array<{ dataSourceId: string; date: string }>> {
  if (manifests.length === 0) return [];
  const sizes = await sink.listSizes(`${costTable.name}/`);
  return manifests
    .filter(({ manifest: m }) => m.key !== null && sizes.get(m.key) !== m.bytes)
    .map(({ dataSourceId, date }) => ({ dataSourceId, date }));
}

/** The plan with every damaged unit in it, marked 'repair', and no longer counted unchanged. */
export function withRepairs(
  plan: CostPlan,
  damaged: ReadonlyArray<{ dataSourceId: string; date: string }>,
): CostPlan {
  if (damaged.length === 0) return plan;
  const id = (u: { dataSourceId: string; date: string }) => `${u.dataSourceId}/${u.date}`;
  const broken = new Set(damaged.map(id));
  const planned = new Set(plan.units.map(id));
  const unchanged = new Map(plan.unchanged);
  for (const u of damaged) {
    if (!planned.has(id(u))) unchanged.set(u.dataSourceId, (unchanged.get(u.dataSourceId) ?? 1) - 1);
  }
  const kept = plan.units.map((u): PlannedUnit => (broken.has(id(u)) ? { ...u, reason: 'repair' } : u));
  const added = damaged
    .filter((u) => !planned.has(id(u)))
    .map((u): PlannedUnit => ({ ...u, reason: 'repair' }));
  return { ...plan, units: [...kept, ...added], unchanged };
}
