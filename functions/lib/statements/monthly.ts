// The statements function's run: for each month asked, once Cloudforet has confirmed it (every
// unified-cost manifest of the month says so), archive each workspace's statement, or a revision
// beside it when the month was restated since (publish.ts). An unconfirmed month writes nothing.
import { addDays, eventMonth, MONTH_FORMS, utcDay } from '../dates.ts';
import { MANIFESTS_DIR, manifestPrefix, partitionManifestPrefix, STATEMENTS } from '../destination/layout.ts';
import { parseManifest } from '../destination/manifest.ts';
import { EventError } from '../errors.ts';
import { eventFields } from '../input/event-shape.ts';
import type { Sink } from '../storage/sink.ts';
import { SUPPORTED_CURRENCIES, unifiedCostTable } from '../tables/unified-costs.ts';
import { type PublishedStatement, publishStatement } from './publish.ts';
import { doneReports, reconcile, reportRows } from './reconcile.ts';
import { buildStatements, readProjectNames, readUnifiedMonth, type Statement } from './render.ts';

/** Months before the current one a scheduled run ({}) looks at: confirmation comes mid next month. */
export const STATEMENT_MONTHS_BACK = 3;

export interface StatementsRequest {
  readonly months: readonly string[];
  readonly currency: string;
  /**
   * Also every archived month whose unified costs were exported again after its newest statement
   * record (a restatement a cost run followed outside the months above): the scheduled run's `{}`.
   */
  readonly followRestated?: boolean;
  /**
   * Working copies (the CLI): each month asked, confirmed or not, nothing archived; a statement
   * already archived gets a revision beside it when it changed.
   */
  readonly workingCopies?: boolean;
}

export interface MonthStatements {
  readonly month: string;
  readonly status: 'no unified costs' | 'not confirmed' | 'confirmed' | 'working copies';
  readonly statements: readonly PublishedStatement[];
  /** Working copies only: each statement as built, in the order of `statements`. */
  readonly built?: readonly Statement[];
}

export interface StatementsSummary {
  readonly currency: string;
  readonly months: readonly MonthStatements[];
  readonly archived: number;
  readonly revised: number;
  readonly unchanged: number;
}

export async function runMonthlyStatements(
  deps: { readonly sink: Sink; readonly now: Date },
  request: StatementsRequest,
): Promise<StatementsSummary> {
  const months: MonthStatements[] = [];
  const asked = new Set(request.months);
  if (request.followRestated) for (const m of await restatedMonths(deps.sink)) asked.add(m);
  for (const month of [...asked].sort()) {
    months.push(
      request.workingCopies
        ? await workingCopies(deps, month, request.currency)
        : await monthStatements(deps, month, request.currency),
    );
  }
  const all = months.flatMap((m) => m.statements);
  const count = (o: PublishedStatement['outcome']) => all.filter((s) => s.outcome === o).length;
  return {
    currency: request.currency,
    months,
    archived: count('archived'),
    revised: count('revised'),
    unchanged: count('unchanged'),
  };
}

async function monthStatements(
  deps: { readonly sink: Sink; readonly now: Date },
  month: string,
  currency: string,
): Promise<MonthStatements> {
  const { sink } = deps;
  const prefix = partitionManifestPrefix(unifiedCostTable(), month);
  const manifests = await Promise.all(
    (await sink.list(prefix))
      .filter((k) => k.endsWith('.json'))
      .map(async (k) => parseManifest(await sink.read(k))),
  );
  if (manifests.length === 0) return { month, status: 'no unified costs', statements: [] };
  if (!manifests.every((m) => (m as { isConfirmed?: unknown } | undefined)?.isConfirmed === true)) {
    return { month, status: 'not confirmed', statements: [] };
  }
  const { published } = await writeMonth(deps, month, currency, true);
  return { month, status: 'confirmed', statements: published };
}

/** Working copies of a month with unified costs, confirmed or not; none when it has no rows. */
async function workingCopies(
  deps: { readonly sink: Sink; readonly now: Date },
  month: string,
  currency: string,
): Promise<MonthStatements> {
  const { built, published } = await writeMonth(deps, month, currency, false);
  if (built.length === 0) return { month, status: 'no unified costs', statements: [] };
  return { month, status: 'working copies', statements: published, built };
}

