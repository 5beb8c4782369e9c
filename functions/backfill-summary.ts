// Step Functions, last state: summarise a backfill from the manifests its units wrote.
// Fails (so the execution fails and alarms) when any unit did not export. Needs S3 only: it
// builds no Cloudforet session, so its bundle carries neither undici nor Secrets Manager.
import type { BackfillPlan } from './lib/costs/backfill/backfill.ts';
import { summarizeBackfill } from './lib/costs/backfill/summary.ts';
import { EventError } from './lib/errors.ts';
import { connectSink } from './lib/lambda/connect-sink.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('backfill-summary', {
  connect: connectSink,
  parse: parsePlanEvent,
  run: ({ sink }, plan) => summarizeBackfill(sink, plan),
  figures: (s) => ({ exported: s.exported, failed: s.failed }),
  summary: (s) => ['backfill finished', { ...s, failures: s.failures.slice(0, 20) }],
  failure: (s) => {
    if (s.failed === 0) return undefined;
    const focus = s.focus?.error
      ? `; the Focus step failed: ${s.focus.error}`
      : s.focus?.failures.length
        ? `; ${s.focus.failures.length} focus units failed: ${JSON.stringify(s.focus.failures.slice(0, 5))}`
        : '';
    return `${s.failures.length} of ${s.units} backfill units did not export: ${JSON.stringify(s.failures.slice(0, 10))}${focus}`;
  },
});

function parsePlanEvent(event: unknown): BackfillPlan {
  const plan = (event as { plan?: unknown } | null | undefined)?.plan;
  if (plan === null || typeof plan !== 'object' || typeof (plan as BackfillPlan).unitsKey !== 'string') {
    throw new EventError(
      'EVENT_BAD_PLAN',
      'the backfill summary takes {"plan": <the plan step\'s output>}, as the state machine passes it',
    );
  }
  return plan as BackfillPlan;
}
