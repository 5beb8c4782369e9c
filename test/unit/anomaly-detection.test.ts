// Anomaly detection, pure: series in, verdicts out (functions/lib/anomalies/detect.ts). What the
// CLI and the alerts function make of the verdicts is in test/system/alerts/anomalies.test.ts and test/system/alerts/alerts.test.ts.
import { describe, expect, it } from 'vitest';
import { detectAnomalies, type Series } from '../../functions/lib/anomalies/detect.ts';
import { daysBetween } from '../../functions/lib/dates.ts';

describe('detectAnomalies', () => {
  const days = daysBetween('2026-01-01', '2026-02-14');
  const series = (
    costs: (i: number) => number,
    scope: Series['scope'] = 'data_source',
    key = 'ds-1',
  ): Series => ({
    dataSourceId: 'ds-1',
    scope,
    key,
    points: days.map((date, i) => ({ date, cost: costs(i) })),
  });
  const judgeAll = { judgeBefore: new Map<string, string>() };
  // ±35 % around 100, deterministic.
  const swinging = (i: number) => 100 * (1 + 0.35 * Math.sin(i * 2.3));

  it('takes daily swings of ±35 % as normal', () => {
    expect(detectAnomalies([series(swinging)], judgeAll)).toEqual([]);
  });

  it('flags a day at 3x its baseline, judges no day before 14 earlier days, and none a sync may still change', () => {
    const spiked = series((i) => (i === 30 || i === 5 || i === 40 ? 300 : swinging(i)));

    const found = detectAnomalies([spiked], { judgeBefore: new Map([['ds-1', days[40]!]]) });

    expect(found.map((a) => a.billed_date)).toEqual([days[30]]);
    expect(found[0]).toMatchObject({ actual: 300, scope: 'data_source' });
  });

  it('flags a project only when its increase is 5 % of its data source, so small projects page nobody', () => {
    const source = series((i) => 10_000 + swinging(i));
    const small = series((i) => (i === 30 ? 400 : 100), 'project', 'project-small');
    const large = series((i) => (i === 30 ? 4_000 : 1_000), 'project', 'project-large');

    const found = detectAnomalies([source, small, large], judgeAll);

    expect(found.map((a) => [a.scope, a.key])).toEqual([['project', 'project-large']]);
  });
});

describe('detectAnomalies, figure by figure', () => {
  const days = daysBetween('2026-03-01', '2026-03-15');
  const judgeAll = { judgeBefore: new Map<string, string>() };
  /** 14 days of `history`, then `last` on the 15th. */
  const series = (history: (i: number) => number, last: number): Series => ({
    dataSourceId: 'ds-1',
    scope: 'data_source',
    key: 'ds-1',
    points: days.map((date, i) => ({ date, cost: i < 14 ? history(i) : last })),
  });
  const alternating = (i: number) => (i % 2 === 0 ? 90 : 110);

  it('gives the median as expected and the increase over the robust spread as the score', () => {
    expect(detectAnomalies([series(alternating, 250)], judgeAll)).toEqual([
      {
        data_source_id: 'ds-1',
        billed_date: '2026-03-15',
        scope: 'data_source',
        key: 'ds-1',
        expected: 100,
        actual: 250,
        score: 10.117361,
      },
    ]);
  });

  it('gives no score when the baseline never varied, and still flags 3x', () => {
    expect(detectAnomalies([series(() => 100, 300)], judgeAll)).toMatchObject([
      { expected: 100, actual: 300, score: null },
    ]);
  });

  it('flags nothing below twice the baseline, however high the score', () => {
    expect(detectAnomalies([series(alternating, 190)], judgeAll)).toEqual([]);
  });

  it('flags nothing that falls', () => {
    expect(detectAnomalies([series(() => 100, 0)], judgeAll)).toEqual([]);
  });
});
