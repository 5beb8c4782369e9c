// The status history's rules, pure (functions/lib/tables/cost-report-facts.ts): a fact only when a
// report's status changes, DELETED for a draft no longer listed (never from an empty listing), and
// a regeneration only when a newer DONE report of the same slot has another total.
import { describe, expect, it } from 'vitest';
import {
  byFirstPass,
  type Fact,
  newFacts,
  regenerations,
} from '../../functions/lib/tables/cost-report-facts.ts';

const report = (id: string, status: string, krw: number, createdAt: string, ws = 'ws-1') => ({
  cost_report_id: id,
  status,
  currency: 'KRW',
  cost: { KRW: krw, USD: krw / 1000 },
  report_month: '2026-08',
  cost_report_config_id: 'crc-1',
  workspace_id: ws,
  created_at: createdAt,
});
const at = (observedAt: string) => ({ observedAt, runId: `run-${observedAt}` });

describe('status facts', () => {
  it('adds a fact per new status, DELETED for a vanished draft, nothing on a rerun or an empty listing', () => {
    const draft = report('r1', 'ADJUSTING', 10, '2026-09-01T00:00:00Z');
    const first = newFacts([], [draft], at('t1'));
    expect(first.map((f) => [f.cost_report_id, f.status, f.previous_status])).toEqual([
      ['r1', 'ADJUSTING', null],
    ]);
    expect(newFacts(first, [draft], at('t2'))).toEqual([]);
    const done = report('r2', 'DONE', 11, '2026-09-02T00:00:00Z');
    const second = newFacts(first, [done], at('t2'));
    expect(second.map((f) => [f.cost_report_id, f.status, f.previous_status])).toEqual([
      ['r2', 'DONE', null],
      ['r1', 'DELETED', 'ADJUSTING'],
    ]);
    expect(newFacts(first, [], at('t2'))).toEqual([]);
  });

  it('finds a regeneration only where the total moved by more than 0.01', () => {
    const known: Fact[] = newFacts([], [report('r2', 'DONE', 11, '2026-09-02T00:00:00Z')], at('t1'));
    const same = newFacts(
      known,
      [
        report('r2', 'EXPIRED', 11, '2026-09-02T00:00:00Z'),
        report('r3', 'DONE', 11.005, '2026-09-03T00:00:00Z'),
      ],
      at('t2'),
    );
    expect(regenerations(known, same)).toEqual([]);
    const moved = newFacts(
      known,
      [report('r2', 'EXPIRED', 11, '2026-09-02T00:00:00Z'), report('r3', 'DONE', 12, '2026-09-03T00:00:00Z')],
      at('t2'),
    );
    expect(regenerations(known, moved)).toEqual([
      expect.objectContaining({
        before: expect.objectContaining({ costReportId: 'r2', cost: 11 }),
        after: expect.objectContaining({ costReportId: 'r3', cost: 12 }),
      }),
    ]);
    // Another workspace's report is another slot: no regeneration.
    const other = newFacts(known, [report('r4', 'DONE', 50, '2026-09-03T00:00:00Z', 'ws-2')], at('t2'));
    expect(regenerations(known, other)).toEqual([]);
  });

  it('a regeneration seen by the first pass over its month is past (not alerted); a later one is observed', () => {
    // The first pass finds r2 already EXPIRED and r3 DONE with another total.
    const first = newFacts(
      [],
      [report('r2', 'EXPIRED', 11, '2026-09-02T00:00:00Z'), report('r3', 'DONE', 12, '2026-09-03T00:00:00Z')],
      at('t1'),
    );
    const atFirst = regenerations([], first);
    expect(atFirst.map((r) => [r.before.costReportId, r.after.costReportId, r.observedAt])).toEqual([
      ['r2', 'r3', 't1'],
    ]);
    expect(byFirstPass(atFirst, first)).toEqual({ observed: [], past: atFirst });
    // A later pass sees r3 expire for r4: observed.
    const second = newFacts(
      first,
      [report('r3', 'EXPIRED', 12, '2026-09-03T00:00:00Z'), report('r4', 'DONE', 13, '2026-09-04T00:00:00Z')],
      at('t2'),
    );
    const later = regenerations(first, second);
    expect(later.map((r) => [r.before.costReportId, r.after.costReportId])).toEqual([['r3', 'r4']]);
    expect(byFirstPass(later, [...first, ...second])).toEqual({ observed: later, past: [] });
    // Read back from the whole history (as the alerts do): only r4 is alerted.
    const all = [...first, ...second];
    const split = byFirstPass(regenerations([], all), all);
    expect(split.observed.map((r) => r.after.costReportId)).toEqual(['r4']);
    expect(split.past.map((r) => r.after.costReportId)).toEqual(['r3']);
  });

  it('a month first seen with drafts only: its first DONE and any regeneration after are observed', () => {
    const drafts = newFacts([], [report('r1', 'ADJUSTING', 10, '2026-09-01T00:00:00Z')], at('t1'));
    const later = newFacts(
      drafts,
      [report('r2', 'EXPIRED', 11, '2026-09-02T00:00:00Z'), report('r3', 'DONE', 12, '2026-09-03T00:00:00Z')],
      at('t2'),
    );
    const found = regenerations(drafts, later);
    expect(found.map((r) => r.after.costReportId)).toEqual(['r3']);
    expect(byFirstPass(found, [...drafts, ...later]).observed).toEqual(found);
  });
});
