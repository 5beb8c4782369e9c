// The inventory function's event: {} (today, UTC) or {"snapshotDate": "YYYY-MM-DD"}, with an
// optional "includeInactive": true. The date only labels the partition: a snapshot is always
// of what Cloudforet lists now. Anything else is refused with a message that names it.
import { isIsoDate, utcDay } from './dates.ts';
import { EventError } from './errors.ts';
import type { InventoryRunRequest } from './inventory-export.ts';

const allowedKeys = ['snapshotDate', 'includeInactive'];

export function parseInventoryEvent(event: unknown, now: Date): InventoryRunRequest {
  if (event === null || event === undefined) return { snapshotDate: utcDay(now) };
  if (typeof event !== 'object' || Array.isArray(event)) {
    throw new EventError(
      'EVENT_NOT_OBJECT',
      'event must be a JSON object such as {} or {"snapshotDate": "2026-01-31", "includeInactive": true}',
    );
  }
  const e = event as Record<string, unknown>;
  const unknown = Object.keys(e).filter((k) => !allowedKeys.includes(k));
  if (unknown.length > 0) {
    throw new EventError(
      'EVENT_UNKNOWN_KEYS',
      `event has unknown key(s): ${unknown.join(', ')}; allowed: ${allowedKeys.join(', ')}`,
    );
  }
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
  if (e.includeInactive !== undefined && typeof e.includeInactive !== 'boolean') {
    throw new EventError(
      'EVENT_BAD_INCLUDE_INACTIVE',
      `"includeInactive" must be true or false (got ${JSON.stringify(e.includeInactive)})`,
    );
  }
  return e.includeInactive === true ? { snapshotDate, includeInactive: true } : { snapshotDate };
}
