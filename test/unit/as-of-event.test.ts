// The as-of face's input (functions/lib/faces/as-of.ts): its days take the forms every cost day
// takes ("YYYY-MM-DD", "today", "today-N"), read against the run's clock.
import { describe, expect, it } from 'vitest';
import { asOf } from '../../functions/lib/faces/as-of.ts';

const now = new Date('2027-01-02T08:00:00Z');
const settings = { maxDays: 400, windowMonths: 2, workingCopies: true };
const parse = (input: unknown) => asOf.parse(input, settings, now);

describe('the as-of input', () => {
  it('reads "today-N" and "today" against the clock, across a year', () => {
    expect(parse({ table: 'costs', at: '2026-12-31T00:00:00Z', from: 'today-3', to: 'today' })).toEqual({
      table: 'costs',
      at: new Date('2026-12-31T00:00:00Z'),
      from: '2026-12-30',
      to: '2027-01-02',
    });
  });

  it('keeps a day as given, and refuses another word naming the forms it takes', () => {
    expect(parse({ table: 'focus', at: '2026-12-31T00:00:00Z', from: '2026-11-01' }).from).toBe('2026-11-01');
    for (const from of ['yesterday', 'today+1', '2026-13-01']) {
      expect(() => parse({ table: 'costs', at: '2026-12-31T00:00:00Z', from })).toThrow(
        expect.objectContaining({
          code: 'EVENT_BAD_DATE',
          message: `"from" must be a day as "YYYY-MM-DD", or "today" or "today-N" (N days before today, UTC) (got ${JSON.stringify(from)})`,
        }),
      );
    }
  });
});
