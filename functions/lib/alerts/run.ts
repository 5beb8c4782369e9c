// The alerts run, after the daily export: the anomalies of the recent days and the budgets on
// pace to pass a threshold, each published once through `publish` (one SNS topic) and recorded in
// the sent-alerts ledger at the destination. Reads the destination only: no Cloudforet request.
import { type Anomaly, detectAnomalies } from '../anomalies/detect.ts';
import { readPublishedCosts } from '../anomalies/series.ts';
import { addDays, DAY_FORMS, eventDay, utcDay } from '../dates.ts';
import { EventError, errorMessage } from '../errors.ts';
import { eventFields } from '../input/event-shape.ts';
import type { Logger } from '../log.ts';
import type { Sink } from '../storage/sink.ts';
import {
  anomalyAlerts,
  currencyOfDay,
  type DataSourceInfo,
  type DayTotal,
  readDataSources,
} from './anomaly-alerts.ts';
import { budgetAlerts, readBudgetForecasts } from './budget-alerts.ts';
import { reportAlerts } from './report-alerts.ts';
import { type Alert, type Publish, type SendOutcome, sendOnce } from './sent-ledger.ts';

/** Anomalies of billed days this far back are alerted by default (restatements included). */
export const ALERT_LOOKBACK_DAYS = 35;

export interface AlertsRequest {
  /** Alert anomalies of billed days from this one on. */
  readonly from: string;
}

export interface AlertsDeps {
  readonly sink: Sink;
  readonly publish: Publish;
  readonly log: Logger;
  readonly now: Date;
  readonly runId?: string;
}

export interface AlertsSummary {
  readonly from: string;
  readonly anomalies: number;
  readonly budgets: number;
  readonly budgetSnapshot: string | null;
  /** Regenerated cost reports and statements disagreeing with their report, alerted or not. */
  readonly costReports: number;
  readonly sent: number;
  readonly alreadySent: number;
  readonly inFlight: number;
  readonly failed: number;
  readonly sentSubjects: string[];
  readonly failures: Array<{ alert: string; error: string }>;
}

export function defaultAlertsRequest(now: Date): AlertsRequest {
  return { from: addDays(utcDay(now), -ALERT_LOOKBACK_DAYS) };
}

export async function runAlerts(deps: AlertsDeps, request: AlertsRequest): Promise<AlertsSummary> {
  const today = utcDay(deps.now);
  const { anomalies, dayTotal } = await recentAnomalies(deps.sink, today, request.from);
  const budgets = await readBudgetForecasts(deps.sink, today);
  if (budgets.snapshotDate === undefined)
    deps.log.info('no budgets snapshot of the last 7 days: no budget alert');
  const alerts: Alert[] = [
    ...anomalyAlerts(anomalies, await dataSourcesOf(deps.sink, anomalies), deps.sink.location, dayTotal),
    ...budgets.forecasts.flatMap((f) => budgetAlerts(f, budgets.snapshotDate!, deps.sink.location)),
  ];
  // Regenerated cost reports and statements that disagree with theirs (report-alerts.ts).
  const costReports = await reportAlerts(deps.sink);
  alerts.push(...costReports);
  const outcomes: Array<[Alert, SendOutcome]> = [];
  for (const alert of alerts) {
    const r = await sendOnce(deps, alert);
    outcomes.push([alert, r]);
    const name = alert.id.join('/');
    if (r.outcome === 'sent')
      deps.log.info('alert sent', { alert: name, version: r.version, messageId: r.messageId });
    if (r.outcome === 'failed')
      deps.log.error('alert not sent', { alert: name, error: errorMessage(r.error) });
  }
  const count = (o: SendOutcome['outcome']) => outcomes.filter(([, r]) => r.outcome === o).length;
  return {
    from: request.from,
    anomalies: anomalies.length,
    budgets: budgets.forecasts.length,
    budgetSnapshot: budgets.snapshotDate ?? null,
    costReports: costReports.length,
    sent: count('sent'),
    alreadySent: count('already sent'),
    inFlight: count('in flight'),
    failed: count('failed'),
    sentSubjects: outcomes.flatMap(([, r]) => (r.outcome === 'sent' ? [r.subject] : [])),
    failures: outcomes.flatMap(([alert, r]) =>
      r.outcome === 'failed' ? [{ alert: alert.id.join('/'), error: errorMessage(r.error) }] : [],
    ),
  };
}

/**
 * The anomalies of billed days from `from` on, judged as `cloudforet-export anomalies` judges, and
 * each data source's own daily totals (its data_source series) that their alerts are judged on.
 */
async function recentAnomalies(
  sink: Sink,
  today: string,
  from: string,
): Promise<{ anomalies: Anomaly[]; dayTotal: DayTotal }> {
  const published = await readPublishedCosts(sink, today);
  const totals = new Map<string, number>();
  for (const s of published.series.filter((x) => x.scope === 'data_source'))
    for (const p of s.points) totals.set(`${s.dataSourceId}|${p.date}`, p.cost);
  const anomalies = detectAnomalies(published.series, { judgeBefore: published.judgeBefore }).filter(
    (a) => a.billed_date >= from,
  );
  return { anomalies, dayTotal: (ds, day) => totals.get(`${ds}|${day}`) };
}

/** Names and currencies of the anomalies' data sources: the snapshot, else the day's own rows. */
async function dataSourcesOf(
  sink: Sink,
  anomalies: readonly Anomaly[],
): Promise<Map<string, DataSourceInfo>> {
  const sources = anomalies.length > 0 ? await readDataSources(sink) : new Map<string, DataSourceInfo>();
  for (const a of anomalies) {
    if (sources.has(a.data_source_id)) continue;
    const currency = await currencyOfDay(sink, a.data_source_id, a.billed_date);
    sources.set(a.data_source_id, { name: a.data_source_id, currency: currency ?? 'USD' });
  }
  return sources;
}

/** `{}`, or `{"from": "YYYY-MM-DD"}` (or "today-N") to alert anomalies of billed days from that one on. */
export function parseAlertsEvent(event: unknown, now: Date): AlertsRequest {
  const fields = eventFields(event, ['from'], '{"from": "2026-01-01"}');
  if (fields?.from === undefined) return defaultAlertsRequest(now);
  const from = eventDay(fields.from, now);
  if (from === undefined || from > utcDay(now)) {
    throw new EventError(
      'EVENT_BAD_DATE',
      `"from" must be a past day as ${DAY_FORMS} (got ${JSON.stringify(fields.from)})`,
    );
  }
  return { from };
}
