// The pure rules of compaction: the months the state names, the gate's proof for a compacted
// month, and when a monthly manifest is taken as built from the month's daily units now (from
// their manifests, or from a listing of them).
import { describe, expect, it } from 'vitest';
import { compactedFrom, listedAsBuilt } from '../../functions/lib/compaction/compact.ts';
import { lastDayOf, monthBefore } from '../../functions/lib/destination/compaction-state.ts';
import { proveCompactedFrom } from '../../functions/lib/destination/gate.ts';

const day = (d: string, rows: number, sha = `sha-${d}`) => ({
  key: `costs/billed_date=${d}/ds-1.parquet`,
  sha256: sha,
  rows,
  day: d,
});

describe('compaction rules', () => {
  it('months: the one before (across a year) and the last day (leap years too)', () => {
    expect(monthBefore('2026-01')).toBe('2025-12');
    expect(monthBefore('2026-11')).toBe('2026-10');
    expect(lastDayOf('2024-02')).toBe('2024-02-29');
    expect(lastDayOf('2026-02')).toBe('2026-02-28');
    expect(lastDayOf('2026-12')).toBe('2026-12-31');
  });

  it('the gate proves a compacted month only from every daily unit, checked, and exactly their rows', () => {
    const sources = [day('2026-09-01', 3), { key: null, rows: 0, day: '2026-09-02' }, day('2026-09-03', 4)];

    expect(proveCompactedFrom('m', sources, 7).evidence).toContain(
      '2 checked daily object(s) of 3 unit(s), 7 rows',
    );
    expect(() => proveCompactedFrom('m', sources, 6)).toThrow(/count 7 rows, 6 were written/);
    expect(() => proveCompactedFrom('m', [], 0)).toThrow(/never a proof/);
    expect(() => proveCompactedFrom('m', [{ ...day('2026-09-01', 3), sha256: undefined }], 3)).toThrow(
      /no checksum/,
    );
    // Every day removed with nothing left: the monthly object may go.
    expect(proveCompactedFrom('m', [{ key: null, rows: 0 }], 0).evidence).toContain('0 rows');
  });

  it('a monthly manifest is current only for the same units, checksums, rows and days', () => {
    const now = [day('2026-09-01', 3), day('2026-09-02', 4)];
    const manifest = (sources: typeof now) => ({ sources }) as unknown as Parameters<typeof compactedFrom>[0];

    expect(compactedFrom(manifest(now), now)).toBe(true);
    expect(compactedFrom(manifest([now[0]!]), now)).toBe(false); // a day (a data source's) added
    expect(compactedFrom(manifest([now[0]!, day('2026-09-02', 4, 'other')]), now)).toBe(false); // restated
    expect(compactedFrom(manifest([now[0]!, day('2026-09-02', 5)]), now)).toBe(false);
    expect(compactedFrom(undefined, now)).toBe(false);
  });

  it("the listing alone shows a month's daily units unchanged only when every manifest lists as recorded", () => {
    const listed = (d: string, size: number, seen: { etag?: string; mtimeMs?: number }) => ({
      key: `_manifests/costs/billed_date=${d}/ds-1.json`,
      listed: { size, ...seen },
    });
    const recorded = (units: ReturnType<typeof listed>[]) =>
      ({
        sources: units.map((u, i) => ({
          ...day(`2026-09-0${i + 1}`, 3),
          manifest: { key: u.key, ...u.listed },
        })),
      }) as unknown as Parameters<typeof listedAsBuilt>[0];
    const s3 = [listed('2026-09-01', 700, { etag: 'e1' }), listed('2026-09-02', 710, { etag: 'e2' })];
    const dir = [listed('2026-09-01', 700, { mtimeMs: 1 }), listed('2026-09-02', 710, { mtimeMs: 2 })];

    expect(listedAsBuilt(recorded(s3), s3)).toBe(true);
    expect(listedAsBuilt(recorded(dir), dir)).toBe(true);
    // A manifest rewritten (another ETag or mtime, the same size), one more, one fewer, another one.
    expect(listedAsBuilt(recorded(s3), [s3[0]!, listed('2026-09-02', 710, { etag: 'e3' })])).toBe(false);
    expect(listedAsBuilt(recorded(dir), [dir[0]!, listed('2026-09-02', 710, { mtimeMs: 3 })])).toBe(false);
    expect(listedAsBuilt(recorded(s3), [...s3, listed('2026-09-03', 700, { etag: 'e4' })])).toBe(false);
    expect(listedAsBuilt(recorded(s3), [s3[0]!])).toBe(false);
    expect(listedAsBuilt(recorded(s3), [s3[0]!, listed('2026-09-04', 710, { etag: 'e2' })])).toBe(false);
    // A size alone is no evidence; a manifest from before sources recorded their listing neither.
    expect(listedAsBuilt(recorded([listed('2026-09-01', 700, {})]), [listed('2026-09-01', 700, {})])).toBe(
      false,
    );
    const before = { sources: [day('2026-09-01', 3)] } as unknown as Parameters<typeof listedAsBuilt>[0];
    expect(listedAsBuilt(before, [s3[0]!])).toBe(false);
    expect(listedAsBuilt(undefined, s3)).toBe(false);
  });
});
