import { describe, expect, it } from 'vitest';
import { EventError } from '../../functions/lib/errors.ts';
import { parseInventoryEvent } from '../../functions/lib/inventory/event.ts';

const NOW = new Date('2026-06-15T23:30:00Z');

function failure(event: unknown): EventError {
  try {
    parseInventoryEvent(event, NOW);
  } catch (error) {
    if (error instanceof EventError) return error;
    throw error;
  }
  throw new Error('expected an EventError, but nothing was thrown');
}

describe('parseInventoryEvent', () => {
  it('snapshots into today (UTC) for an empty event', () => {
    expect(parseInventoryEvent({}, NOW)).toEqual({ snapshotDate: '2026-06-15' });
  });

  it('snapshots into today for a missing event', () => {
    expect(parseInventoryEvent(undefined, NOW)).toEqual({ snapshotDate: '2026-06-15' });
  });

  it('takes snapshotDate (today) and includeInactive', () => {
    const request = parseInventoryEvent({ snapshotDate: '2026-06-15', includeInactive: true }, NOW);

    expect(request).toEqual({ snapshotDate: '2026-06-15', includeInactive: true });
  });

  it('refuses a snapshotDate before today: Cloudforet lists its inventory only as it is now', () => {
    const error = failure({ snapshotDate: '2026-06-14' });

    expect(error.code).toBe('EVENT_SNAPSHOT_NOT_TODAY');
    expect(error.message).toMatch(
      /^"snapshotDate" 2026-06-14 is not today \(2026-06-15, UTC\): Cloudforet lists its inventory only as it is now/,
    );
  });

  it('treats includeInactive false as the default', () => {
    expect(parseInventoryEvent({ includeInactive: false }, NOW)).toEqual({ snapshotDate: '2026-06-15' });
  });

  it('rejects unknown keys, naming them and the allowed ones', () => {
    const error = failure({ date: '2026-06-01', inactive: true });

    expect(error.code).toBe('EVENT_UNKNOWN_KEYS');
    expect(error.message).toBe(
      'event has unknown key(s): date, inactive; allowed: snapshotDate, includeInactive',
    );
  });

  it('rejects a date that is not YYYY-MM-DD', () => {
    const error = failure({ snapshotDate: '2026-6-1' });

    expect(error.code).toBe('EVENT_BAD_DATE');
    expect(error.message).toContain('"snapshotDate"');
    expect(error.message).toContain('"2026-6-1"');
  });

  it('rejects a day that does not exist', () => {
    expect(failure({ snapshotDate: '2026-02-29' }).code).toBe('EVENT_BAD_DATE');
  });

  it('rejects a date after today', () => {
    const error = failure({ snapshotDate: '2026-06-16' });

    expect(error.code).toBe('EVENT_DATE_IN_FUTURE');
    expect(error.message).toContain('2026-06-15');
  });

  it('rejects an includeInactive that is not a boolean', () => {
    const error = failure({ includeInactive: 'yes' });

    expect(error.code).toBe('EVENT_BAD_INCLUDE_INACTIVE');
    expect(error.message).toContain('"yes"');
  });

  it('rejects an event that is not an object', () => {
    expect(failure(['2026-06-01']).code).toBe('EVENT_NOT_OBJECT');
  });
});
