// Lambda entry (and the backfill state machine's Focus state): derive the focus table's FOCUS rows
// of every costs unit that lacks them or changed since, in the event's window (by default this
// month and the previous one) and, for missing ones, anywhere in the destination.
import { randomUUID } from 'node:crypto';
import { parseCostEvent } from './lib/costs/event.ts';
import { exportFocus } from './lib/focus/pass.ts';
import { connectCloudforet, exportRunDeps } from './lib/lambda/connect-cloudforet.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('focus-export', {
  connect: connectCloudforet,
  parse: (event, config, now) =>
    parseCostEvent(event, now, { maxDays: 400, windowMonths: config.windowMonths }),
  run: (entry, request) => {
    const deps = exportRunDeps(entry);
    return exportFocus({ ...deps, runId: deps.runId ?? randomUUID() }, request);
  },
  figures: (s) => ({
    rows: s.rows,
    exported: s.written + s.removed,
    unchanged: s.current,
    failed: s.failures.length,
  }),
  // The state machine's Summary counts its failures: this step itself never fails on them.
});
