// Which months a run covers, and when a confirmed month counts as restated.
import { describe, expect, it } from 'vitest';
import type { UnifiedMonthResult } from '../../functions/lib/costs/unified/export-month.ts';
import {
  changedDaysByMonth,
  monthsBetween,
  restatement,
} from '../../functions/lib/costs/unified/export-months.ts';

const month = (over: Partial<UnifiedMonthResult>): UnifiedMonthResult => ({
  month: '2026-09',
  outcome: 'written',
  rows: 10,
  bytes: 100,
  isConfirmed: true,
  totals: { USD: 100, KRW: 140_000 },
  ...over,
});

describe('monthsBetween', () => {
  it('lists every month of an inclusive day range, across a year end', () => {
    expect(monthsBetween('2025-11-30', '2026-02-01')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(monthsBetween('2026-03-05', '2026-03-09')).toEqual(['2026-03']);
  });
});

describe('restatement', () => {
  it('is none for an unconfirmed month, whatever changed', () => {
    expect(restatement(month({ isConfirmed: false }), 3)).toBeUndefined();
  });

  it('names changed cost days of a confirmed month', () => {
    expect(restatement(month({}), 2)).toBe('2 cost day(s) changed after Cloudforet confirmed the month');
  });

  it('names the currencies whose totals moved since the confirmed export', () => {
    const previous = { isConfirmed: true, totals: { USD: 100, KRW: 139_000 } };

    expect(restatement(month({ previous }), 0)).toBe(
      'unified totals of the confirmed month changed: KRW 139000.00 -> 140000.00',
    );
  });

  it('is none when the confirmed totals are the same, or the month was confirmed only now', () => {
    const same = { isConfirmed: true, totals: { USD: 100, KRW: 140_000 } };
    const unconfirmedBefore = { isConfirmed: false, totals: { USD: 90, KRW: 120_000 } };

    expect(restatement(month({ previous: same }), 0)).toBeUndefined();
    expect(restatement(month({ previous: unconfirmedBefore }), 0)).toBeUndefined();
  });
});

describe('changedDaysByMonth', () => {
  it('counts exported days whose content changed, not new or forced ones, per month', () => {
    const planned = [
      { dataSourceId: 'ds-a', date: '2026-09-01', reason: 'cost-changed' },
      { dataSourceId: 'ds-b', date: '2026-09-02', reason: 'rows-changed' },
      { dataSourceId: 'ds-a', date: '2026-09-03', reason: 'no-manifest' },
      { dataSourceId: 'ds-a', date: '2026-10-01', reason: 'forced' },
      { dataSourceId: 'ds-a', date: '2026-10-02', reason: 'cost-changed' },
    ];
    const exported = planned.filter((u) => u.date !== '2026-10-02');

    expect(changedDaysByMonth(planned, exported)).toEqual(new Map([['2026-09', 2]]));
  });
});
