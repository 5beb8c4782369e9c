// The inventory function's event: {} (today, UTC) or {"snapshotDate": "YYYY-MM-DD"}, with an
// optional "includeInactive": true. Cloudforet lists its inventory only as it is now, so a
// snapshot is of today: "snapshotDate" may only name today (the day the run began, by the UTC
// clock when the event is read), never another day, which would file a false record.
import { calendarNote, isIsoDate, utcDay } from '../dates.ts';
import { EventError } from '../errors.ts';
import { eventFields, flag } from '../input/event-shape.ts';
import type { InventoryRunRequest } from './run.ts';

const allowedKeys = ['snapshotDate', 'includeInactive'];

export function parseInventoryEvent(event: unknown, now: Date): InventoryRunRequest {
  const e = eventFields(event, allowedKeys, '{"snapshotDate": "2026-01-31", "includeInactive": true}');
  if (!e) return { snapshotDate: utcDay(now) };
  const today = utcDay(now);
  const snapshotDate = e.snapshotDate === undefined ? today : e.snapshotDate;
  if (!isIsoDate(snapshotDate)) {
    throw new EventError(
      'EVENT_BAD_DATE',
      `"snapshotDate" must be a date as YYYY-MM-DD (got ${JSON.stringify(snapshotDate)})${calendarNote(snapshotDate)}`,
    );
  }
  if (snapshotDate > today) {
    throw new EventError(
      'EVENT_DATE_IN_FUTURE',
      `"snapshotDate" ${snapshotDate} is after today (${today}, UTC)`,
    );
  }
  if (snapshotDate < today) {
    throw new EventError(
      'EVENT_SNAPSHOT_NOT_TODAY',
      `"snapshotDate" ${snapshotDate} is not today (${today}, UTC): Cloudforet lists its inventory only as it is now, so a snapshot filed under another day would be a false record; leave "snapshotDate" out (a past snapshot cannot be taken)`,
    );
  }
  const includeInactive = flag(e, 'includeInactive', 'EVENT_BAD_INCLUDE_INACTIVE');
  return includeInactive ? { snapshotDate, includeInactive } : { snapshotDate };
}
