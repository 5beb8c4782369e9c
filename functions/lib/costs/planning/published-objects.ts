// Manifests say what was published; the objects may say otherwise (deleted, truncated or
// overwritten behind the exporter's back). One listing of the table finds every unit whose object
// is missing, of another size, or (S3) of another ETag; in a directory, a file whose modification
// time moved (every file with `verify`) is read and its SHA-256 compared with the manifest's.
// Planning re-exports each as a repair. A size that matches is never taken as proof alone.

import type { UnitManifest } from '../../destination/manifest.ts';
import { objectDifference } from '../../destination/object-check.ts';
import { forEachLimit } from '../../pool.ts';
import type { Sink } from '../../storage/sink.ts';
import { costTable } from '../../tables/costs.ts';
import type { CostPlan, PlannedUnit } from './plan-units.ts';

export interface ReadManifest {
  readonly dataSourceId: string;
  readonly date: string;
  readonly manifest: UnitManifest;
}

export interface DamagedUnit {
  readonly dataSourceId: string;
  readonly date: string;
  /** What differs: 'missing', 'size', 'etag' or 'checksum'. */
  readonly why: string;
}

/** Units whose manifest names an object that is not there, or not the one it describes. */
export async function damagedUnits(
  sink: Sink,
  manifests: readonly ReadManifest[],
  opts: { readonly verify?: boolean } = {},
): Promise<DamagedUnit[]> {
  if (manifests.length === 0) return [];
  const stored = await sink.listObjects(`${costTable.name}/`);
  const found: Array<DamagedUnit | undefined> = manifests.map(() => undefined);
  await forEachLimit([...manifests.keys()], 8, async (i) => {
    const { dataSourceId, date, manifest: m } = manifests[i]!;
    if (m.key === null) return;
    const why = await objectDifference(sink, m, m.key, stored.get(m.key), opts.verify === true);
    if (why) found[i] = { dataSourceId, date, why };
  });
  return found.filter((d): d is DamagedUnit => d !== undefined);
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