/** The month's statements read, built and published: the one flow both entries run. */
async function writeMonth(
  deps: { readonly sink: Sink; readonly now: Date },
  month: string,
  currency: string,
  archive: boolean,
): Promise<{ built: Statement[]; published: PublishedStatement[] }> {
  const { sink } = deps;
  const rows = await readUnifiedMonth(sink, month);
  if (rows.length === 0) return { built: [], published: [] };
  // Each workspace's statement reconciles to its DONE cost report of the month, when archived.
  const done = await doneReports(sink, month);
  const dataRows = done.size > 0 ? await reportRows(sink, month) : new Map();
  const built = buildStatements(rows, month, currency, await readProjectNames(sink)).map((s): Statement => {
    const report = done.get(s.name);
    if (!report) return s;
    const mine = rows.filter((r) => String(r.workspace_id ?? '') === s.name);
    return { ...s, reconciliation: reconcile(report, mine, dataRows.get(report.costReportId) ?? []) };
  });
  const published: PublishedStatement[] = [];
  for (const s of built) {
    const out = await publishStatement(sink, s, { archive, now: deps.now });
    published.push(s.reconciliation ? { ...out, reconciliation: s.reconciliation } : out);
  }
  return { built, published };
}

/**
 * Archived months whose unified-cost manifests were written after the month's newest statement
 * record, from two listings (no object read): a revision may be due.
 */
export async function restatedMonths(sink: Sink): Promise<string[]> {
  const [records, unified] = await Promise.all([
    sink.listObjects(`${MANIFESTS_DIR}/${STATEMENTS.name}/`),
    sink.listObjects(manifestPrefix(unifiedCostTable())),
  ]);
  const newest = new Map<string, number>();
  for (const [key, o] of records) {
    const month = /billed_month=(\d{4}-\d{2})\//.exec(key)?.[1];
    if (month) newest.set(month, Math.max(newest.get(month) ?? 0, o.modifiedMs ?? 0));
  }
  const due = new Set<string>();
  for (const [key, o] of unified) {
    const month = /billed_month=(\d{4}-\d{2})\//.exec(key)?.[1];
    const archived = month ? newest.get(month) : undefined;
    if (month && archived !== undefined && (o.modifiedMs ?? 0) > archived) due.add(month);
  }
  return [...due].sort();
}

/**
 * `{}`: the STATEMENT_MONTHS_BACK months before this one; or `{"month": "YYYY-MM"}`; `"currency"`
 * (USD). Working copies (the CLI) need a month, and may ask for the current one.
 */
export function parseStatementsEvent(
  event: unknown,
  now: Date,
  opts: { readonly workingCopies?: boolean } = {},
): StatementsRequest {
  const fields =
    eventFields(event, ['month', 'currency'], '{"month": "this-month-1", "currency": "USD"}') ?? {};
  const currency = fields.currency ?? 'USD';
  if (typeof currency !== 'string' || !(SUPPORTED_CURRENCIES as readonly string[]).includes(currency)) {
    throw new EventError(
      'EVENT_BAD_CURRENCY',
      `"currency" must be one of ${SUPPORTED_CURRENCIES.join(', ')} (got ${JSON.stringify(currency)})`,
    );
  }
  const thisMonth = utcDay(now).slice(0, 7);
  if (opts.workingCopies && fields.month === undefined) {
    throw new EventError('EVENT_BAD_MONTH', `"month" is required: give the month as ${MONTH_FORMS}`);
  }
  if (fields.month !== undefined) {
    const month = eventMonth(fields.month, now);
    if (month === undefined) {
      throw new EventError(
        'EVENT_BAD_MONTH',
        `"month" must be ${opts.workingCopies ? 'a month' : 'a past month'} as ${MONTH_FORMS}` +
          `${/^\d{4}-\d$/.test(String(fields.month)) ? ', two digits for the month' : ''} (got ${JSON.stringify(fields.month)})`,
      );
    }
    if (opts.workingCopies) return { months: [month], currency, workingCopies: true };
    if (month >= thisMonth) {
      throw new EventError(
        'EVENT_BAD_MONTH',
        `"month" must be a past month (got ${JSON.stringify(fields.month)}): ${month === thisMonth ? 'the current month is never confirmed' : `${month} has not ended`}`,
      );
    }
    return { months: [month], currency };
  }
  const months: string[] = [];
  for (let day = `${thisMonth}-01`; months.length < STATEMENT_MONTHS_BACK; ) {
    day = `${addDays(day, -1).slice(0, 7)}-01`;
    months.push(day.slice(0, 7));
  }
  return { months: months.reverse(), currency, followRestated: true };
}
