import type { ApiRecord, ListRequest } from '../../cloudforet/pager.ts';
import { manifestKey, objectKey, partitionManifestPrefix } from '../../destination/layout.ts';
import { parseManifest } from '../../destination/manifest.ts';
import { CloudforetApiError } from '../../errors.ts';
import { exportListing, type ListingResult } from '../../export/listing-export.ts';
import type { Sink } from '../../storage/sink.ts';
import {
  costReportDataTable,
  costReportStatusTable,
  costReportTable,
  type ReportContext,
  type ReportTableDef,
} from '../../tables/cost-reports.ts';
import { type AdjustmentsOutcome, snapshotAdjustments } from './adjustments.ts';
import { listAll, type ReportArchiveDeps } from './deps.ts';

export type { ReportArchiveDeps } from './deps.ts';

import {
  byFirstPass,
  type Fact,
  FINAL,
  newFacts,
  type Regeneration,
  regenerations,
} from '../../tables/cost-report-facts.ts';

export interface ReportArchiveSummary {
  /** Why nothing was archived (the app may not list reports), else undefined. */
  readonly skipped?: string;
  readonly listed: number;
  /** DONE or EXPIRED reports archived by this run (each once, ever). */
  readonly archived: readonly string[];
  readonly draftsWritten: number;
  /**
   * Reports whose data rows answered none: nothing was written for them (a report of Cloudforet has
   * at least one row, its workspace's costs; an empty answer proves nothing), and the next run asks
   * again. Each is a failure of the run (COST_REPORT_DATA_UNANSWERED), never a quiet success.
   */
  readonly dataUnanswered: readonly string[];
  readonly facts: number;
  /** Regenerations with another total this run observed (alerted). */
  readonly regenerated: readonly Regeneration[];
  /**
   * Regenerations already past when this run made the archive's first report pass over their month
   * (a first run over a domain with history): recorded as status facts, not alerted.
   */
  readonly regeneratedBeforeFirstPass: readonly Regeneration[];
  /** The adjustments snapshot: written, unchanged (same listing as the day's object), or why skipped. */
  readonly adjustments?: AdjustmentsOutcome;
}

// cost_report_serivce.py list: @set_query_page_limit(default_limit=100).
export const REPORT_LIST: ListRequest = {
  path: '/cost-analysis/cost-report/list',
  idKey: 'cost_report_id',
  pageLimit: 100,
};

export function reportDataRequest(costReportId: string): ListRequest {
  return {
    path: '/cost-analysis/cost-report-data/list',
    filter: [{ k: 'cost_report_id', v: costReportId, o: 'eq' }],
    idKey: 'cost_report_data_id',
  };
}

/** A report's file name: its id when final, else its draft slot (config, workspace, project, account). */
export function reportFileName(r: ApiRecord): string {
  if (FINAL.has(String(r.status))) return String(r.cost_report_id);
  const parts = [r.cost_report_config_id, r.workspace_id, r.project_id, r.service_account_id];
  return `draft-${parts.filter((p) => typeof p === 'string' && p !== '').join('-')}`;
}

export async function archiveCostReports(deps: ReportArchiveDeps): Promise<ReportArchiveSummary> {
  const now = deps.now?.() ?? new Date();
  let reports: ApiRecord[];
  try {
    reports = await listAll(deps, REPORT_LIST);
  } catch (error) {
    // cost_report_serivce.py list: DOMAIN_ADMIN and WORKSPACE_OWNER only.
    if (error instanceof CloudforetApiError && error.status === 403) {
      const skipped =
        'cost-report/list refused (403): the app is neither a domain admin nor a workspace owner';
      deps.log.warn('cost reports skipped', { reason: skipped });
      return {
        skipped,
        listed: 0,
        archived: [],
        draftsWritten: 0,
        dataUnanswered: [],
        facts: 0,
        regenerated: [],
        regeneratedBeforeFirstPass: [],
        adjustments: { skipped },
      };
    }
    throw error;
  }
  const context: ReportContext = { exportedAtMs: now.getTime() };
  const archived: string[] = [];
  let draftsWritten = 0;
  const dataUnanswered: string[] = [];
  for (const report of reports) {
    const month = String(report.report_month);
    const name = reportFileName(report);
    const final = FINAL.has(String(report.status));
    const reportManifest = manifestKey(costReportTable, month, name);
    const previous = parseManifest(await deps.sink.read(reportManifest)) as
      | (ReturnType<typeof parseManifest> & { costReportId?: string; updatedAt?: string })
      | undefined;
    // Archived once: a final report's file is never written again. A draft is written again only
    // when Cloudforet made another one or updated it.
    if (final && previous) continue;
    if (
      !final &&
      previous?.costReportId === report.cost_report_id &&
      previous?.updatedAt === report.updated_at
    )
      continue;
    const common = { month, name, context, report };
    // Its data rows first: a report's file is there only once its rows are. A final report's rows
    // archived by a run stopped before the report's own file are not written again.
    const dataArchived =
      final && (await deps.sink.read(manifestKey(costReportDataTable, month, name))) !== undefined;
    if (!dataArchived) {
      const data = await writeUnit(deps, {
        ...common,
        table: costReportDataTable,
        list: reportDataRequest(String(report.cost_report_id)),
        // No rows is no answer (a gateway's {}): whatever is published stays, no manifest is written,
        // and the report's own file waits for its rows (the next run asks again).
        whenEmpty: async () => 'keep',
      });
      if (data.outcome === 'kept') {
        deps.log.error('cost report data answered no rows: report not archived this run', {
          code: 'COST_REPORT_DATA_UNANSWERED',
          costReportId: String(report.cost_report_id),
          status: String(report.status),
        });
        dataUnanswered.push(String(report.cost_report_id));
        continue;
      }
    }
    await writeUnit(deps, { ...common, table: costReportTable, list: REPORT_LIST, rows: [report] });
    if (final) archived.push(String(report.cost_report_id));
    else draftsWritten++;
  }
  const { facts, regenerated, regeneratedBeforeFirstPass } = await recordStatuses(deps, reports, now);
  for (const r of regenerated) deps.log.warn('cost report regenerated with another total', { ...r });
  if (regeneratedBeforeFirstPass.length > 0)
    deps.log.info('cost reports regenerated before the first archive pass over their month (not alerted)', {
      count: regeneratedBeforeFirstPass.length,
      months: [...new Set(regeneratedBeforeFirstPass.map((r) => r.reportMonth))],
    });
  const adjustments = await snapshotAdjustments(deps, now);
  return {
    listed: reports.length,
    archived,
    draftsWritten,
    dataUnanswered,
    facts,
    regenerated,
    regeneratedBeforeFirstPass,
    adjustments,
  };
}

