// A cost range of which Cloudforet keeps nothing: refused as an event error (the CLI's exit 2, a
// failed Lambda invocation), by the CLI and the cost function alike, rather than a success that
// exported nothing.
import { EventError } from '../errors.ts';
import { retentionStart } from './planning/job-history.ts';

export function refuseWhollyBeyondRetention(range: { from: string; to: string }, now: Date): void {
  const first = retentionStart(now);
  if (range.to >= first) return;
  const asked = range.from === range.to ? range.from : `${range.from}..${range.to}`;
  throw new EventError(
    'EVENT_BEYOND_RETENTION',
    `${asked} is wholly before ${first}: Cloudforet keeps daily costs for 12 months (this one included), ` +
      `so there is nothing to export; ask for ${first} or later (objects already archived are untouched)`,
  );
}
