// One month and currency check for both entries (statements/monthly.ts): the statements function
// takes past months only and archives them; the CLI's working copies (EntrySettings.workingCopies)
// need a month and may ask for the current one. The currency rule is the same for both.
import { describe, expect, it } from 'vitest';
import { parseStatementsEvent } from '../../functions/lib/statements/monthly.ts';

const now = new Date('2026-02-10T12:00:00Z');
const cli = { workingCopies: true };

describe('the statements event, for the Lambda and the CLI', () => {
  it('takes the current month as a working copy, never for the archive', () => {
    expect(parseStatementsEvent({ month: '2026-02' }, now, cli)).toEqual({
      months: ['2026-02'],
      currency: 'USD',
      workingCopies: true,
    });
    expect(() => parseStatementsEvent({ month: '2026-02' }, now)).toThrow(
      '"month" must be a past month (got "2026-02"): the current month is never confirmed',
    );
  });

  it('needs a month for working copies; the Lambda defaults to the last three', () => {
    expect(() => parseStatementsEvent({ month: undefined }, now, cli)).toThrow(
      expect.objectContaining({
        code: 'EVENT_BAD_MONTH',
        message:
          '"month" is required: give the month as "YYYY-MM", or "this-month" or "this-month-N" (N months before this one, UTC)',
      }),
    );
    expect(() => parseStatementsEvent({ month: '2026-13' }, now, cli)).toThrow(
      '"month" must be a month as "YYYY-MM", or "this-month" or "this-month-N" (N months before this one, UTC) (got "2026-13")',
    );
    expect(parseStatementsEvent({}, now).months).toEqual(['2025-11', '2025-12', '2026-01']);
  });

  it('names a month written without its leading zero as such, not as the current month', () => {
    expect(() => parseStatementsEvent({ month: '2026-1' }, now)).toThrow(
      '"month" must be a past month as "YYYY-MM", or "this-month" or "this-month-N" (N months before this one, UTC), two digits for the month (got "2026-1")',
    );
  });

  it('reads "this-month" and "this-month-N" against the clock, across a year', () => {
    expect(parseStatementsEvent({ month: 'this-month-1' }, now).months).toEqual(['2026-01']);
    expect(parseStatementsEvent({ month: 'this-month-2' }, now).months).toEqual(['2025-12']);
    expect(parseStatementsEvent({ month: 'this-month-14' }, now).months).toEqual(['2024-12']);
    expect(parseStatementsEvent({ month: 'this-month' }, now, cli).months).toEqual(['2026-02']);
    expect(() => parseStatementsEvent({ month: 'this-month' }, now)).toThrow(
      'the current month is never confirmed',
    );
    for (const month of ['this-month+1', 'last-month', 'this-month-', 'this-month-1234']) {
      expect(() => parseStatementsEvent({ month }, now)).toThrow(
        expect.objectContaining({ code: 'EVENT_BAD_MONTH' }),
      );
    }
  });

  it('refuses an unsupported currency the same way for both', () => {
    for (const opts of [cli, {}]) {
      expect(() => parseStatementsEvent({ month: '2026-01', currency: 'EUR' }, now, opts)).toThrow(
        expect.objectContaining({ code: 'EVENT_BAD_CURRENCY' }),
      );
    }
  });
});
