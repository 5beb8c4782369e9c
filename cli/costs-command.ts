// `cloudforet-export costs`: cost rows for a day or a range, as the cost function exports them.
import { parseCostEvent } from '../functions/lib/costs/event.ts';
import { refuseWhollyBeyondRetention } from '../functions/lib/costs/beyond-retention.ts';
import { type CostRunSummary, runCostExport } from '../functions/lib/costs/run.ts';
import { describeVerify } from '../functions/lib/storage/verify-destination.ts';
import type { CommandContext } from './command-context.ts';
import { announceDestination, progressReporter } from './progress.ts';

export async function runCosts(ctx: CommandContext): Promise<number> {
  const { values, io } = ctx;
  const now = new Date();
  const request = parseCostEvent(
    {
      date: values.date,
      from: values.from,
      to: values.to,
      dataSourceIds: values['data-source'],
      force: values.force,
    },
    now,
    { maxDays: Number.POSITIVE_INFINITY, windowMonths: 2 },
  );
  refuseWhollyBeyondRetention(request, now);
  const verify = values.verify === true;
  const sink = ctx.openSink();
  announceDestination(io.stderr, 'costs', sink.location);
  const session = await ctx.openSession();
  const progress = progressReporter(io.stderr, 'costs');
  const summary = await runCostExport(
    {
      client: session.client,
      sink,
      credential: session.credential,
      signal: ctx.signal,
      concurrency: ctx.concurrency,
      log: ctx.log,
      onProgress: progress.update,
    },
    { ...request, verify },
  );
  progress.done();
  if (values.json) io.stdout.write(`${JSON.stringify({ ...summary, scope: session.scope })}\n`);
  else io.stdout.write(describeCosts({ ...summary, scope: session.scope }));
  return summary.failed === 0 ? 0 : 1;
}

function describeCosts(s: CostRunSummary & { scope: string }): string {
  const lines = [
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
    ...(s.interrupted ? [`  INTERRUPTED: ${s.notStarted} units not started; rerun to finish`] : []),
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
  return `${lines.join('\n')}\n`;
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
    ...t.failures.map((x) => `  FAILED ${t.table} ${x.dataSourceId} ${x.month}: ${x.message} [${x.code}]`),
  ]);
}

function describeUnified(u: CostRunSummary['unifiedCosts']): string[] {
  const months = u.months.map((m) => `${m.month} ${m.rows} rows${m.isConfirmed ? ' (confirmed)' : ''}`);
  return [
    `  unified costs (${u.scope}): ${months.join(', ') || 'none'}`,
    ...u.restatedConfirmedMonths.map((r) => `  RESTATED confirmed month ${r.month}: ${r.reason}`),
    ...u.failures.map((f) => `  FAILED unified costs ${f.month}: ${f.message} [${f.code}]`),
  ];
}
