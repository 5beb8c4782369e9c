// The focus table's face, the focus function (functions/focus-export.ts): the cost job's FOCUS and
// compaction steps alone (costs/job/steps.ts), on the input's window (by default this month and
// the previous one): derive the FOCUS rows of every costs unit that lacks them or changed since
// (and, for missing ones, anywhere in the destination), re-export a costs day whose object is not
// what its manifest says, then compact the confirmed months whose monthly objects are missing or
// stale. Its input: the cost export's, at most 400 days.
import { randomUUID } from 'node:crypto';
import type { CompactionSummary } from '../compaction/compact.ts';
import { parseCostEvent } from '../costs/event.ts';
import { jobOptions, newJob } from '../costs/job/job.ts';
import { runSteps } from '../costs/job/steps.ts';
import type { CostRunRequest } from '../costs/run.ts';
import type { FocusPassSummary } from '../focus/pass.ts';
import { type CloudforetConnection, connectCloudforet } from '../lambda/connect-cloudforet.ts';
import { silentLogger } from '../log.ts';
import type { Face } from './face.ts';

/** The longest window one focus run derives, whatever the entry. */
const FOCUS_MAX_DAYS = 400;

type FocusStepSummary = FocusPassSummary & {
  readonly compaction?: CompactionSummary;
  /** Steps left for the next run (a deadline, a stop), with why. */
  readonly left: ReadonlyArray<{ readonly step: string; readonly why: string }>;
};

export const focusExport: Face<CloudforetConnection, CostRunRequest, FocusStepSummary> = {
  label: 'focus',
  needs: 'cloudforet',
  connect: connectCloudforet,
  parse: (input, settings, now) =>
    parseCostEvent(input, now, { maxDays: FOCUS_MAX_DAYS, windowMonths: settings.windowMonths }),
  run: async ({ session, ...env }, request) => {
    const runId = env.runId ?? randomUUID();
    const log = (env.log ?? silentLogger).child({ runId });
    const job = newJob(runId, request, jobOptions(request), env.sink.location, Date.now());
    const deps = { ...env, runId, log, client: session.client, credential: session.credential };
    await runSteps(deps, job, ['prepare', 'focus', 'compaction']);
    const focus = job.focus ?? {
      written: 0,
      removed: 0,
      current: 0,
      repaired: 0,
      rows: 0,
      failures: [],
      notStarted: 0,
    };
    const compactionFailures = (job.compaction?.tables ?? []).flatMap((t) =>
      t.failures.map((f) => ({
        dataSourceId: f.dataSourceId,
        date: f.month,
        code: f.code,
        message: f.message,
      })),
    );
    const unitFailures = job.failures.map(({ dataSourceId, date, code, message }) => ({
      dataSourceId,
      date,
      code,
      message,
    }));
    return {
      ...focus,
      failures: [...focus.failures, ...unitFailures, ...compactionFailures],
      ...(job.compaction && { compaction: job.compaction }),
      left: job.skipped.filter((s) => s.left).map(({ step, why }) => ({ step, why })),
    };
  },
  describe: (s) => [
    `focus: ${s.written} days derived, ${s.removed} removed, ${s.current} current, ${s.rows.toLocaleString('en-US')} rows`,
    ...s.failures.map((x) => `  FAILED focus ${x.dataSourceId} ${x.date}: ${x.message} [${x.code}]`),
    ...s.left.map((x) => `  LEFT for the next run: ${x.step} (${x.why})`),
  ],
  figures: (s) => ({
    rows: s.rows,
    exported: s.written + s.removed,
    unchanged: s.current,
    failed: s.failures.length,
  }),
  failure: (s) =>
    s.failures.length > 0
      ? `${s.failures.length} focus or compaction units failed: ${JSON.stringify(s.failures.slice(0, 5))}`
      : undefined,
};
