// How fresh each data source is: the newest billed day with a published object, and Cloudforet's
// last sync, as ages in hours. What the freshness metrics, their alarms and the log report.
import { addDays, utcDay } from '../../dates.ts';
import type { Sink } from '../../storage/sink.ts';
import { costTable } from '../../tables/costs.ts';
import type { DataSourceInfo } from '../sources/data-sources.ts';

export interface DataSourceFreshness {
  readonly dataSourceId: string;
  readonly newestBilledDate: string | undefined;
  /** Hours since the end (UTC) of the newest billed day exported; undefined: none exported yet. */
  readonly billedDayAgeHours: number | undefined;
  readonly lastSynchronizedAt: string | undefined;
  readonly syncAgeHours: number | undefined;
}

const HOUR_MS = 3_600_000;
/** Day folders listed one by one before falling back to one listing of the whole table. */
const RECENT_DAYS = 7;

export async function measureFreshness(
  sink: Sink,
  dataSources: readonly Pick<DataSourceInfo, 'id' | 'lastSynchronizedAt'>[],
  now: Date,
): Promise<DataSourceFreshness[]> {
  const newest = await newestBilledDays(sink, new Set(dataSources.map((d) => d.id)), now);
  const hoursSince = (ms: number) => Math.max(0, Math.round(((now.getTime() - ms) / HOUR_MS) * 10) / 10);
  return dataSources.map((d) => {
    const day = newest.get(d.id);
    const synced = d.lastSynchronizedAt === undefined ? Number.NaN : Date.parse(d.lastSynchronizedAt);
    return {
      dataSourceId: d.id,
      newestBilledDate: day,
      billedDayAgeHours:
        day === undefined ? undefined : hoursSince(Date.parse(`${addDays(day, 1)}T00:00:00Z`)),
      lastSynchronizedAt: d.lastSynchronizedAt,
      syncAgeHours: Number.isNaN(synced) ? undefined : hoursSince(synced),
    };
  });
}

/**
 * data source id -> newest billed day with an object. Walks back over the recent day folders
 * (one small LIST each), and lists the whole table once only for data sources not found there.
 */
async function newestBilledDays(
  sink: Sink,
  ids: ReadonlySet<string>,
  now: Date,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const collect = (keys: readonly string[]) => {
    for (const key of keys) {
      const match = /billed_date=(\d{4}-\d{2}-\d{2})\/([^/]+)\.parquet$/.exec(key);
      if (!match || !ids.has(match[2]!)) continue;
      const [, day, id] = match as unknown as [string, string, string];
      if ((found.get(id) ?? '') < day) found.set(id, day);
    }
  };
  const folder = (day: string) => `${costTable.name}/${costTable.partitionKey}=${day}/`;
  for (let back = 0; back < RECENT_DAYS && found.size < ids.size; back++) {
    collect(await sink.list(folder(addDays(utcDay(now), -back))));
  }
  if (found.size < ids.size) {
    const missing = new Set([...ids].filter((id) => !found.has(id)));
    const all = await sink.list(`${costTable.name}/`);
    collect(all.filter((k) => missing.has(k.slice(k.lastIndexOf('/') + 1, -'.parquet'.length))));
  }
  return found;
}

export interface FreshnessReport {
  readonly staleAfterHours: number;
  readonly dataSources: readonly DataSourceFreshness[];
  /** The data sources past the setting, each with what is old: what the alarm is about. */
  readonly stale: ReadonlyArray<{
    readonly dataSourceId: string;
    readonly name: string;
    readonly why: string;
  }>;
}

/** Measures every data source and names those older than `staleAfterHours`. */
export async function checkFreshness(
  deps: { sink: Sink; dataSources: readonly DataSourceInfo[]; now: Date },
  staleAfterHours: number,
): Promise<FreshnessReport> {
  const measured = await measureFreshness(deps.sink, deps.dataSources, deps.now);
  const stale = measured.flatMap((m, i) => {
    const why = [
      m.billedDayAgeHours !== undefined && m.billedDayAgeHours > staleAfterHours
        ? `no billed day newer than ${m.newestBilledDate} exported (${m.billedDayAgeHours} h)`
        : undefined,
      m.syncAgeHours !== undefined && m.syncAgeHours > staleAfterHours
        ? `Cloudforet last synchronized it at ${m.lastSynchronizedAt} (${m.syncAgeHours} h)`
        : undefined,
    ].filter((w) => w !== undefined);
    return why.length > 0
      ? [{ dataSourceId: m.dataSourceId, name: deps.dataSources[i]!.name, why: why.join('; ') }]
      : [];
  });
  return { staleAfterHours, dataSources: measured, stale };
}
