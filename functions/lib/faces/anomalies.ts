// The cost anomalies' face, `cloudforet-export anomalies`: anomalies per data source, project,
// workspace and service account, judged from what the cost export published (its manifests; no
// Cloudforet request). Its input: {} only. The alerts function judges the same way (faces/alerts.ts).
import { ANOMALY_PARAMETERS, type Anomaly, detectAnomalies } from '../anomalies/detect.ts';
import { readPublishedCosts } from '../anomalies/series.ts';
import { utcDay } from '../dates.ts';
import { ExportError } from '../errors.ts';
import { eventFields } from '../input/event-shape.ts';
import { connectSink } from '../lambda/connect-sink.ts';
import type { Sink } from '../storage/sink.ts';
import type { Face } from './face.ts';

export interface AnomaliesResult {
  readonly anomalies: readonly Anomaly[];
  readonly destination: string;
  readonly days: number;
  readonly series: number;
  readonly judgedBefore: Record<string, string>;
  readonly parameters: typeof ANOMALY_PARAMETERS;
}

export const anomalies: Face<{ readonly sink: Sink }, { readonly today: string }, AnomaliesResult> = {
  label: 'anomalies',
  needs: 'sink',
  connect: connectSink,
  parse: (input, _settings, now) => {
    eventFields(input, [], '{}');
    return { today: utcDay(now) };
  },
  run: async ({ sink }, { today }) => {
    const published = await readPublishedCosts(sink, today);
    if (published.days === 0) {
      throw new ExportError(
        'CLI_USAGE',
        `no cost day exported under ${sink.location}: run 'cloudforet-export costs' into it first`,
      );
    }
    return {
      anomalies: detectAnomalies(published.series, { judgeBefore: published.judgeBefore }),
      destination: sink.location,
      days: published.days,
      series: published.series.length,
      judgedBefore: Object.fromEntries(published.judgeBefore),
      parameters: ANOMALY_PARAMETERS,
    };
  },
  describe: (r) => [
    `anomalies in ${r.destination}: ${r.anomalies.length} (${r.days} days, ${r.series} series)`,
    ...r.anomalies.map(
      (a) =>
        `  ${a.billed_date} ${a.data_source_id} ${a.scope} ${a.key}: ${a.actual.toFixed(2)} against ${a.expected.toFixed(2)} expected`,
    ),
  ],
  figures: (r) => ({ exported: r.anomalies.length }),
};