async function writeUnit(
  deps: ReportArchiveDeps,
  u: {
    month: string;
    name: string;
    context: ReportContext;
    report: ApiRecord;
    table: ReportTableDef;
    list: ListRequest;
    rows?: ApiRecord[];
    whenEmpty?: () => Promise<'keep'>;
  },
): Promise<ListingResult> {
  const rows = u.rows;
  return exportListing(deps, {
    ...(u.whenEmpty && { whenEmpty: u.whenEmpty }),
    list: u.list,
    ...(rows && {
      pages: async function* () {
        yield rows;
      },
    }),
    table: u.table,
    context: u.context,
    key: objectKey(u.table, u.month, u.name),
    manifestKey: manifestKey(u.table, u.month, u.name),
    kvMetadata: {
      report_month: u.month,
      cost_report_id: String(u.report.cost_report_id),
      run_id: deps.runId,
    },
    manifest: (published) => ({
      table: u.table.name,
      partition: u.month,
      ...published,
      totalCount: published.rows,
      costReportId: u.report.cost_report_id,
      status: u.report.status,
      updatedAt: u.report.updated_at,
      schemaVersion: u.table.schemaVersion,
      runId: deps.runId,
      exportedAt: new Date(u.context.exportedAtMs).toISOString(),
    }),
  });
}

/** The status facts recorded for a month: every status manifest's `facts`. */
export async function knownFacts(sink: Sink, month: string): Promise<Fact[]> {
  const keys = await sink.list(partitionManifestPrefix(costReportStatusTable, month));
  const out: Fact[] = [];
  for (const key of keys.filter((k) => k.endsWith('.json'))) {
    const manifest = JSON.parse((await sink.read(key)) ?? '{}') as { facts?: Fact[] };
    out.push(...(manifest.facts ?? []));
  }
  return out;
}

async function recordStatuses(
  deps: ReportArchiveDeps,
  reports: readonly ApiRecord[],
  now: Date,
): Promise<{ facts: number; regenerated: Regeneration[]; regeneratedBeforeFirstPass: Regeneration[] }> {
  const months = [...new Set(reports.map((r) => String(r.report_month)))].sort();
  const at = { observedAt: now.toISOString(), runId: deps.runId };
  let count = 0;
  const regenerated: Regeneration[] = [];
  const regeneratedBeforeFirstPass: Regeneration[] = [];
  for (const month of months) {
    const known = await knownFacts(deps.sink, month);
    const added = newFacts(
      known,
      reports.filter((r) => r.report_month === month),
      at,
    );
    if (added.length === 0) continue;
    const name = `${at.observedAt.replace(/[^0-9]/g, '').slice(0, 14)}-${deps.runId.slice(0, 8)}`;
    const context: ReportContext = { exportedAtMs: now.getTime() };
    await exportListing(deps, {
      list: REPORT_LIST,
      pages: async function* () {
        yield added as unknown as ApiRecord[];
      },
      table: costReportStatusTable,
      context,
      key: objectKey(costReportStatusTable, month, name),
      manifestKey: manifestKey(costReportStatusTable, month, name),
      kvMetadata: { report_month: month, run_id: deps.runId },
      manifest: (published) => ({
        table: costReportStatusTable.name,
        partition: month,
        ...published,
        totalCount: published.rows,
        facts: added,
        schemaVersion: costReportStatusTable.schemaVersion,
        runId: deps.runId,
        exportedAt: at.observedAt,
      }),
    });
    count += added.length;
    const { observed, past } = byFirstPass(regenerations(known, added), [...known, ...added]);
    regenerated.push(...observed);
    regeneratedBeforeFirstPass.push(...past);
  }
  return { facts: count, regenerated, regeneratedBeforeFirstPass };
}
