// The promise of a run, checked per unit against the simulator's ground truth: a unit either
// published exactly the source's rows (read back by DuckDB and Arrow) or failed loudly and left
// the previous object and manifest byte for byte as they were.
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CostRunSummary } from '../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import type { Simulator } from '../../harness/simulator/index.ts';
import { storedFiles } from '../../harness/stored-files.ts';
import { readBothWays } from './export-reader.ts';

export type Snapshot = ReadonlyMap<string, Buffer>;

/** Every file under dir, by relative path with '/' separators. */
export const snapshotDir = storedFiles;

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

/** Keys whose bytes differ between two snapshots (added, removed or changed), sorted. */
export function changedFiles(before: Snapshot, after: Snapshot): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => !sameBytes(before.get(k), after.get(k))).sort();
}

export function tempFiles(snapshot: Snapshot): string[] {
  return [...snapshot.keys()].filter((k) => k.startsWith('_tmp/') || k.includes('.tmp-'));
}

export interface UnitVerdict {
  readonly dataSourceId: string;
  readonly date: string;
  readonly outcome: 'published' | 'empty' | 'failed-untouched';
  readonly rows: number;
}

/**
 * Checks every (data source, day) of a run against the source and the snapshot taken before it.
 * Returns what each unit did, for the caller's own expectations.
 */
export async function expectEachUnitExactOrUntouched(opts: {
  readonly sim: Simulator;
  readonly dir: string;
  readonly before: Snapshot;
  readonly summary: Pick<CostRunSummary, 'failures'>;
  readonly units: ReadonlyArray<{ dataSourceId: string; date: string }>;
}): Promise<UnitVerdict[]> {
  const after = await snapshotDir(opts.dir);
  expect(tempFiles(after), 'temporary files left behind').toEqual([]);
  const verdicts: UnitVerdict[] = [];
  for (const { dataSourceId, date } of opts.units) {
    const objectKey = costObjectKey(dataSourceId, date);
    const manifestKey = costManifestKey(dataSourceId, date);
    const failed = opts.summary.failures.some((f) => f.dataSourceId === dataSourceId && f.date === date);
    if (failed) {
      for (const key of [objectKey, manifestKey]) {
        expect(
          sameBytes(after.get(key), opts.before.get(key)),
          `${key} changed although its unit failed`,
        ).toBe(true);
      }
      verdicts.push({ dataSourceId, date, outcome: 'failed-untouched', rows: 0 });
      continue;
    }
    const rows = await expectExactRows(opts.sim, opts.dir, after, dataSourceId, date);
    verdicts.push({ dataSourceId, date, outcome: rows > 0 ? 'published' : 'empty', rows });
  }
  return verdicts;
}

async function expectExactRows(
  sim: Simulator,
  dir: string,
  files: Snapshot,
  dataSourceId: string,
  date: string,
): Promise<number> {
  const truth = sim.costTruth(dataSourceId, date);
  const objectKey = costObjectKey(dataSourceId, date);
  const manifest = JSON.parse(files.get(costManifestKey(dataSourceId, date))?.toString() ?? 'null');
  expect(manifest, `manifest of ${objectKey}`).toMatchObject({ rows: truth.rows });
  const bytes = files.get(objectKey);
  if (truth.rows === 0) {
    expect(bytes, `${objectKey} should be gone: the source has no rows`).toBeUndefined();
    return 0;
  }
  expect(bytes, `${objectKey} missing`).toBeDefined();
  const read = await readBothWays(join(dir, objectKey), new Uint8Array(bytes!));
  const ids = read.rows.map((r) => String(r.cost_id));
  const sourceIds = sim.costRows(dataSourceId, date).map((r) => String(r.cost_id));
  expect(read.count, `${objectKey} row count`).toBe(truth.rows);
  expect(new Set(ids).size, `${objectKey} has duplicate cost_id`).toBe(ids.length);
  expect(ids.sort(), `${objectKey} cost_ids differ from the source`).toEqual(sourceIds.sort());
  expect(read.costSum).toBeCloseTo(truth.costSum, 6);
  return read.count;
}
