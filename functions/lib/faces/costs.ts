// The cost export's face: the cost function (functions/cost-export.ts) and `cloudforet-export
// costs` run it. Its input: {} (this month and the previous one), {"date"} or {"from","to"}, with
// "dataSourceIds" and "force"; a range wholly past Cloudforet's retention is refused before any request.

import type { FocusCatalog } from '../compaction/focus-catalog.ts';
import { refuseWhollyBeyondRetention } from '../costs/beyond-retention.ts';
import { parseCostEvent } from '../costs/event.ts';
import { type CostRunRequest, type CostRunSummary, runCostExport } from '../costs/run.ts';
import { describeVerify } from '../destination/verify-destination.ts';
import { type CloudforetConnection, connectCloudforet } from '../lambda/connect-cloudforet.ts';
import { connectFocusCatalog } from '../lambda/connect-glue.ts';
import type { Face } from './face.ts';

export type { CostRunSummary };

/** The cost run's adapters: the Lambda's add the focus table's Glue partitions when it is given a database. */
export type CostsConnection = CloudforetConnection & { readonly focusCatalog?: FocusCatalog | undefined };

export const costs: Face<CostsConnection, CostRunRequest, CostRunSummary> = {
  label: 'costs',
  needs: 'cloudforet',
  reportsProgress: true,
  connect: async (entry) => {
    const focusCatalog = connectFocusCatalog(entry.config);
    return { ...(await connectCloudforet(entry)), ...(focusCatalog && { focusCatalog }) };
  },
  parse: (input, settings, now) => {
    const request = parseCostEvent(input, now, settings);
    refuseWhollyBeyondRetention(request, now);
    return settings.staleJobAfterMs === undefined
      ? request
      : { ...request, staleJobAfterMs: settings.staleJobAfterMs };
  },
  // The scheduled run (the default window) also archives Cloudforet's cost reports (job/job.ts jobOptions).
  run: ({ session, ...env }, request) =>
    runCostExport({ ...env, client: session.client, credential: session.credential }, request),
  describe: (s, { session }) => describeCosts({ ...s, scope: session.scope }),
  json: (s, { session }) => ({ ...s, scope: session.scope }),
  figures: (s) => ({
    rows: s.rows,
    bytes: s.bytes,
    exported: s.written + s.removed + s.empty,
    unchanged: s.unchanged,
    failed: s.failed,
    apiRetries: s.requestRetries,
  }),
  failure: (s) =>
    s.failed > 0
      ? `${s.failures.length} of ${s.units} cost units failed: ${JSON.stringify(s.failures.slice(0, 5))}` +
        (s.focus?.failures.length ? `; ${s.focus.failures.length} focus units failed` : '') +
        (s.costReports && 'error' in s.costReports ? `; cost reports failed: ${s.costReports.error}` : '') +
        (s.costReports && !('error' in s.costReports) && s.costReports.dataUnanswered.length > 0
          ? `; ${unansweredReports(s.costReports.dataUnanswered)}`
          : '')
      : undefined,
};

function describeCosts(s: CostRunSummary & { scope: string }): string[] {
  return [
    `costs ${s.from}..${s.to} (${s.scope}) -> ${s.destination}`,
    `  ${s.dataSources} data sources: ${s.units} units (data source × day) planned: ${s.written} written, ${s.empty} empty, ` +
      (s.removed > 0 ? `${s.removed} removed (their day lost every row), ` : '') +
      `${s.kept} kept, ${s.failed} failed${s.notStarted > 0 ? `, ${s.notStarted} not started` : ''}; ` +
      `${s.unchanged} unchanged${s.repaired > 0 ? `, ${s.repaired} repaired (object missing or damaged)` : ''}`,
    ...(s.retainedFrom
      ? [
          `  ${s.beyondRetention} units (data source × day) before ${s.retainedFrom} are beyond Cloudforet's 12-month retention: ` +
            'not exported; objects already archived for them are kept as they are',
        ]
      : []),
    ...(s.costReports ? [describeReports(s.costReports)] : []),
    ...(s.interrupted ? [`  INTERRUPTED: ${s.notStarted} units not started; rerun to finish`] : []),
    ...describeLeft(s.stepsLeft),
    ...(s.notSynced.length > 0
      ? [
          `  ${s.notSynced.length} days not synced yet by Cloudforet (sync job ${[...new Set(s.notSynced.map((d) => d.jobId))].join(', ')} ` +
            'failed or hangs): what is published for them is kept',
        ]
      : []),
    ...(s.skippedSyncInProgress.length > 0
      ? [`  skipped, sync in progress: ${s.skippedSyncInProgress.join(', ')}`]
      : []),
    `  ${s.rows.toLocaleString('en-US')} rows, ${s.bytes.toLocaleString('en-US')} bytes in ${(s.durationMs / 1000).toFixed(1)} s`,
    ...s.failures.map((f) => `  FAILED ${f.dataSourceId} ${f.date}: ${f.message} [${f.code}]`),
    ...describeUnified(s.unifiedCosts),
    ...describeFocus(s.focus),
    ...describeCompaction(s.compaction),
    ...(s.verify ? describeVerify(s.verify) : []),
  ];
}

