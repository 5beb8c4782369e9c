// The status history's facts (cost_report_status rows, kept in its manifests too): what it already
// says, what a listing adds, and which reports it shows regenerated; pure, so the rules are tested alone.
import type { ApiRecord } from '../cloudforet/pager.ts';

/** A status fact as its status object's manifest keeps it (the same fields as its row). */
export interface Fact {
  readonly cost_report_id: string;
  readonly status: string;
  readonly previous_status: string | null;
  readonly report_number?: string;
  readonly currency?: string;
  /** The date of the rates the report used. */
  readonly currency_date?: string;
  readonly cost?: Readonly<Record<string, number>>;
  readonly is_adjusted?: boolean;
  readonly cost_report_config_id?: string;
  readonly report_month: string;
  readonly workspace_id?: string;
  readonly project_id?: string;
  readonly service_account_id?: string;
  readonly created_at?: string;
  readonly updated_at?: string;
  readonly observed_at: string;
  readonly run_id: string;
}

export const FINAL = new Set(['DONE', 'EXPIRED']);
export const DELETED = 'DELETED';

/** The last status recorded for each report, facts in any order (latest observed_at wins). */
export function lastStatus(facts: readonly Fact[]): Map<string, Fact> {
  const last = new Map<string, Fact>();
  for (const f of facts) {
    const seen = last.get(f.cost_report_id);
    if (!seen || seen.observed_at <= f.observed_at) last.set(f.cost_report_id, f);
  }
  return last;
}

/**
 * The facts a listing adds: each report in a status not recorded last for it, and each draft
 * recorded in a month the listing covers that is no longer listed (Cloudforet deletes a
 * superseded draft: cost_report_serivce.py _delete_old_cost_reports). An empty listing adds no
 * DELETED fact: an empty answer proves nothing.
 */
export function newFacts(
  known: readonly Fact[],
  listed: readonly ApiRecord[],
  at: { readonly observedAt: string; readonly runId: string },
): Fact[] {
  const last = lastStatus(known);
  const out: Fact[] = [];
  const listedIds = new Set(listed.map((r) => String(r.cost_report_id)));
  for (const r of listed) {
    const id = String(r.cost_report_id);
    const status = String(r.status ?? '');
    const before = last.get(id);
    if (before?.status === status) continue;
    out.push({ ...factOf(r), previous_status: before?.status ?? null, ...stamp(at) });
  }
  if (listed.length === 0) return out;
  const months = new Set(listed.map((r) => String(r.report_month)));
  for (const f of last.values()) {
    if (listedIds.has(f.cost_report_id) || !months.has(f.report_month)) continue;
    if (FINAL.has(f.status) || f.status === DELETED) continue;
    out.push({ ...f, status: DELETED, previous_status: f.status, cost: undefined, ...stamp(at) });
  }
  return out;
}

const stamp = (at: { readonly observedAt: string; readonly runId: string }) => ({
  observed_at: at.observedAt,
  run_id: at.runId,
});

function factOf(r: ApiRecord): Omit<Fact, 'previous_status' | 'observed_at' | 'run_id'> {
  const text = (k: string) => (typeof r[k] === 'string' && r[k] !== '' ? (r[k] as string) : undefined);
  return {
    cost_report_id: String(r.cost_report_id),
    status: String(r.status ?? ''),
    report_number: text('report_number'),
    currency: text('currency'),
    currency_date: text('currency_date'),
    cost: (r.cost ?? {}) as Record<string, number>,
    is_adjusted: r.is_adjusted === true,
    cost_report_config_id: text('cost_report_config_id'),
    report_month: String(r.report_month),
    workspace_id: text('workspace_id'),
    project_id: text('project_id'),
    service_account_id: text('service_account_id'),
    created_at: text('created_at'),
    updated_at: text('updated_at'),
  };
}

/** The report a config issues for one month and one workspace, project or service account. */
export function reportSlot(
  f: Pick<
    Fact,
    'cost_report_config_id' | 'report_month' | 'workspace_id' | 'project_id' | 'service_account_id'
  >,
): string {
  return [
    f.cost_report_config_id,
    f.report_month,
    f.workspace_id,
    f.project_id ?? '',
    f.service_account_id ?? '',
  ].join('|');
}

export interface Regeneration {
  readonly reportMonth: string;
  readonly workspaceId?: string;
  readonly currency?: string;
  readonly before: { readonly costReportId: string; readonly reportNumber?: string; readonly cost: number };
  readonly after: { readonly costReportId: string; readonly reportNumber?: string; readonly cost: number };
  /** When the archive first saw the new version DONE (its status fact's observed_at). */
  readonly observedAt: string;
}

/** Totals differing by more than this, in the report's currency, are a changed report. */
export const REPORT_TOLERANCE = 0.01;

export const totalOf = (f: Pick<Fact, 'cost' | 'currency'>): number =>
  f.currency ? (f.cost?.[f.currency] ?? 0) : 0;

/**
 * Reports that became DONE in `added` where an earlier DONE report of the same slot (now EXPIRED,
 * or still DONE in the facts) had another total: Cloudforet regenerated a sent report.
 */
export function regenerations(known: readonly Fact[], added: readonly Fact[]): Regeneration[] {
  const everDone = new Map<string, Fact[]>();
  for (const f of [...known, ...added]) {
    if (!FINAL.has(f.status)) continue;
    const slot = reportSlot(f);
    const list = everDone.get(slot) ?? [];
    if (!list.some((g) => g.cost_report_id === f.cost_report_id)) list.push(f);
    everDone.set(slot, list);
  }
  const out: Regeneration[] = [];
  for (const f of added) {
    if (f.status !== 'DONE') continue;
    const earlier = (everDone.get(reportSlot(f)) ?? [])
      .filter((g) => g.cost_report_id !== f.cost_report_id && (g.created_at ?? '') < (f.created_at ?? ''))
      .sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''))
      .at(-1);
    if (!earlier || Math.abs(totalOf(earlier) - totalOf(f)) <= REPORT_TOLERANCE) continue;
    out.push({
      reportMonth: f.report_month,
      workspaceId: f.workspace_id,
      currency: f.currency,
      before: {
        costReportId: earlier.cost_report_id,
        reportNumber: earlier.report_number,
        cost: totalOf(earlier),
      },
      after: { costReportId: f.cost_report_id, reportNumber: f.report_number, cost: totalOf(f) },
      observedAt: f.observed_at,
    });
  }
  return out;
}

/**
 * Splits a month's regenerations by when the archive saw them. `facts` are every status fact of the
 * month (the new ones included): its first report pass is their earliest observed_at. A regeneration
 * seen by that pass happened before the archive watched the month (a first run over a domain with
 * history): it is `past`, kept as facts and listed by the saved query cost_reports_regenerated but
 * not alerted. One seen by a later pass is `observed`, and alerted.
 */
export function byFirstPass(
  regenerated: readonly Regeneration[],
  facts: readonly Fact[],
): { observed: Regeneration[]; past: Regeneration[] } {
  const firstPass = new Map<string, string>();
  for (const f of facts) {
    const seen = firstPass.get(f.report_month);
    if (seen === undefined || f.observed_at < seen) firstPass.set(f.report_month, f.observed_at);
  }
  const observed: Regeneration[] = [];
  const past: Regeneration[] = [];
  for (const r of regenerated) {
    const first = firstPass.get(r.reportMonth);
    (first === undefined || r.observedAt > first ? observed : past).push(r);
  }
  return { observed, past };
}
