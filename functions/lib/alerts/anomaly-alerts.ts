// One alert per cost anomaly of the recent days, judged as `cloudforet-export anomalies` judges
// (the published manifests, no Cloudforet request), named in the data source's own currency, and
// pointing at the saved Athena query that explains it.
import type { Anomaly } from '../anomalies/detect.ts';
import { objectKey, partitionPrefix } from '../destination/layout.ts';
import { newestPartition, readParquetFolder, readParquetObject } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import { dataSourceTable } from '../tables/inventory.ts';
import { type AlertMessage, fieldLines, money, snsSubject } from './alert-text.ts';
import { type Alert, DAY_TOTAL, MATERIAL_SHARE } from './sent-ledger.ts';

/** The saved query (infra/queries/) an anomaly alert names. */
export const ANOMALY_QUERY = 'daily_cost_by_provider';

export interface DataSourceInfo {
  readonly name: string;
  readonly currency: string;
}

/** data source id -> name and currency, from the newest data_sources snapshot (none: empty). */
export async function readDataSources(sink: Sink): Promise<Map<string, DataSourceInfo>> {
  const newest = await newestPartition(sink, dataSourceTable);
  if (newest === undefined) return new Map();
  const rows = await readParquetFolder(sink, partitionPrefix(dataSourceTable, newest));
  return new Map(
    rows.map((r) => [
      String(r.data_source_id),
      { name: String(r.name ?? r.data_source_id), currency: String(r.currency ?? 'USD') },
    ]),
  );
}

/** A data source missing from the snapshot: its currency from the day's own cost object. */
export async function currencyOfDay(
  sink: Sink,
  dataSourceId: string,
  day: string,
): Promise<string | undefined> {
  const rows = await readParquetObject(sink, objectKey(costTable, day, dataSourceId));
  const currency = rows.find((r) => typeof r.currency === 'string')?.currency;
  return typeof currency === 'string' ? currency : undefined;
}

/** The data source's own cost of a day (every scope together), as the manifests hold it. */
export type DayTotal = (dataSourceId: string, day: string) => number | undefined;

/**
 * One alert per data source and day: a 4x day shows in the data source and in each of its projects,
 * workspaces and accounts, and is one event. The headline is the data source's own anomaly, else
 * the finer one that rose most; the others are listed under it. The figure a restatement is judged
 * on is the day's own total, never the headline's: other days' spikes move the baseline, and so
 * which scope heads the alert, but not what the day cost.
 */
export function anomalyAlerts(
  anomalies: readonly Anomaly[],
  sources: ReadonlyMap<string, DataSourceInfo>,
  destination: string,
  dayTotal: DayTotal,
): Alert[] {
  const groups = new Map<string, Anomaly[]>();
  for (const a of anomalies) {
    const id = `${a.data_source_id}|${a.billed_date}`;
    groups.set(id, [...(groups.get(id) ?? []), a]);
  }
  return [...groups.values()].map((group) => {
    const rise = (a: Anomaly) =>
      a.scope === 'data_source' ? Number.POSITIVE_INFINITY : a.actual - a.expected;
    const [head, ...others] = [...group].sort((a, b) => rise(b) - rise(a)) as [Anomaly, ...Anomaly[]];
    const source = sources.get(head.data_source_id) ?? { name: head.data_source_id, currency: 'USD' };
    const total = dayTotal(head.data_source_id, head.billed_date) ?? head.actual;
    return {
      id: ['anomaly', head.billed_date, head.data_source_id],
      figure: total,
      basis: DAY_TOTAL,
      message: (previous) =>
        anomalyMessage(
          head,
          others,
          source,
          destination,
          previous && { before: previous.figure, now: total },
        ),
    };
  });
}

export function anomalyMessage(
  a: Anomaly,
  others: readonly Anomaly[],
  source: DataSourceInfo,
  destination: string,
  /** The day's own total when it was alerted before, and now: a restatement. */
  restatement?: { readonly before: number | undefined; readonly now: number },
): AlertMessage {
  const cur = source.currency;
  const where = a.scope === 'data_source' ? source.name : `${a.scope} ${a.key}`;
  const ratio = (x: Anomaly) =>
    x.expected > 0 ? `${(x.actual / x.expected).toFixed(1)}x expected` : 'none expected';
  const restated = restatement !== undefined;
  const subject = snsSubject(
    `Cost anomaly${restated ? ' (restated)' : ''} on ${a.billed_date}: ${where}, ${money(a.actual)} ${cur} (${ratio(a)})`,
  );
  const filter =
    a.scope === 'data_source' || a.key === '(none)'
      ? ''
      : `\n    AND ${a.scope}_id = '${a.key.replaceAll("'", "''")}'`;
  const body = [
    restatement
      ? `Cloudforet restated a day alerted before at ${money(restatement.before ?? 0)} ${cur} (the data source's cost that day): ` +
        `it is now ${money(restatement.now)} ${cur}, a move of more than ${MATERIAL_SHARE * 100} %.`
      : 'A cost anomaly was found in the Cloudforet export.',
    '',
    ...fieldLines([
      [
        'Data source',
        source.name === a.data_source_id ? a.data_source_id : `${source.name} (${a.data_source_id})`,
      ],
      ['Day', `${a.billed_date} (billed date, UTC)`],
      ['Scope', a.scope],
      ['Key', a.key],
      ['Expected', `${money(a.expected)} ${cur} (median of up to 28 days before)`],
      ['Actual', `${money(a.actual)} ${cur} (${ratio(a)})`],
      ['Currency', `${cur} (the data source's own)`],
    ]),
    ...(others.length > 0 ? ['', 'Also unusual that day in this data source:'] : []),
    ...others
      .slice(0, 10)
      .map((o) => `  ${o.scope} ${o.key}: ${money(o.actual)} ${cur} against ${money(o.expected)} expected`),
    ...(others.length > 10 ? [`  ... and ${others.length - 10} more`] : []),
    '',
    `Explain it in Athena: the saved query ${ANOMALY_QUERY} shows each day's cost by provider;`,
    'this one lists what the day cost by project and product:',
    '',
    '  SELECT project_id, product, round(sum(cost), 2) AS cost',
    '  FROM costs',
    `  WHERE billed_date = '${a.billed_date}' AND data_source_id = '${a.data_source_id}'${filter}`,
    '  GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 20;',
    '',
    `Export: ${destination}`,
    `Each anomaly is sent once; a restated day alerts again only if its own cost moves by more than ${MATERIAL_SHARE * 100} %.`,
    'The method: docs/anomalies.md of cloudforet-export.',
  ];
  return { subject, body: `${body.join('\n')}\n` };
}
