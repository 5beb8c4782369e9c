// Manifests record what each unit published. They live apart from the table folders, where
// Athena would read them as data (layout.ts manifestKey).
import type { Sink } from '../storage/sink.ts';

export interface UnitManifest {
  readonly table: string;
  readonly partition: string;
  readonly dataSourceId?: string;
  /** The data object's key, or null when the unit had no rows and the object was removed. */
  readonly key: string | null;
  readonly rows: number;
  /** What the source reported; paging proves it equals rows. */
  readonly totalCount: number;
  readonly costSum?: number;
  /** Costs: row count and cost sum per attribution key, which change detection compares. */
  readonly groups?: ReadonlyArray<{ key: string; rows: number; costSum: number }>;
  /** Costs: the one sync job whose rows were published (the day also held a failed sync's). */
  readonly jobId?: string;
  /** Costs: Cloudforet's cost/analyze totals of the day when the unit was planned (every job's rows). */
  readonly analyzeRows?: number;
  readonly analyzeCostSum?: number;
  readonly bytes: number;
  /** The object's SHA-256 (hex) as written; absent in manifests of versions before 0.2. */
  readonly sha256?: string;
  /** S3: the object's ETag when written. */
  readonly etag?: string;
  /** A directory: the file's modification time when written. */
  readonly mtimeMs?: number;
  readonly schemaVersion: number;
  readonly lastSynchronizedAt?: string;
  readonly runId: string;
  readonly exportedAt: string;
  /**
   * Set when Cloudforet no longer had rows for a day past its retention and the archived object
   * was kept: planning then knows the day's empty answer is no change.
   */
  readonly keptSince?: string;
  /** The gate's proof (destination/gate.ts) when the unit's object was removed: a derived table follows it. */
  readonly removedBecause?: string;
  /** The gate's proof when the object was replaced by fewer rows than it held. */
  readonly shrunkBecause?: string;
}

export function parseManifest(text: string | undefined): UnitManifest | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as UnitManifest;
    return typeof parsed.rows === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Marks a unit's manifest as kept (archive guard), so the day is not planned again. */
export async function markKept(sink: Sink, key: string, at: Date): Promise<void> {
  const manifest = parseManifest(await sink.read(key));
  if (!manifest || manifest.keptSince !== undefined) return;
  const kept: UnitManifest = { ...manifest, keptSince: at.toISOString() };
  await sink.put(key, `${JSON.stringify(kept, null, 2)}\n`, 'application/json');
}
