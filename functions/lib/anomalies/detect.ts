// Cost anomalies, judged from what the export published: each (data source, scope, key) daily
// series against a trailing baseline that one outlier does not move. Pure: series in, verdicts out.
//
// The method (docs/anomalies.md):
// - A day is judged when it has at least MIN_HISTORY earlier days with figures, and is before the
//   day the data source's last sync started (a day a sync may still change is not judged).
// - expected: the median of the day's previous BASELINE_DAYS days with figures. The median is not
//   moved by one spike, so the day after a spike, back to normal, is not flagged.
// - spread: 1.4826 × the median absolute deviation of those days (a robust standard deviation).
// - An anomaly: actual ≥ SPIKE_RATIO × expected and (actual − expected) ≥ MIN_SCORE × spread, and,
//   for scopes finer than the data source, (actual − expected) ≥ MIN_SHARE of the data source's own
//   expected daily total, so that small projects do not page anyone. Daily swings of ±35 % score
//   far below that; a day at 3× its baseline far above.

export const ANOMALY_PARAMETERS = {
  minHistory: 14,
  baselineDays: 28,
  spikeRatio: 2,
  minScore: 5,
  minShare: 0.05,
} as const;

export type AnomalyScope = 'data_source' | 'project' | 'workspace' | 'service_account';

/** One day's cost of one key of a scope; `sourceExpected` is filled in by the detector. */
export interface SeriesPoint {
  readonly date: string;
  readonly cost: number;
}

export interface Series {
  readonly dataSourceId: string;
  readonly scope: AnomalyScope;
  readonly key: string;
  /** Ascending by date; a day absent from the series has no figures (not zero). */
  readonly points: readonly SeriesPoint[];
}

export interface Anomaly {
  readonly data_source_id: string;
  readonly billed_date: string;
  readonly scope: AnomalyScope;
  readonly key: string;
  readonly expected: number;
  readonly actual: number;
  /** (actual − expected) / spread; null when the baseline did not vary at all. */
  readonly score: number | null;
}

export interface JudgeOptions {
  /** Days from this one on are not judged (a sync may still change them). */
  readonly judgeBefore: ReadonlyMap<string, string>;
  readonly parameters?: Partial<typeof ANOMALY_PARAMETERS>;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The baseline of point `i`: median and robust spread of the BASELINE_DAYS points before it. */
function baseline(
  points: readonly SeriesPoint[],
  i: number,
  days: number,
): { expected: number; spread: number } {
  const window = points.slice(Math.max(0, i - days), i).map((p) => p.cost);
  const expected = median(window);
  return { expected, spread: 1.4826 * median(window.map((c) => Math.abs(c - expected))) };
}

export function detectAnomalies(series: readonly Series[], opts: JudgeOptions): Anomaly[] {
  const p = { ...ANOMALY_PARAMETERS, ...opts.parameters };
  // The data source's own expected total per day: what a finer scope's increase is measured against.
  const sourceExpected = new Map<string, number>();
  for (const s of series.filter((x) => x.scope === 'data_source')) {
    s.points.forEach((point, i) => {
      if (i >= p.minHistory)
        sourceExpected.set(`${s.dataSourceId}|${point.date}`, baseline(s.points, i, p.baselineDays).expected);
    });
  }
  const found: Anomaly[] = [];
  for (const s of series) {
    const before = opts.judgeBefore.get(s.dataSourceId);
    s.points.forEach((point, i) => {
      if (i < p.minHistory || (before !== undefined && point.date >= before)) return;
      const { expected, spread } = baseline(s.points, i, p.baselineDays);
      const increase = point.cost - expected;
      const score = spread > 0 ? increase / spread : increase > 0 ? Number.POSITIVE_INFINITY : 0;
      if (point.cost < p.spikeRatio * expected || score < p.minScore || increase <= 0) return;
      if (s.scope !== 'data_source') {
        const total = sourceExpected.get(`${s.dataSourceId}|${point.date}`);
        if (total === undefined || increase < p.minShare * total) return;
      }
      found.push({
        data_source_id: s.dataSourceId,
        billed_date: point.date,
        scope: s.scope,
        key: s.key,
        expected: round(expected),
        actual: round(point.cost),
        score: Number.isFinite(score) ? round(score) : null,
      });
    });
  }
  return found.sort((a, b) => a.billed_date.localeCompare(b.billed_date) || a.key.localeCompare(b.key));
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
