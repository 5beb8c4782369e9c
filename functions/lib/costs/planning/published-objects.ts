// Manifests say what was published; the objects may say otherwise (deleted or truncated behind
// the exporter's back). One listing of the table, with sizes, finds every unit whose object is
// missing or of another size, and planning re-exports it as a repair.
import { costTable } from '../../tables/costs.ts';
import type { UnitManifest } from '../../storage/manifest.ts';
import type { Sink } from '../../storage/sink.ts';
import type { CostPlan, PlannedUnit } from './plan-units.ts';

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

/**
 * Drops the units of days whose archived object was kept (manifest keptSince) and that Cloudforet
 * still answers empty: nothing changed since, and planning them again would only keep them again.
 */
export function withoutKept(
  plan: CostPlan,
  manifests: readonly ReadManifest[],
  source: ReadonlyMap<string, ReadonlyMap<string, { rows: number }>>,
): CostPlan {
  const id = (u: { dataSourceId: string; date: string }) => `${u.dataSourceId}/${u.date}`;
  const kept = new Set(
    manifests
      .filter((m) => m.manifest.keptSince !== undefined && !source.get(m.dataSourceId)?.get(m.date)?.rows)
      .map(id),
  );
  const stays = (u: PlannedUnit) => u.reason === 'forced' || u.reason === 'repair' || !kept.has(id(u));
  if (plan.units.every(stays)) return plan;
  const unchanged = new Map(plan.unchanged);
  for (const u of plan.units.filter((p) => !stays(p))) {
    unchanged.set(u.dataSourceId, (unchanged.get(u.dataSourceId) ?? 0) + 1);
  }
  return { ...plan, units: plan.units.filter(stays), unchanged };
}
