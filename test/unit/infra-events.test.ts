// The sample console events in events/ are real inputs: each parses with the function's own
// event parser, so pasting one into the Lambda or Step Functions console never meets a
// validation error.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAlertsEvent } from '../../functions/lib/alerts/run.ts';
import { parseCostEvent } from '../../functions/lib/costs/event.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { costs } from '../../functions/lib/faces/costs.ts';
import type { EntrySettings } from '../../functions/lib/faces/face.ts';
import { parseInventoryEvent } from '../../functions/lib/inventory/event.ts';
import { parseStatementsEvent } from '../../functions/lib/statements/monthly.ts';
import { readSettings } from '../../infra/settings.ts';

const dir = new URL('../../events/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
const read = (file: string): unknown => JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
const now = new Date('2026-02-01T12:00:00Z');
const settings = readSettings({ cloudforetEndpoint: 'https://cf.example.com' });
/** What the functions read from the environment the stack gives them. */
const limits: EntrySettings = {
  maxDays: settings.maxInlineDays,
  windowMonths: settings.costWindowMonths,
  workingCopies: false,
};
/** What functions/backfill-plan.ts passes: a state machine execution may span 400 days. */
const backfillLimits: EntrySettings = { ...limits, maxDays: 400 };
/**
 * Clocks the samples must hold at: they name days relative to today, so an example in the README
 * or a test event saved in the console never drifts out of Cloudforet's 12 months.
 */
const clocks = [
  now,
  new Date('2026-11-29T00:30:00Z'),
  new Date('2027-03-01T23:59:00Z'),
  new Date('2031-07-15T08:00:00Z'),
];

describe('sample console events', () => {
  it('cover every documented case', () => {
    expect(files.sort()).toEqual([
      'alerts-default.json',
      'alerts-from.json',
      'backfill-range.json',
      'costs-default-window.json',
      'costs-force-one-day.json',
      'costs-one-data-source.json',
      'costs-one-day.json',
      'costs-range.json',
      'inventory-inactive.json',
      'inventory-today.json',
      'statements-default.json',
      'statements-one-month.json',
    ]);
  });

  it('alerts-*.json: {} alerts the last 35 days, {"from"} from that day', () => {
    expect(parseAlertsEvent(read('alerts-default.json'), now)).toEqual({ from: '2025-12-28' });
    expect(parseAlertsEvent(read('alerts-from.json'), now)).toEqual({ from: '2025-12-03' });
  });

  it('statements-*.json: {} looks at the three months before this one and restated ones, {"month"} at one', () => {
    expect(parseStatementsEvent(read('statements-default.json'), now)).toEqual({
      months: ['2025-11', '2025-12', '2026-01'],
      currency: 'USD',
      followRestated: true,
    });
    expect(parseStatementsEvent(read('statements-one-month.json'), now)).toEqual({
      months: ['2026-01'],
      currency: 'KRW',
    });
    // A month relative to the clock: the sample never names a month past the archive's days.
    for (const at of clocks) {
      const before = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1));
      expect(parseStatementsEvent(read('statements-one-month.json'), at).months).toEqual([
        before.toISOString().slice(0, 7),
      ]);
    }
  });

  it('refuse alerts and statements events they cannot run, saying what to give', () => {
    expect(() => parseAlertsEvent({ from: '2026-13-01' }, now)).toThrow(
      /"from" must be a past day as "YYYY-MM-DD"/,
    );
    expect(() => parseAlertsEvent({ form: '2026-01-01' }, now)).toThrow(
      /unknown key\(s\): form \(did you mean from\?\)/,
    );
    expect(() => parseStatementsEvent({ month: '2026-02' }, now)).toThrow(
      /the current month is never confirmed/,
    );
    expect(() => parseStatementsEvent({ currency: 'EUR' }, now)).toThrow(
      /"currency" must be one of KRW, USD, JPY/,
    );
  });

  it.each(files.filter((f) => f.startsWith('costs-')))('%s is a valid cost event at any clock', (file) => {
    for (const at of clocks) {
      // As the cost function parses it: the range, then Cloudforet's retention.
      expect(() => costs.parse(read(file), limits, at)).not.toThrow();
    }
  });

  it.each(files.filter((f) => f.startsWith('backfill-')))(
    '%s is a valid event for the backfill state machine at any clock',
    (file) => {
      for (const at of clocks) {
        // As functions/backfill-plan.ts parses it.
        expect(() => costs.parse(read(file), backfillLimits, at)).not.toThrow();
      }
    },
  );

  it('name days relative to today as "today-N", read against the run\'s clock (UTC)', () => {
    const lateEvening = new Date('2026-12-31T23:59:59Z');

    expect(parseCostEvent({ date: 'today' }, lateEvening, limits)).toEqual({
      from: '2026-12-31',
      to: '2026-12-31',
    });
    expect(parseCostEvent({ from: 'today-365', to: 'today-1' }, lateEvening, backfillLimits)).toEqual({
      from: '2025-12-31',
      to: '2026-12-30',
    });
    expect(parseAlertsEvent({ from: 'today-0' }, lateEvening)).toEqual({ from: '2026-12-31' });
    for (const bad of ['today+1', 'today-', 'today - 1', 'yesterday', 'Today-1', 'today-12345']) {
      expect(() => parseCostEvent({ date: bad }, lateEvening, limits)).toThrow(
        new RegExp(
          `"date" must be a day as "YYYY-MM-DD", or "today" or "today-N".*\\(got "${bad.replace('+', '\\+')}"\\)`,
        ),
      );
    }
  });

  it.each(files.filter((f) => f.startsWith('inventory-')))('%s is a valid inventory event', (file) => {
    expect(() => parseInventoryEvent(read(file), now)).not.toThrow();
  });

  it("accept the schedule's {} with the stack's defaults, even at the end of two 31-day months", () => {
    const endOfAugust = new Date('2026-08-31T23:00:00Z');

    expect(parseCostEvent(read('costs-default-window.json'), endOfAugust, limits)).toEqual({
      from: '2026-07-01',
      to: '2026-08-31',
      followJobs: true,
    });
  });

  it('send a backfill range to the state machine: the cost function refuses it and says so', () => {
    expect(() => parseCostEvent(read('backfill-range.json'), now, limits)).toThrow(
      /90 days .*start the backfill state machine/,
    );
  });

  it('ask for what their names say', () => {
    const yesterday = addDays(utcDay(now), -1);
    expect(parseCostEvent(read('costs-one-day.json'), now, limits)).toEqual({
      from: yesterday,
      to: yesterday,
    });
    expect(parseCostEvent(read('costs-force-one-day.json'), now, limits)).toEqual({
      from: yesterday,
      to: yesterday,
      force: true,
    });
    expect(parseCostEvent(read('costs-range.json'), now, limits)).toEqual({
      from: addDays(utcDay(now), -7),
      to: yesterday,
    });
    expect(parseCostEvent(read('backfill-range.json'), now, backfillLimits)).toEqual({
      from: addDays(utcDay(now), -90),
      to: yesterday,
    });
    expect(parseCostEvent(read('costs-one-data-source.json'), now, limits)).toMatchObject({
      dataSourceIds: [expect.stringMatching(/^ds-/)],
    });
    expect(parseInventoryEvent(read('inventory-inactive.json'), now)).toEqual({
      snapshotDate: utcDay(now),
      includeInactive: true,
    });
  });
});
