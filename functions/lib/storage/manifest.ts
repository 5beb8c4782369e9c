// Manifests record what each unit published. They live under _manifests/, never inside a
// table folder, where Athena would read them as data.

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
  readonly bytes: number;
  readonly schemaVersion: number;
  readonly lastSynchronizedAt?: string;
  readonly runId: string;
  readonly exportedAt: string;
}

export function manifestKey(table: string, partitionKey: string, partition: string, name: string): string {
  return `_manifests/${table}/${partitionKey}=${partition}/${name}.json`;
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
