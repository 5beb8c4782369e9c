// The daily series anomaly detection judges, read from the cost manifests the export wrote: each
// holds its day's cost sum and its row count and cost sum per (project, workspace, service
// account), so no Parquet object is read. A day with a manifest of no rows counts as 0; a day
// with no manifest has no figures.

import { manifestPrefix } from '../destination/layout.ts';
import { parseManifest, type UnitManifest } from '../destination/manifest.ts';
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import type { AnomalyScope, Series } from './detect.ts';

export interface PublishedCosts {
  readonly series: Series[];
  /** data source -> the day its last sync started: that day and later ones may still change. */
  readonly judgeBefore: Map<string, string>;
  readonly days: number;
}

const SCOPE_PART: ReadonlyArray<readonly [AnomalyScope, number]> = [
  ['project', 0],
  ['workspace', 1],
  ['service_account', 2],
];

export async function readPublishedCosts(sink: Sink, today: string): Promise<PublishedCosts> {
  const keys = (await sink.list(manifestPrefix(costTable))).filter((k) => k.endsWith('.json'));
  const manifests: UnitManifest[] = [];
  await forEachLimit(keys, 16, async (key) => {
    const m = parseManifest(await sink.read(key));
    if (m?.dataSourceId && /^\d{4}-\d\d-\d\d$/.test(m.partition)) manifests.push(m);
  });
  const byKey = new Map<
    string,
    { dataSourceId: string; scope: AnomalyScope; key: string; days: Map<string, number> }
  >();
  const add = (dataSourceId: string, scope: AnomalyScope, key: string, date: string, cost: number) => {
    const id = `${dataSourceId}|${scope}|${key}`;
    const entry = byKey.get(id) ?? { dataSourceId, scope, key, days: new Map<string, number>() };
    entry.days.set(date, (entry.days.get(date) ?? 0) + cost);
    byKey.set(id, entry);
  };
  const judgeBefore = new Map<string, string>([]);
  const daysOf = new Map<string, Set<string>>();
  for (const m of manifests) {
    const ds = m.dataSourceId!;
    const date = m.partition;
    daysOf.set(ds, (daysOf.get(ds) ?? new Set()).add(date));
    add(ds, 'data_source', ds, date, m.costSum ?? 0);
    for (const g of m.groups ?? []) {
      const parts = g.key.split('|');
      for (const [scope, i] of SCOPE_PART) add(ds, scope, parts[i] || '(none)', date, g.costSum);
    }
    const synced = m.lastSynchronizedAt?.slice(0, 10);
    const limit = synced && synced < today ? synced : today;
    const known = judgeBefore.get(ds);
    if (known === undefined || limit > known) judgeBefore.set(ds, limit);
  }
  // A finer key absent on a day its data source has figures for cost 0 that day.
  const series: Series[] = [...byKey.values()].map(({ dataSourceId, scope, key, days }) => ({
    dataSourceId,
    scope,
    key,
    points: [...(daysOf.get(dataSourceId) ?? [])].sort().map((date) => ({ date, cost: days.get(date) ?? 0 })),
  }));
  return { series, judgeBefore, days: new Set(manifests.map((m) => m.partition)).size };
}
