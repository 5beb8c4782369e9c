// A workspace's statement against Cloudforet's DONE cost report of the same month (the invoice it
// sent): equal within 0.01 in the report's currency, or both figures and the difference named
// (the report's adjustments; unified costs that changed after the report, or a different scope of
// data sources; a different currency date). Read from what the cost run archived: the status
// history's facts (cost_report_status manifests) and the report's data rows.

import { partitionManifestPrefix, partitionPrefix } from '../destination/layout.ts';
import { type Row, readParquetFolder } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { costReportDataTable, costReportStatusTable, type Reconciliation } from '../tables/cost-reports.ts';
import { currencyColumnName } from '../tables/unified-costs.ts';

/** Totals differing by at most this, in the report's currency, reconcile. */
export const RECONCILE_TOLERANCE = 0.01;

/** A DONE report as its status fact keeps it. */
export interface DoneCostReport {
  readonly costReportId: string;
  readonly reportNumber: string;
  readonly workspaceId: string;
  readonly currency: string;
  readonly total: number;
  readonly isAdjusted: boolean;
  /** The date of the rates the report used (its unified costs' exchange_date). */
  readonly currencyDate?: string;
}

export type { Reconciliation } from '../tables/cost-reports.ts';

interface FactLike {
  cost_report_id: string;
  status: string;
  observed_at: string;
  report_number?: string;
  workspace_id?: string;
  project_id?: string;
  service_account_id?: string;
  currency?: string;
  cost?: Record<string, number>;
  is_adjusted?: boolean;
  currency_date?: string;
}

/** workspace id -> the month's DONE report (latest status DONE) of workspace scope, from the archive. */
export async function doneReports(sink: Sink, month: string): Promise<Map<string, DoneCostReport>> {
  const keys = (await sink.list(partitionManifestPrefix(costReportStatusTable, month))).filter((k) =>
    k.endsWith('.json'),
  );
  const last = new Map<string, FactLike>();
  for (const key of keys) {
    const facts = (JSON.parse((await sink.read(key)) ?? '{}') as { facts?: FactLike[] }).facts ?? [];
    for (const f of facts) {
      const seen = last.get(f.cost_report_id);
      if (!seen || seen.observed_at <= f.observed_at) last.set(f.cost_report_id, f);
    }
  }
  const out = new Map<string, DoneCostReport>();
  for (const f of last.values()) {
    if (f.status !== 'DONE' || !f.workspace_id || f.project_id || f.service_account_id || !f.currency)
      continue;
    out.set(f.workspace_id, {
      costReportId: f.cost_report_id,
      reportNumber: f.report_number ?? '',
      workspaceId: f.workspace_id,
      currency: f.currency,
      total: f.cost?.[f.currency] ?? 0,
      isAdjusted: f.is_adjusted === true,
      ...(f.currency_date && { currencyDate: f.currency_date }),
    });
  }
  return out;
}

/** The archived data rows of the month's reports, by report id. */
export async function reportRows(sink: Sink, month: string): Promise<Map<string, Row[]>> {
  const out = new Map<string, Row[]>();
  for (const row of await readParquetFolder(sink, partitionPrefix(costReportDataTable, month))) {
    const id = String(row.cost_report_id);
    out.set(id, [...(out.get(id) ?? []), row]);
  }
  return out;
}

/** The statement's unified rows against the report and the report's own rows. */
export function reconcile(
  report: DoneCostReport,
  statementRows: readonly Row[],
  rows: readonly Row[],
): Reconciliation {
  const column = currencyColumnName(report.currency);
  const sum = (list: readonly Row[]) => list.reduce((n, r) => n + Number(r[column] ?? 0), 0);
  const statementTotal = sum(statementRows);
  const difference = report.total - statementTotal;
  const reconciled = Math.abs(difference) <= RECONCILE_TOLERANCE;
  const explained: Array<{ cause: string; amount: number }> = [];
  if (!reconciled) {
    const adjusted = rows.filter((r) => r.is_adjusted === 'true' || r.is_adjusted === true);
    const plain = rows.filter((r) => !adjusted.includes(r));
    const adjustments = sum(adjusted);
    const after = sum(plain) - statementTotal;
    const rest = difference - adjustments - after;
    if (Math.abs(adjustments) > RECONCILE_TOLERANCE)
      explained.push({
        cause: "the report's adjustments (cost_report_data rows with is_adjusted)",
        amount: adjustments,
      });
    if (Math.abs(after) > RECONCILE_TOLERANCE) {
      const dates = [
        ...new Set(statementRows.map((r) => String(r.exchange_date ?? '')).filter(Boolean)),
      ].sort();
      const rates =
        report.currencyDate && dates.length > 0 && !(dates.length === 1 && dates[0] === report.currencyDate)
          ? `; the report's rates are of ${report.currencyDate}, the statement's of ${dates.join(', ')}`
          : '';
      explained.push({
        cause: `unified costs that differ from the report’s rows: rows synced after the report, or another scope of data sources${rates}`,
        amount: after,
      });
    }
    if (Math.abs(rest) > RECONCILE_TOLERANCE)
      explained.push({
        cause: 'the report total differs from its own rows (currency date or rounding)',
        amount: rest,
      });
  }
  return {
    costReportId: report.costReportId,
    reportNumber: report.reportNumber,
    currency: report.currency,
    reportTotal: report.total,
    statementTotal,
    difference,
    reconciled,
    explained,
  };
}
