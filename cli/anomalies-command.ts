// `cloudforet-export anomalies --out DIR`: cost anomalies per data source, project, workspace and
// service account, judged from what `costs` exported under DIR (its manifests; no Cloudforet
// request). Exits 0 whether or not it finds any; prints one JSON object with --json.
import { ANOMALY_PARAMETERS, detectAnomalies } from '../functions/lib/anomalies/detect.ts';
import { readPublishedCosts } from '../functions/lib/anomalies/series.ts';
import { utcDay } from '../functions/lib/dates.ts';
import type { CommandContext } from './command-context.ts';
import { usageError } from './connection.ts';

export async function runAnomalies(ctx: CommandContext): Promise<number> {
  const { values, io } = ctx;
  const sink = ctx.openSink();
  const published = await readPublishedCosts(sink, utcDay(new Date()));
  if (published.days === 0) {
    throw usageError(
      `no cost day exported under ${sink.location}: run 'cloudforet-export costs' into it first`,
    );
  }
  const anomalies = detectAnomalies(published.series, { judgeBefore: published.judgeBefore });
  const result = {
    anomalies,
    destination: sink.location,
    days: published.days,
    series: published.series.length,
    judgedBefore: Object.fromEntries(published.judgeBefore),
    parameters: ANOMALY_PARAMETERS,
  };
  if (values.json) {
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const lines = [
    `anomalies in ${sink.location}: ${anomalies.length} (${published.days} days, ${published.series.length} series)`,
    ...anomalies.map(
      (a) =>
        `  ${a.billed_date} ${a.data_source_id} ${a.scope} ${a.key}: ${a.actual.toFixed(2)} against ${a.expected.toFixed(2)} expected`,
    ),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