function describeFocus(f: CostRunSummary['focus']): string[] {
  if (!f) return [];
  return [
    `  focus (FOCUS 1.3): ${f.written} days derived, ${f.removed} removed, ${f.current} current` +
      `${f.repaired > 0 ? `, ${f.repaired} repaired (object damaged or missing)` : ''}, ${f.rows.toLocaleString('en-US')} rows`,
    ...f.failures.map((x) => `  FAILED focus ${x.dataSourceId} ${x.date}: ${x.message} [${x.code}]`),
  ];
}

function describeCompaction(c: CostRunSummary['compaction']): string[] {
  if (!c) return [];
  return c.tables.flatMap((t) => [
    `  ${t.table}: confirmed months read compacted through ${t.throughMonth ?? 'none'}; ` +
      `${t.written} data source-months compacted, ${t.removed} removed, ${t.current} current`,
    ...(t.stateCorrected ? [`  WARNING ${t.table}: compaction_state ${t.stateCorrected}`] : []),
    ...t.failures.map((x) => `  FAILED ${t.table} ${x.dataSourceId} ${x.month}: ${x.message} [${x.code}]`),
  ]);
}

/** The steps left for the next run, a line for each reason. */
function describeLeft(left: CostRunSummary['stepsLeft']): string[] {
  const byWhy = new Map<string, string[]>();
  for (const l of left) byWhy.set(l.why, [...(byWhy.get(l.why) ?? []), l.step]);
  return [...byWhy].map(([why, steps]) => `  LEFT for the next run: ${steps.join(', ')}: ${why}`);
}

function describeUnified(u: CostRunSummary['unifiedCosts']): string[] {
  // No scope: the step did not run (stopped, or left for the next run: stepsLeft says which).
  if (u.scope === '') return [];
  const months = u.months.map((m) => `${m.month} ${m.rows} rows${m.isConfirmed ? ' (confirmed)' : ''}`);
  return [
    `  unified costs (${u.scope}): ${months.join(', ') || 'none'}`,
    ...u.restatedConfirmedMonths.map((r) => `  RESTATED confirmed month ${r.month}: ${r.reason}`),
    ...u.failures.map((f) => `  FAILED unified costs ${f.month}: ${f.message} [${f.code}]`),
  ];
}

function describeReports(r: NonNullable<CostRunSummary['costReports']>): string {
  if ('error' in r) return `  cost reports FAILED (${r.code}): ${r.error}`;
  if (r.skipped) return `  cost reports skipped: ${r.skipped}`;
  return (
    `  cost reports: ${r.listed} listed, ${r.archived.length} archived, ${r.draftsWritten} drafts written, ` +
    `${r.facts} status facts, ${r.regenerated.length} regenerated with another total` +
    (r.regeneratedBeforeFirstPass.length > 0
      ? ` (${r.regeneratedBeforeFirstPass.length} more already past at the first pass, not alerted)`
      : '') +
    (r.dataUnanswered.length > 0 ? `\n  FAILED ${unansweredReports(r.dataUnanswered)}` : '')
  );
}

/** The reports a run could not archive because their data rows never came, named. */
function unansweredReports(ids: readonly string[]): string {
  return (
    `${ids.length} cost reports not archived, their data (cost-report-data/list) answered no rows: ` +
    `${ids.join(', ')} [COST_REPORT_DATA_UNANSWERED]; published files kept, asked again next run`
  );
}
