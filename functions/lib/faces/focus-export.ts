// The focus table's face, the focus function (functions/focus-export.ts, also the backfill state
// machine's Focus state): derive the FOCUS rows of every costs unit that lacks them or changed
// since, in the input's window (by default this month and the previous one) and, for missing
// ones, anywhere in the destination; then compact the confirmed months whose monthly objects are
// missing or stale (compaction/compact.ts). A compaction failure is one of the step's failures (its
// `date` the month), for the Summary. Its input: the cost export's, at most 400 days.
import { randomUUID } from 'node:crypto';
import { type CompactionSummary, compactConfirmedMonths } from '../compaction/compact.ts';
import type { CostRunRequest } from '../costs/run.ts';
import { parseCostEvent } from '../costs/event.ts';
import { type FocusPassSummary, exportFocus } from '../focus/pass.ts';
import { type CloudforetConnection, connectCloudforet } from '../lambda/connect-cloudforet.ts';
import type { Face } from './face.ts';

/** The longest window one focus run derives, whatever the entry. */
const FOCUS_MAX_DAYS = 400;

type FocusStepSummary = FocusPassSummary & { readonly compaction?: CompactionSummary };

export const focusExport: Face<CloudforetConnection, CostRunRequest, FocusStepSummary> = {
  label: 'focus',
  needs: 'cloudforet',
  connect: connectCloudforet,
  parse: (input, settings, now) =>
    parseCostEvent(input, now, { maxDays: FOCUS_MAX_DAYS, windowMonths: settings.windowMonths }),
  run: async ({ session, ...env }, request) => {
    const deps = { ...env, client: session.client, runId: env.runId ?? randomUUID() };
    const focus = await exportFocus(deps, request);
    if (focus.notStarted > 0) return focus;
    const compaction = await compactConfirmedMonths(deps);
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
  describe: (s) => [
    `focus: ${s.written} days derived, ${s.removed} removed, ${s.current} current, ${s.rows.toLocaleString('en-US')} rows`,
    ...s.failures.map((x) => `  FAILED focus ${x.dataSourceId} ${x.date}: ${x.message} [${x.code}]`),
  ],
  figures: (s) => ({
    rows: s.rows,
    exported: s.written + s.removed,
    unchanged: s.current,
    failed: s.failures.length,
  }),
  // The state machine's Summary counts its failures: this step itself never fails on them.
};
