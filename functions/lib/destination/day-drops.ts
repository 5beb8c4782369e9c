// Absence is never evidence, for a compacted month (docs/guarantees.md): a day the month holds
// rows of leaves it only by its own proven removal. What a rebuild from the daily side as it is
// now would drop without proof: the compaction step refuses it (compaction/absence.ts), the run
// keeps such a month read compacted (compaction-state.ts), and the verifier names the day
// (verify-compacted.ts).
import { MANIFESTS_DIR } from './layout.ts';

/** A day a monthly manifest names, as its daily manifest says now (undefined: not listed). */
export interface DayNow {
  readonly day: string;
  readonly key: string | null;
  readonly removedBecause?: string;
}

/** A day a monthly manifest names (its `sources`), as far as these checks go. */
export interface HeldDay {
  readonly key: string | null;
  readonly sha256?: string;
  readonly rows?: number;
  readonly day?: string;
  readonly manifest?: { readonly key?: string };
}

export interface UnprovenDrop {
  readonly day: string;
  readonly why: string;
}

/**
 * The days the previous monthly manifest holds that a rebuild from `now` would drop without
 * proof: no daily manifest listed, or one that names no object where the month held rows and
 * records no proven removal.
 */
export function unprovenDrops(
  previous:
    | ReadonlyArray<{ readonly day: string; readonly key: string | null; readonly rows: number }>
    | undefined,
  now: readonly DayNow[],
): UnprovenDrop[] {
  if (!Array.isArray(previous)) return [];
  const byDay = new Map(now.map((d) => [d.day, d]));
  const drops: UnprovenDrop[] = [];
  for (const held of previous) {
    // A day the month held no row of loses nothing, whatever its daily manifest says now.
    if (held.key === null || held.rows <= 0) continue;
    const day = byDay.get(held.day);
    if (!day) drops.push({ day: held.day, why: 'its daily manifest is missing' });
    else if (day.key === null && !day.removedBecause) {
      drops.push({ day: held.day, why: 'its daily manifest names no object and records no proven removal' });
    }
  }
  return drops;
}

/** Where a named day's daily manifest is (or was): as recorded, from its object's key, or the month's. */
export function dailyManifestKey(monthlyKey: string, s: HeldDay): string {
  if (s.manifest?.key) return s.manifest.key;
  if (s.key) return `${MANIFESTS_DIR}/${s.key.replace(/\.parquet$/, '.json')}`;
  return `${monthlyKey} (day ${s.day ?? '?'})`;
}
