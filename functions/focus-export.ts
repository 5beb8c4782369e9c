// Lambda entry (and the backfill state machine's Focus state): derive the focus table's FOCUS rows
// of every costs unit that lacks them or changed since, in the event's window (by default this
// month and the previous one) and, for missing ones, anywhere in the destination; then compact
// the confirmed months whose monthly objects are missing or stale (compaction/compact.ts). A
// compaction failure is one of the step's failures (its `date` the month), for the Summary.
import { randomUUID } from 'node:crypto';
import { compactConfirmedMonths } from './lib/compaction/compact.ts';
import { parseCostEvent } from './lib/costs/event.ts';
import { exportFocus } from './lib/focus/pass.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('focus-export', {
  connect: connectCloudforet,
  parse: (event, config, now) =>
    parseCostEvent(event, now, { maxDays: 400, windowMonths: config.windowMonths }),
  run: async (entry, request) => {
    const deps = exportRunDeps(entry);
    const runId = deps.runId ?? randomUUID();
    const focus = await exportFocus({ ...deps, runId }, request);
    if (focus.notStarted > 0) return focus;
    const compaction = await compactConfirmedMonths({ ...deps, runId });
    const failures = compaction.tables.flatMap((t) =>
      t.failures.map((f) => ({
        dataSourceId: f.dataSourceId,
        date: f.month,
        code: f.code,
        message: f.message,
      })),
    );
    return { ...focus, failures: [...focus.failures, ...failures], compaction };
  },
  figures: (s) => ({
    rows: s.rows,
    exported: s.written + s.removed,
    unchanged: s.current,
    failed: s.failures.length,
  }),
  // The state machine's Summary counts its failures: this step itself never fails on them.
});
