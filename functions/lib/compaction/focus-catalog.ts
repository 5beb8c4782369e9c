// The focus table's Glue partitions, registered rather than projected, so that the one table FOCUS
// discovery (AWS CID) finds reads a closed month from its compacted objects: one partition a
// month up to compaction_state's month, located at focus_monthly/x_billing_period=M/, and one a
// day after it, at the daily folder. The rule is focus_combined's (the same state, the same
// comparison), so the table holds exactly the view's rows: each row once, none missed
// (docs/focus.md, "CID reads closed months compacted"). Pure: the listing comes in, the partitions
// and the calls that move the catalog to them go out; storing them is a CatalogPort's job.
import { compactedThrough } from '../destination/compaction-state.ts';
import type { Sink } from '../storage/sink.ts';
import { focusMonthlyTable } from '../tables/compacted.ts';
import { focusTable } from '../tables/focus.ts';

/** x_charge_day of a compacted month's one partition: the whole month (its rows carry their day in focus_combined). */
export const WHOLE_MONTH_DAY = '00';

export interface CatalogPartition {
  /** [x_billing_period, x_charge_day] */
  readonly values: readonly [string, string];
  /** The folder Athena lists for it, ending in '/'. */
  readonly location: string;
}

export interface CatalogListing {
  /** Keys of the daily focus objects (focus/x_billing_period=M/x_charge_day=DD/<name>.parquet). */
  readonly daily: readonly string[];
  /** Keys of the compacted objects (focus_monthly/x_billing_period=M/<name>.parquet). */
  readonly compacted: readonly string[];
  /** compaction_state's month for focus (undefined: nothing read compacted). */
  readonly through: string | undefined;
}

const DAILY = new RegExp(
  `^${focusTable.name}/${focusTable.partitionKey}=(\\d{4}-\\d\\d)/${focusTable.dayKey}=(\\d\\d)/[^/]+\\.parquet$`,
);
const MONTHLY = new RegExp(
  `^${focusMonthlyTable.name}/${focusMonthlyTable.partitionKey}=(\\d{4}-\\d\\d)/[^/]+\\.parquet$`,
);

/**
 * The partitions the focus table should have, sorted. `root` is the destination's location with
 * its trailing '/', e.g. s3://bucket/prefix/.
 */
export function focusPartitions(listing: CatalogListing, root: string): CatalogPartition[] {
  const through = listing.through;
  const byKey = new Map<string, CatalogPartition>();
  for (const key of listing.compacted) {
    const m = MONTHLY.exec(key);
    if (!m || through === undefined || m[1]! > through) continue;
    const month = m[1]!;
    byKey.set(`${month}/${WHOLE_MONTH_DAY}`, {
      values: [month, WHOLE_MONTH_DAY],
      location: `${root}${focusMonthlyTable.name}/${focusMonthlyTable.partitionKey}=${month}/`,
    });
  }
  for (const key of listing.daily) {
    const m = DAILY.exec(key);
    if (!m || (through !== undefined && m[1]! <= through)) continue;
    const [, month, day] = m as unknown as [string, string, string];
    byKey.set(`${month}/${day}`, {
      values: [month, day],
      location: `${root}${focusTable.name}/${focusTable.partitionKey}=${month}/${focusTable.dayKey}=${day}/`,
    });
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, p]) => p);
}

/** What the destination says: its focus objects, compacted objects and compaction state. */
export async function readCatalogListing(sink: Sink): Promise<CatalogListing> {
  const [daily, compacted, through] = await Promise.all([
    sink.list(`${focusTable.name}/`),
    sink.list(`${focusMonthlyTable.name}/`),
    compactedThrough(sink, focusTable.name),
  ]);
  return { daily, compacted, through };
}

export interface CatalogChanges {
  /** Partitions to drop first: a month leaving its days or its compacted object is not read twice. */
  readonly drop: CatalogPartition[];
  readonly create: CatalogPartition[];
  /** Same values, another location. */
  readonly relocate: CatalogPartition[];
}

const valuesKey = (p: CatalogPartition) => p.values.join('/');

/** The calls that turn the registered partitions into the wanted ones. */
export function catalogChanges(
  registered: readonly CatalogPartition[],
  wanted: readonly CatalogPartition[],
): CatalogChanges {
  const now = new Map(registered.map((p) => [valuesKey(p), p]));
  const next = new Map(wanted.map((p) => [valuesKey(p), p]));
  return {
    drop: registered.filter((p) => !next.has(valuesKey(p))),
    create: wanted.filter((p) => !now.has(valuesKey(p))),
    relocate: wanted.filter((p) => {
      const was = now.get(valuesKey(p));
      return was !== undefined && was.location !== p.location;
    }),
  };
}

/** The focus table's partitions in a Glue catalog (compaction/glue-partitions.ts over the SDK). */
export interface CatalogPort {
  list(): Promise<CatalogPartition[]>;
  drop(partitions: readonly CatalogPartition[]): Promise<void>;
  create(partitions: readonly CatalogPartition[]): Promise<void>;
  relocate(partitions: readonly CatalogPartition[]): Promise<void>;
}

/** Where a run keeps the focus table's partitions: the catalog, and the destination's location in it. */
export interface FocusCatalog {
  readonly port: CatalogPort;
  /** The destination's S3 location with its trailing '/', e.g. s3://bucket/prefix/. */
  readonly root: string;
}

export interface CatalogSync {
  readonly partitions: number;
  readonly removed: number;
  readonly created: number;
  readonly relocated: number;
  /** Months read from their compacted objects. */
  readonly compactedMonths: number;
  /**
   * The destination listed no focus object while the catalog held partitions: nothing was dropped
   * (a wrong prefix or bucket would otherwise empty the table until a run saw the objects again).
   */
  readonly keptOnEmptyListing: boolean;
}

/**
 * Moves the catalog to what the destination holds now. Removals go first, so that while the calls
 * run a month is at worst briefly unread, never read from its days and its compacted object at
 * once; a failure leaves the rest to the next run (every run recomputes the whole list). A listing
 * with no focus object never empties a catalog that has partitions (keptOnEmptyListing).
 */
export async function syncFocusCatalog(sink: Sink, catalog: CatalogPort, root: string): Promise<CatalogSync> {
  const wanted = focusPartitions(await readCatalogListing(sink), root);
  const registered = await catalog.list();
  if (wanted.length === 0 && registered.length > 0) {
    return {
      partitions: registered.length,
      removed: 0,
      created: 0,
      relocated: 0,
      compactedMonths: registered.filter((p) => p.values[1] === WHOLE_MONTH_DAY).length,
      keptOnEmptyListing: true,
    };
  }
  const changes = catalogChanges(registered, wanted);
  if (changes.drop.length > 0) await catalog.drop(changes.drop);
  if (changes.relocate.length > 0) await catalog.relocate(changes.relocate);
  if (changes.create.length > 0) await catalog.create(changes.create);
  return {
    partitions: wanted.length,
    removed: changes.drop.length,
    created: changes.create.length,
    relocated: changes.relocate.length,
    compactedMonths: wanted.filter((p) => p.values[1] === WHOLE_MONTH_DAY).length,
    keptOnEmptyListing: false,
  };
}
