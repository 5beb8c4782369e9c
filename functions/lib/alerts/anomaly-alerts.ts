// One alert per cost anomaly of the recent days, judged as `cloudforet-export anomalies` judges
// (the published manifests, no Cloudforet request), named in the data source's own currency, and
// pointing at the saved Athena query that explains it.
import type { Anomaly } from '../anomalies/detect.ts';
import { newestPartition, readParquetFolder, readParquetObject } from '../published/read-objects.ts';
import { objectKey, partitionPrefix } from '../storage/layout.ts';
import type { Sink } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import { dataSourceTable } from '../tables/inventory.ts';
import { type AlertMessage, fieldLines, money, snsSubject } from './alert-text.ts';
import { MATERIAL_SHARE, type Alert } from './sent-ledger.ts';

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

export function anomalyAlert(a: Anomaly, source: DataSourceInfo, destination: string): Alert {
  return {
    id: ['anomaly', a.billed_date, a.data_source_id, a.scope, a.key],
    figure: a.actual,
    message: (previous) => anomalyMessage(a, source, destination, previous?.figure),
  };
}

export function anomalyMessage(
  a: Anomaly,
  source: DataSourceInfo,
  destination: string,
  alertedBefore?: number,
): AlertMessage {
  const cur = source.currency;
  const where = a.scope === 'data_source' ? source.name : `${a.scope} ${a.key} (${source.name})`;
  const ratio = a.expected > 0 ? `${(a.actual / a.expected).toFixed(1)}x expected` : 'expected none';
  const restated = alertedBefore !== undefined;
  const subject = snsSubject(
    `Cost anomaly${restated ? ' (restated)' : ''}: ${where} on ${a.billed_date}: ${money(a.actual)} ${cur}, ${ratio}`,
  );
  const filter =
    a.scope === 'data_source' || a.key === '(none)'
      ? ''
      : `\n    AND ${a.scope}_id = '${a.key.replaceAll("'", "''")}'`;
  const body = [
    restated
      ? `Cloudforet restated a day alerted before at ${money(alertedBefore)} ${cur}: its cost moved by more than ${MATERIAL_SHARE * 100} %.`
      : 'A cost anomaly was found in the Cloudforet export.',
    '',
    ...fieldLines([
      ['Data source', `${source.name} (${a.data_source_id})`],
      ['Day', `${a.billed_date} (billed date, UTC)`],
      ['Scope', a.scope],
      ['Key', a.key],
      ['Expected', `${money(a.expected)} ${cur} (median of up to 28 days before)`],
      ['Actual', `${money(a.actual)} ${cur} (${ratio})`],
      ['Currency', `${cur} (the data source's own)`],
    ]),
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
    `Each anomaly is sent once; a restated day alerts again only if its cost moves by more than ${MATERIAL_SHARE * 100} %.`,
    'The method: docs/anomalies.md of cloudforet-export.',
  ];
  return { subject, body: `${body.join('\n')}\n` };
}
