// Absence is never evidence, for compaction too (docs/guarantees.md). A monthly object is rebuilt
// from the month's daily units as a listing finds them; a day it holds whose daily manifest is no
// longer listed (or whose manifest names no object without a proven removal, or whose object is
// gone) is not a day that went away: it is a day whose last copy may be the monthly object. Such a
// unit of compaction fails (COMPACTION_DAY_MISSING) and the monthly object and its manifest stay
// as they are; a day leaves a compacted month only when its own manifest records the gate's proof
// of its removal (`removedBecause`, written by export/listing-export.ts).

import type { UnprovenDrop } from '../destination/day-drops.ts';
import { MANIFESTS_DIR } from '../destination/layout.ts';
import { ExportError } from '../errors.ts';
import type { Sink } from '../storage/sink.ts';
import type { CompactedTable } from '../tables/compacted.ts';

export const DAY_MISSING = 'COMPACTION_DAY_MISSING';

/**
 * The unit's failure: which days, why, and what to do; nothing of the month is touched.
 * `monthlyIntact`: the monthly object is still the one its manifest describes (so views reading
 * the month compacted may go on reading it); false when it was being rebuilt anyway (damaged, or
 * built from days that changed since).
 */
export class DayMissingError extends ExportError {
  /** The days missing (YYYY-MM-DD): a cost run re-exports those Cloudforet still holds. */
  readonly days: readonly string[];
  constructor(
    what: string,
    drops: readonly UnprovenDrop[],
    readonly monthlyIntact: boolean,
  ) {
    const days = drops.map((d) => `${d.day} (${d.why})`).join(', ');
    super(
      DAY_MISSING,
      `${what}: the monthly object holds day(s) ${days}, and nothing proves them removed (absence is never ` +
        'evidence): the monthly object and its manifest are kept as they are. Restore the daily manifest and ' +
        'object (bucket versions: docs/operations.md), or re-export the day (costs --from DAY --to DAY) while ' +
        'Cloudforet retains it',
    );
    this.days = drops.map((d) => d.day);
  }
}

/**
 * The (month, data source) pairs that have a monthly manifest: a month compacted before keeps its
 * unit of compaction even when none of its daily manifests is listed any more.
 */
export async function monthlyUnits(sink: Sink, table: CompactedTable): Promise<Map<string, Set<string>>> {
  const prefix = `${MANIFESTS_DIR}/${table.name}/`;
  const pattern = new RegExp(`^${prefix}${table.partitionKey}=(\\d{4}-\\d\\d)/([^/]+)\\.json$`);
  const byMonth = new Map<string, Set<string>>();
  for (const key of await sink.list(prefix)) {
    const match = pattern.exec(key);
    if (!match) continue;
    const [, month, dataSourceId] = match as unknown as [string, string, string];
    byMonth.set(month, (byMonth.get(month) ?? new Set()).add(dataSourceId));
  }
  return byMonth;
}
