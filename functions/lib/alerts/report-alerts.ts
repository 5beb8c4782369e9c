// Cost-report alerts, read from the destination: a DONE report that Cloudforet regenerated with
// another total (the status history's facts), and a statement that disagrees with its month's
// DONE report (the statement records' reconciliation). Each is sent once, ever (sent-ledger.ts).

import { MANIFESTS_DIR, manifestPrefix } from '../destination/layout.ts';
import type { Sink } from '../storage/sink.ts';
import { byFirstPass, type Fact, type Regeneration, regenerations } from '../tables/cost-report-facts.ts';
import { costReportStatusTable, type Reconciliation } from '../tables/cost-reports.ts';
import { fieldLines, money, snsSubject } from './alert-text.ts';
import type { Alert } from './sent-ledger.ts';

export async function reportAlerts(sink: Sink): Promise<Alert[]> {
  return [
    ...(await regeneratedReports(sink)).map((r) => regenerationAlert(r, sink.location)),
    ...(await disagreeingStatements(sink)).map((s) => statementAlert(s, sink.location)),
  ];
}

/**
 * The regenerations the status history shows, month by month, that the archive observed after its
 * first report pass over the month: one already past at the first sighting (a first run over a domain
 * with history) is a fact and a row of the saved query cost_reports_regenerated, not an alert.
 */
export async function regeneratedReports(sink: Sink): Promise<Regeneration[]> {
  const byMonth = new Map<string, Fact[]>();
  for (const key of await sink.list(manifestPrefix(costReportStatusTable))) {
    const month = /report_month=(\d{4}-\d{2})\//.exec(key)?.[1];
    if (!month || !key.endsWith('.json')) continue;
    const facts = (JSON.parse((await sink.read(key)) ?? '{}') as { facts?: Fact[] }).facts ?? [];
    byMonth.set(month, [...(byMonth.get(month) ?? []), ...facts]);
  }
  return [...byMonth.values()].flatMap((facts) => byFirstPass(regenerations([], facts), facts).observed);
}

function regenerationAlert(r: Regeneration, destination: string): Alert {
  const cur = r.currency ?? '';
  return {
    id: ['report-regenerated', r.reportMonth, r.after.costReportId],
    message: () => ({
      subject: snsSubject(
        `Cost report ${r.reportMonth} regenerated: ${r.after.reportNumber ?? r.after.costReportId} ${money(r.after.cost)} ${cur} (was ${money(r.before.cost)})`,
      ),
      body: `${[
        'Cloudforet regenerated a DONE cost report with another total: the earlier version is EXPIRED',
        '(the e-mailed report is the first DONE version; a regeneration is not e-mailed).',
        '',
        ...fieldLines([
          ['Month', r.reportMonth],
          ['Workspace', r.workspaceId ?? '(none)'],
          [
            'Earlier report',
            `${r.before.reportNumber ?? ''} (${r.before.costReportId}): ${money(r.before.cost)} ${cur}`,
          ],
          [
            'New report',
            `${r.after.reportNumber ?? ''} (${r.after.costReportId}): ${money(r.after.cost)} ${cur}`,
          ],
          ['Change', `${money(r.after.cost - r.before.cost)} ${cur}`],
        ]),
        '',
        'Both versions and their rows stay archived: cost_reports and cost_report_data by cost_report_id,',
        'their statuses in cost_report_status.',
        `Export ${destination}. Sent once per regenerated report.`,
      ].join('\n')}\n`,
    }),
  };
}

interface Disagreement {
  readonly month: string;
  readonly name: string;
  readonly currency: string;
  readonly reconciliation: Reconciliation;
}

/** The newest revision of each archived statement whose reconciliation names a difference. */
export async function disagreeingStatements(sink: Sink): Promise<Disagreement[]> {
  const newest = new Map<string, { key: string; revision: number }>();
  for (const key of await sink.list(`${MANIFESTS_DIR}/statements/`)) {
    const m = /billed_month=(\d{4}-\d{2})\/(.+)\.r(\d+)\.json$/.exec(key);
    if (!m) continue;
    const id = `${m[1]}/${m[2]}`;
    const revision = Number(m[3]);
    if ((newest.get(id)?.revision ?? 0) < revision) newest.set(id, { key, revision });
  }
  const out: Disagreement[] = [];
  for (const { key } of newest.values()) {
    const record = JSON.parse((await sink.read(key)) ?? '{}') as {
      month?: string;
      name?: string;
      currency?: string;
      reconciliation?: Reconciliation;
    };
    const r = record.reconciliation;
    if (!r || r.reconciled || !record.month || !record.name) continue;
    out.push({ month: record.month, name: record.name, currency: record.currency ?? '', reconciliation: r });
  }
  return out;
}

function statementAlert(d: Disagreement, destination: string): Alert {
  const r = d.reconciliation;
  return {
    id: ['statement-vs-report', d.month, d.name, r.costReportId],
    message: () => ({
      subject: snsSubject(
        `Statement ${d.month} ${d.name} differs from cost report ${r.reportNumber} by ${money(r.difference)} ${r.currency}`,
      ),
      body: `${[
        "A workspace's statement and Cloudforet's DONE cost report of the month disagree by more than 0.01.",
        '',
        ...fieldLines([
          ['Month', d.month],
          ['Workspace', d.name],
          ['Cost report', `${r.reportNumber} (${r.costReportId}): ${money(r.reportTotal)} ${r.currency}`],
          ['Statement', `${money(r.statementTotal)} ${r.currency} (issued in ${d.currency})`],
          ['Difference', `${money(r.difference)} ${r.currency}`],
          ...r.explained.map((e) => [e.cause, `${money(e.amount)} ${r.currency}`] as const),
        ]),
        '',
        `Export ${destination}. Sent once per statement and report.`,
      ].join('\n')}\n`,
    }),
  };
}
