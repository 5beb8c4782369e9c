// Monthly statements per workspace, from the unified costs a cost run exported: Cloudforet's own
// monthly figures, with every row's cost in each supported currency at the month's rate, and
// virtual workspaces already folded into the workspace their account is linked to. One CSV (line
// items, RFC 4180) and one HTML page (the total, the rates and their source, whether Cloudforet
// has confirmed the month) per workspace with costs; rows with no workspace go to "unassigned".

import { partitionPrefix } from '../destination/layout.ts';
import { newestPartition, type Row, readParquetFolder } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { projectTable } from '../tables/identity.ts';
import { currencyColumnName, unifiedCostTable } from '../tables/unified-costs.ts';
import type { Reconciliation } from './reconcile.ts';

export type { Row };

export interface Statement {
  /** The workspace id, or 'unassigned'. */
  readonly name: string;
  readonly workspaceName: string | undefined;
  readonly month: string;
  readonly currency: string;
  readonly lines: readonly StatementLine[];
  readonly total: number;
  readonly confirmed: boolean;
  /** origin currency -> units of the statement currency per unit, over the month's rows. */
  readonly rates: Readonly<Record<string, number>>;
  readonly rateSources: readonly string[];
  /** Against the month's DONE cost report of the workspace, when one is archived. */
  readonly reconciliation?: Reconciliation;
}

export interface StatementLine {
  readonly workspace_id: string;
  readonly project_id: string;
  readonly project_name: string;
  readonly provider: string;
  readonly product: string;
  readonly data_source_id: string;
  readonly service_account_id: string;
  readonly origin_currency: string;
  readonly cost: number;
}

export const COLUMNS = [
  'workspace_id',
  'project_id',
  'project_name',
  'provider',
  'product',
  'data_source_id',
  'service_account_id',
  'origin_currency',
  'cost',
] as const;

/** The CSV's last column: the number of the DONE cost report the statement reconciles to. */
export const REPORT_COLUMN = 'cost_report_number';

/** Every unified cost row of the month in the sink (all scope objects, each row once). */
export async function readUnifiedMonth(sink: Sink, month: string): Promise<Row[]> {
  const byId = new Map<string, Row>();
  for (const row of await readParquetFolder(sink, partitionPrefix(unifiedCostTable(), month))) {
    byId.set(String(row.unified_cost_id), row);
  }
  return [...byId.values()];
}

/**
 * project id -> name, from the newest projects snapshot in the sink (none: an empty map). Unified
 * costs carry the project id as its name when Cloudforet had none at hand.
 */
export async function readProjectNames(sink: Sink): Promise<Map<string, string>> {
  const newest = await newestPartition(sink, projectTable);
  if (!newest) return new Map();
  const rows = await readParquetFolder(sink, partitionPrefix(projectTable, newest));
  return new Map(
    rows.filter((r) => typeof r.name === 'string').map((r) => [String(r.project_id), String(r.name)]),
  );
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

export function buildStatements(
  rows: readonly Row[],
  month: string,
  currency: string,
  projectNames: ReadonlyMap<string, string> = new Map(),
): Statement[] {
  const column = currencyColumnName(currency);
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const name = str(row.workspace_id) || 'unassigned';
    groups.set(name, [...(groups.get(name) ?? []), row]);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, group]) => {
      const lines = group
        .map(
          (r): StatementLine => ({
            workspace_id: str(r.workspace_id),
            project_id: str(r.project_id),
            project_name: projectNames.get(str(r.project_id)) ?? str(r.project_name),
            provider: str(r.provider),
            product: str(r.product),
            data_source_id: str(r.data_source_id),
            service_account_id: str(r.service_account_id),
            origin_currency: str(r.currency),
            cost: Number(r[column] ?? 0),
          }),
        )
        .sort((a, b) => a.project_id.localeCompare(b.project_id) || b.cost - a.cost);
      return {
        name,
        workspaceName: group.map((r) => str(r.workspace_name)).find((n) => n !== ''),
        month,
        currency,
        lines,
        total: lines.reduce((n, l) => n + l.cost, 0),
        // The Parquet column is the string 'true' or 'false'.
        confirmed:
          group.length > 0 && group.every((r) => r.is_confirmed === true || r.is_confirmed === 'true'),
        rates: monthRates(group, currency),
        rateSources: [...new Set(group.map((r) => str(r.exchange_source)).filter(Boolean))].sort(),
      };
    });
}

