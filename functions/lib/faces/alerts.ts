// The alerts' face, the alerts function (functions/alerts.ts): each new cost anomaly and each
// budget on pace to pass a threshold, published to the alerts SNS topic once (the sent-alerts
// ledger at the destination). Reads the destination only. Its input: {"from": "YYYY-MM-DD"}, optional.
import { type AlertsRequest, type AlertsSummary, parseAlertsEvent, runAlerts } from '../alerts/run.ts';
import type { Publish } from '../alerts/sent-ledger.ts';
import { connectAlerts } from '../lambda/connect-alerts.ts';
import type { Sink } from '../storage/sink.ts';
import type { Face } from './face.ts';

export const alerts: Face<{ readonly sink: Sink; readonly publish: Publish }, AlertsRequest, AlertsSummary> =
  {
    label: 'alerts',
    needs: 'sink',
    connect: connectAlerts,
    parse: (input, _settings, now) => parseAlertsEvent(input, now),
    run: ({ sink, publish, log, runId }, request) =>
      runAlerts({ sink, publish, log, runId, now: new Date() }, request),
    describe: (s) => [
      `alerts from ${s.from}: ${s.sent} sent, ${s.alreadySent} already sent, ${s.failed} failed`,
      ...s.sentSubjects.map((subject) => `  sent: ${subject}`),
      ...s.failures.map((f) => `  FAILED ${f.alert}: ${f.error}`),
    ],
    figures: (s) => ({ exported: s.sent, unchanged: s.alreadySent, failed: s.failed }),
    summary: (s) => [
      'alerts checked',
      { ...s, sentSubjects: s.sentSubjects.slice(0, 20), failures: s.failures.slice(0, 10) },
    ],
    failure: (s) =>
      s.failed > 0
        ? `${s.failed} of ${s.sent + s.failed} alerts could not be published (they stay unsent and go out at the next run): ${JSON.stringify(s.failures.slice(0, 5))}`
        : undefined,
  };
