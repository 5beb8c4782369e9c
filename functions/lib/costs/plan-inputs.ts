// Gathers what planning needs (published manifests, Cloudforet's per-day stats, running syncs)
// and plans the units of a cost run.
import type { CloudforetClient } from '../cloudforet/client.ts';
import { costManifestKey, costManifestPrefix } from './unit.ts';
import type { DataSourceInfo } from './data-sources.ts';
import { daysBetween } from '../dates.ts';
import { parseManifest } from '../storage/manifest.ts';
import { type CostPlan, planCostUnits } from './plan.ts';
import { damagedUnits, type ReadManifest, withoutKept, withRepairs } from './published-objects.ts';
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { type DayStat, dailyCostStats, syncingDataSources } from './source-state.ts';

export interface CostPlanRequest {
  readonly from: string;
  readonly to: string;
  readonly force?: boolean;
}

export async function planCostExport(
  client: CloudforetClient,
  sink: Sink,
  dataSources: readonly DataSourceInfo[],
  req: CostPlanRequest,
): Promise<CostPlan> {
  const syncing = await syncingDataSources(client);
  const active = dataSources.filter((d) => !syncing.has(d.id));
  const force = req.force ?? false;
  const manifests: ReadManifest[] = [];
  const [published, source] = force
    ? [new Map(), new Map()]
    : await Promise.all([
        readPublished(sink, active, req.from, req.to, manifests),
        readSourceStats(client, active, req.from, req.to),
      ]);
  const plan = planCostUnits({ from: req.from, to: req.to, dataSources, published, source, syncing, force });
  return withRepairs(withoutKept(plan, manifests, source), await damagedUnits(sink, manifests));
}

/**
 * dataSourceId -> date -> what the manifests say was published. Lists first and reads only the
 * manifests that exist: one LIST per 1000 keys, and no GET of a missing key (which S3 answers
 * 403, not 404, to a role that may list only under the prefix).
 */
async function readPublished(
  sink: Sink,
  dataSources: readonly DataSourceInfo[],
  from: string,
  to: string,
  read: ReadManifest[],
): Promise<Map<string, Map<string, DayStat>>> {
  const published = new Map<string, Map<string, DayStat>>(dataSources.map((d) => [d.id, new Map()]));
  const existing = await listCostManifests(sink);
  const keys = dataSources.flatMap((d) =>
    daysBetween(from, to)
      .map((date) => ({ id: d.id, date, key: costManifestKey(d.id, date) }))
      .filter((k) => existing.has(k.key)),
  );
  await forEachLimit(keys, 16, async ({ id, date, key }) => {
    const manifest = parseManifest(await sink.read(key));
    if (manifest) published.get(id)!.set(date, { rows: manifest.rows, costSum: manifest.costSum ?? 0 });
    if (manifest) read.push({ dataSourceId: id, date, manifest });
  });
  return published;
}

/** Keys of every cost manifest written so far. */
export async function listCostManifests(sink: Sink): Promise<Set<string>> {
  return new Set(await sink.list(costManifestPrefix));
}

async function readSourceStats(
  client: CloudforetClient,
  dataSources: readonly DataSourceInfo[],
  from: string,
  to: string,
): Promise<Map<string, Map<string, DayStat>>> {
  const stats = new Map<string, Map<string, DayStat>>();
  await forEachLimit(dataSources, 4, async (d) => {
    stats.set(d.id, await dailyCostStats(client, d.id, from, to));
  });
  return stats;
}