/** origin -> sum(cost in the statement currency) / sum(cost in the origin currency). */
function monthRates(rows: readonly Row[], currency: string): Record<string, number> {
  const sums = new Map<string, { to: number; from: number }>();
  for (const r of rows) {
    const origin = str(r.currency);
    if (!origin || origin === currency) continue;
    const s = sums.get(origin) ?? { to: 0, from: 0 };
    s.to += Number(r[currencyColumnName(currency)] ?? 0);
    s.from += Number(r[currencyColumnName(origin)] ?? 0);
    sums.set(origin, s);
  }
  return Object.fromEntries([...sums].filter(([, s]) => s.from !== 0).map(([o, s]) => [o, s.to / s.from]));
}

/** A plain decimal: no exponent, at most 6 decimals, no trailing zeros. */
export function plainDecimal(n: number): string {
  return n.toFixed(6).replace(/\.?0+$/, '') || '0';
}

const csvField = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** RFC 4180: CRLF line ends, a header, one line item per row, no total rows. */
export function statementCsv(s: Statement): string {
  const report = csvField(s.reconciliation?.reportNumber ?? '');
  const lines = [
    [...COLUMNS, REPORT_COLUMN].join(','),
    ...s.lines.map((l) =>
      [...COLUMNS.map((c) => (c === 'cost' ? plainDecimal(l.cost) : csvField(String(l[c])))), report].join(
        ',',
      ),
    ),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

const esc = (v: string) =>
  v.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const money = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function statementHtml(s: Statement): string {
  const byProject = new Map<string, { name: string; cost: number }>();
  for (const l of s.lines) {
    const p = byProject.get(l.project_id) ?? {
      name: l.project_name || l.project_id || '(no project)',
      cost: 0,
    };
    p.cost += l.cost;
    byProject.set(l.project_id, p);
  }
  const title = s.name === 'unassigned' ? 'Costs with no workspace' : esc(s.workspaceName ?? s.name);
  const rates = Object.entries(s.rates)
    .sort()
    .map(([o, r]) => `<li>1 ${esc(o)} = ${r.toPrecision(6)} ${esc(s.currency)}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}: ${s.month}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#111}
h1{font-size:1.4rem;margin-bottom:.2rem} .muted{color:#555}
table{border-collapse:collapse;width:100%;margin:1rem 0} th,td{padding:.3rem .5rem;border-bottom:1px solid #ddd;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.total{font-size:1.6rem;font-weight:600} .badge{padding:.1rem .4rem;border-radius:.3rem;background:${s.confirmed ? '#d7f5dd' : '#fdf0c8'}}
@media print{body{margin:0} a{color:inherit}}
</style></head><body>
<h1>${title}</h1>
<p class="muted">Statement for ${s.month} &middot; workspace <code>${esc(s.name)}</code> &middot; <span class="badge">${s.confirmed ? 'confirmed by Cloudforet' : 'not confirmed yet: figures may change'}</span></p>
<p class="total">${money(s.total)} ${esc(s.currency)}</p>
<p class="muted">Cloudforet's unified costs of the month, converted at the month's rates${
    s.rateSources.length > 0 ? ` (source: ${s.rateSources.map(esc).join(', ')})` : ''
  }:</p><ul>${rates || `<li>all costs were in ${esc(s.currency)}</li>`}</ul>
<table><thead><tr><th>Project</th><th class="num">Cost (${esc(s.currency)})</th></tr></thead><tbody>
${[...byProject.values()]
  .sort((a, b) => b.cost - a.cost)
  .map((p) => `<tr><td>${esc(p.name)}</td><td class="num">${money(p.cost)}</td></tr>`)
  .join('\n')}
</tbody><tfoot><tr><th>Total</th><th class="num">${money(s.total)}</th></tr></tfoot></table>
${reconciliationHtml(s)}
<p class="muted">${s.lines.length} line items in the CSV beside this page.</p>
</body></html>
`;
}

/** Which cost report the statement reconciles to, or both figures and what makes the difference. */
export function reconciliationHtml(s: Statement): string {
  const r = s.reconciliation;
  if (!r)
    return '<p class="muted">No DONE Cloudforet cost report of this month is archived to reconcile with.</p>';
  const report = `Cloudforet cost report <code>${esc(r.reportNumber)}</code> (<code>${esc(r.costReportId)}</code>)`;
  if (r.reconciled)
    return `<p class="reconciled">Reconciles to ${report}: ${money(r.reportTotal)} ${esc(r.currency)}.</p>`;
  const causes = r.explained
    .map((e) => `<li>${esc(e.cause)}: ${money(e.amount)} ${esc(r.currency)}</li>`)
    .join('');
  return `<p class="differs">Differs from ${report}: the report says ${money(r.reportTotal)} ${esc(r.currency)}, this statement ${money(r.statementTotal)} ${esc(r.currency)} (difference ${money(r.difference)} ${esc(r.currency)}):</p><ul>${causes}</ul>`;
}
