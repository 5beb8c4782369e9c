// The reading stage's verdict on issue 40's targets (tools/bench/reading.ts windowVerdict): which
// saved queries ask about a window ending now, and that a query's growth with the history kept is
// told as it is, met or not.
import { describe, expect, it } from 'vitest';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { QUESTION_WINDOW, type ReadingFigures, windowVerdict } from '../../../tools/bench/reading.ts';

const read = (query: string, objects: number) => ({
  query,
  objects,
  bytes: 0,
  minObjects: 0,
  minBytes: 0,
  ms: 0,
});
const figures = (oneYear: Array<[string, number]>, threeYears: Array<[string, number]>) =>
  ({
    queries: oneYear.map(([q, o]) => read(q, o)),
    longer: { years: 3, queries: threeYears.map(([q, o]) => read(q, o)) },
  }) as unknown as ReadingFigures;

describe("the reading stage's verdict on issue 40's targets", () => {
  it('names only saved queries as windowed, and leaves views and audits to all history', () => {
    const names = loadNamedQueries().map((q) => q.name);

    expect(Object.keys(QUESTION_WINDOW).filter((q) => !names.includes(q))).toEqual([]);
    expect(Object.keys(QUESTION_WINDOW).some((q) => q.startsWith('create_'))).toBe(false);
    expect(QUESTION_WINDOW.reconcile_cost_days).toBeUndefined();
    expect(QUESTION_WINDOW.spend_usd_by_month_last_12_months).toBe('a year');
  });

  it('says met when windowed questions read the same objects and every bound holds', () => {
    const lines = windowVerdict(
      figures(
        [
          ['daily_cost_by_provider', 150],
          ['spend_usd_by_month_last_12_months', 216],
          ['create_costs_combined_view', 187],
        ],
        [
          ['daily_cost_by_provider', 150],
          ['spend_usd_by_month_last_12_months', 216],
          ['create_costs_combined_view', 297],
        ],
      ),
    );

    expect(lines[0]).toContain('553 objects, 2 % of round 2');
    expect(lines[0]).toMatch(/a quarter: met.*216 \(at most 600: met\)/);
    expect(lines[1]).toMatch(
      /^targets: 2 questions about a window ending now \(30 days, a year\) read the same objects at 3 years as at 1: met$/,
    );
    expect(lines[2]).toBe(
      'all history (1 views and audits): ×1.6 to ×1.6 the objects for ×3 the months held',
    );
  });

  it('names the query that grew, and a query over the bound', () => {
    const lines = windowVerdict(
      figures(
        [
          ['month_to_date_spend_usd_by_provider_project', 144],
          ['reconcile_cost_days', 1810],
        ],
        [
          ['month_to_date_spend_usd_by_provider_project', 168],
          ['reconcile_cost_days', 5420],
        ],
      ),
    );

    expect(lines[0]).toContain('reconcile_cost_days, 1,810 (at most 600: NOT MET)');
    expect(lines[1]).toContain('NOT MET (month_to_date_spend_usd_by_provider_project 144 → 168)');
  });
});
