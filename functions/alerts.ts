// Lambda entry, daily after the cost export: publish each new cost anomaly and each budget on pace
// to pass a threshold to the alerts SNS topic, once (the sent-alerts ledger at the destination).
// Reads the destination only: no Cloudforet session, no secret.
import { parseAlertsEvent, runAlerts } from './lib/alerts/run.ts';
import { connectAlerts } from './lib/lambda/connect-alerts.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('alerts', {
  connect: connectAlerts,
  parse: (event, _config, now) => parseAlertsEvent(event, now),
  run: ({ sink, publish, log, runId }, request) =>
    runAlerts({ sink, publish, log, runId, now: new Date() }, request),
  figures: (s) => ({ exported: s.sent, unchanged: s.alreadySent, failed: s.failed }),
  summary: (s) => [
    'alerts checked',
    { ...s, sentSubjects: s.sentSubjects.slice(0, 20), failures: s.failures.slice(0, 10) },
  ],
  failure: (s) =>
    s.failed > 0
      ? `${s.failed} of ${s.sent + s.failed} alerts could not be published (they stay unsent and go out at the next run): ${JSON.stringify(s.failures.slice(0, 5))}`
      : undefined,
});
