// The performance figures people read come from the last recorded bench run, not from prose:
// docs/performance.md's block and the README's bytes are what tools/bench/record.ts makes of
// docs/bench-record.json. Rerun `npm run bench -- --record`, or `npx tsx tools/bench/record.ts`
// after editing around the generated parts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE_LIMIT } from '../../functions/lib/cloudforet/pager.ts';
import { costUnitsBound, pagesHeldBack } from '../../tools/bench/model.ts';
import {
  againstRecord,
  type BenchRecord,
  PERFORMANCE_DOC,
  README,
  readRecord,
  withRecord,
} from '../../tools/bench/record.ts';

describe('the docs against docs/bench-record.json', () => {
  it('docs/performance.md prints the recorded figures', () => {
    const doc = readFileSync(PERFORMANCE_DOC, 'utf8');

    expect(doc).toContain('<!-- bench-record: end -->');
    expect(withRecord(doc, readRecord())).toBe(doc);
  });

  it("the README's S3 line prints the recorded bytes", () => {
    const doc = readFileSync(README, 'utf8');

    expect(doc).toContain('<!-- bench-record: bytes -->');
    expect(withRecord(doc, readRecord())).toBe(doc);
  });
});

describe('a run against the record', () => {
  const record: BenchRecord = {
    recordedAt: '2026-11-29T00:00:00.000Z',
    args: ['--record'],
    summary: {
      bytesPerMillionRows: 25_000_000,
      peakRssMb: 280,
      reading: { queries: { cost_by_tag: { objects: 150 }, reconcile_cost_days: { objects: 197 } } },
    },
  };

  it('prints each figure beside the recorded one, with the change and its direction', () => {
    const text = againstRecord(record, { bytesPerMillionRows: 26_000_000, peakRssMb: 266 });

    expect(text).toMatch(
      /\| Parquet bytes per million cost rows +\| 26,000,000 +\| 25,000,000 +\| \+4\.0 % \(worse\) +\|/,
    );
    expect(text).toMatch(/\| peak RSS, MB \(1 M rows\) +\| 266 +\| 280 +\| -5\.0 % \(better\) +\|/);
  });

  it('names a saved query that reads more objects than in the record', () => {
    const summary = {
      reading: { queries: { cost_by_tag: { objects: 151 }, reconcile_cost_days: { objects: 190 } } },
    };

    expect(againstRecord(record, summary)).toContain(
      'reading: MORE OBJECTS than the recorded run: cost_by_tag 150 → 151',
    );
  });
});

describe('what held the pages back', () => {
  it("splits the share of the bound into the places' time out, the round trip and the rows a page", () => {
    // 2 units × 2 places at 100 ms a page: a bound of 40,000 rows/s. 250 pages of 900 rows in 10 s,
    // each 125 ms from asked to its last byte: places out 250 × 125 / (4 × 10,000) of the time.
    const result = { rows: 225_000, wallMs: 10_000, pages: 250, pageRoundTripsMs: 250 * 125 };

    const held = pagesHeldBack(result, 2, 100)!;

    expect(held.roundTripMs).toBe(125);
    expect(held.inFlight).toBeCloseTo(0.78125);
    expect(held.latencyOverRoundTrip).toBeCloseTo(0.8);
    expect(held.rowsPerPage).toBe(900);
    const share = result.rows / (result.wallMs / 1000) / costUnitsBound(2, 100);
    expect(share).toBeCloseTo(0.5625);
    expect(held.inFlight * held.latencyOverRoundTrip * (held.rowsPerPage / PAGE_LIMIT)).toBeCloseTo(share);
    // A record from before the stages counted their pages says nothing.
    expect(pagesHeldBack({ ...result, pages: 0 }, 2, 100)).toBeUndefined();
    // Nor of the main thread, before the stages measured it.
    expect(held.mainThreadAtBound).toBeUndefined();
  });

  it("sets the main thread's time a page against the pages the bound asks for", () => {
    // The same 250 pages in 10 s, the main thread active 7.5 s of it: 30 ms a page. The bound's
    // 40 pages a second would take 1.2 s of main thread a second: more than it has.
    const result = {
      rows: 225_000,
      wallMs: 10_000,
      pages: 250,
      pageRoundTripsMs: 250 * 125,
      mainThreadMs: 7_500,
    };

    const held = pagesHeldBack(result, 2, 100)!;

    expect(held.mainThreadBusy).toBeCloseTo(0.75);
    expect(held.mainThreadMsPerPage).toBeCloseTo(30);
    expect(held.boundPagesPerSec).toBe(40);
    expect(held.mainThreadAtBound).toBeCloseTo(1.2);
  });
});
