// The inventory function's event: {} (today, UTC) or {"snapshotDate": "YYYY-MM-DD"}, with an
// optional "includeInactive": true. The date only labels the partition: a snapshot is always
// of what Cloudforet lists now. Anything else is refused with a message that names it.
import { isIsoDate, utcDay } from '../dates.ts';
import { EventError } from '../errors.ts';
import { eventFields, flag } from '../event-shape.ts';
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
      `"snapshotDate" must be a date as YYYY-MM-DD (got ${JSON.stringify(snapshotDate)})`,
    );
  }
  if (snapshotDate > today) {
    throw new EventError(
      'EVENT_DATE_IN_FUTURE',
      `"snapshotDate" ${snapshotDate} is after today (${today}, UTC)`,
    );
  }
  const includeInactive = flag(e, 'includeInactive', 'EVENT_BAD_INCLUDE_INACTIVE');
  return includeInactive ? { snapshotDate, includeInactive } : { snapshotDate };
}
