// Objects per saved query and view, the reading figure that does not depend on the machine's
// speed or the day: the reading stage's world, smaller, exported and asked at a fixed clock
// (tools/bench/reading-figures.ts). Fails when any query reads more objects than
// docs/reading-baseline.json, which changes only on purpose.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  atClock,
  describeObjectsAgainst,
  measureObjectsPerQuery,
  type ObjectsPerQuery,
  objectsGrown,
  READING_BASELINE_FILE,
} from '../../../tools/bench/reading-figures.ts';

const REMEDY =
  'a saved query or view reads more objects than docs/reading-baseline.json allows: a filter no ' +
  'longer prunes partitions, or a view reads a table it did not. `npx tsx tools/bench/reading-probe.ts <query>` ' +
  'shows what it reads. If the growth is meant, run `npm run reading-baseline` and commit the file ' +
  'alone, saying why.';

describe('objects per saved query against docs/reading-baseline.json', () => {
  // ~45 s: the CLI's year of two data sources, then 34 queries in DuckDB.
  it('reads no more objects in any saved query or view than the baseline', async () => {
    const baseline = (
      JSON.parse(readFileSync(READING_BASELINE_FILE, 'utf8')) as { objectsPerQuery: ObjectsPerQuery }
    ).objectsPerQuery;

    const now = await measureObjectsPerQuery();

    process.stderr.write(`reading guard:\n  ${describeObjectsAgainst(baseline, now).join('\n  ')}\n`);
    expect(Object.keys(now).length).toBeGreaterThan(30);
    expect(objectsGrown(baseline, now), `reading guard: ${REMEDY}`).toEqual([]);
  }, 300_000);
});

describe('the objects comparison', () => {
  const baseline: ObjectsPerQuery = { costs_as_of: 2792, monthly: 12 };

  it('lets the same or fewer objects through', () => {
    expect(objectsGrown(baseline, { costs_as_of: 2792, monthly: 11 })).toEqual([]);
  });

  it('names a query reading one object more, a query new and one gone', () => {
    expect(objectsGrown(baseline, { costs_as_of: 2793, daily: 3 })).toEqual([
      'costs_as_of: 2793 objects, the baseline 2792',
      'daily: not in the baseline (3 objects)',
      'monthly: no longer a saved query or view',
    ]);
  });
});

describe('the guard clock', () => {
  it('moves Date to the clock for the work only, new Date() and Date.now() alike, and lets time run', async () => {
    const before = Date.now();
    const seen = await atClock('2026-06-15T12:00:00.000Z', async () => {
      const first = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 30));
      return {
        first,
        later: Date.parse(new Date().toISOString()),
        parsed: new Date('2026-01-01T00:00:00Z').getTime(),
      };
    });

    expect(seen.first).toBeGreaterThanOrEqual(Date.parse('2026-06-15T12:00:00.000Z'));
    expect(seen.first).toBeLessThan(Date.parse('2026-06-15T12:00:01.000Z'));
    expect(seen.later - seen.first).toBeGreaterThanOrEqual(25);
    expect(seen.parsed).toBe(Date.UTC(2026, 0, 1));
    expect(Math.abs(Date.now() - before)).toBeLessThan(60_000);
  });
});
