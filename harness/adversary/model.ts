// What the archive should hold, unit by unit, as the adversary learns it: the rows of each
// (data source, day) as of its last successful export, the units a damage broke (and what a
// reader sees of them since), the units a sync restated since, and the jobs that failed. After a
// run every unit a reader sees is checked against Cloudforet now and against this record.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { costManifestKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { utcDay } from '../../functions/lib/dates.ts';
import { checkHygiene, checkRevisionsKept, InvariantViolation } from './invariants.ts';
import { ArchiveReader, sameFigures, sameRows, type UnitRows, type UnitView } from './reader.ts';
import type { RunOutcome } from './runs.ts';
import { unitTruth } from './truth.ts';
import type { World } from './world.ts';

interface UnitState {
  /** The rows as of the unit's last successful export (undefined: never exported). */
  expected?: UnitRows;
  /** A damage left the reader seeing this; cleared once the unit is as Cloudforet has it. */
  broken?: UnitRows;
  /** Where a reader read the unit at the last check. */
  from?: UnitView['from'];
  /** A successful sync changed the unit's rows since the archive last held Cloudforet's. */
  restated?: boolean;
}

/** How a run promises: the window it answers for, following the job history, or the whole destination. */
export interface RunPromise {
  readonly followsJobs: boolean;
  readonly verifies: boolean;
}

export interface Stats {
  commands: Record<string, number>;
  faults: Record<string, number>;
  damages: Record<string, number>;
  kills: number;
  checks: number;
  rowsCompared: number;
  runsFailedLoudly: number;
}

export const newStats = (): Stats => ({
  commands: {},
  faults: {},
  damages: {},
  kills: 0,
  checks: 0,
  rowsCompared: 0,
  runsFailedLoudly: 0,
});

const count = (m: Record<string, number>, k: string) => {
  m[k] = (m[k] ?? 0) + 1;
};

export class Adversary {
  readonly units = new Map<string, UnitState>();
  readonly failedJobs = new Set<string>();
  /** Texts already checked for the secret. */
  private checkedTexts = 0;
  /** Every object a reader could read after a run (checksum -> key): none may be lost (e). */
  private readable = new Map<string, string>();

  constructor(
    readonly world: World,
    readonly stats: Stats,
  ) {}

  count(kind: 'commands' | 'faults' | 'damages', name: string): void {
    count(this.stats[kind], name);
  }

  private state(ds: string, day: string): UnitState {
    const key = `${ds}|${day}`;
    const known = this.units.get(key);
    if (known) return known;
    const fresh: UnitState = {};
    this.units.set(key, fresh);
    return fresh;
  }

  private truthOf(ds: string, day: string) {
    return unitTruth(this.world.sim, ds, day, this.failedJobs);
  }

  /** Before Cloudforet changes: what each unit holds now, to see which a sync restated. */
  snapshotTruth(): Map<string, UnitRows> {
    const all = new Map<string, UnitRows>();
    for (const ds of this.world.dataSources)
      for (const day of this.world.days) all.set(`${ds}|${day}`, this.truthOf(ds, day).synced);
    return all;
  }

  markRestated(before: Map<string, UnitRows>): number {
    let n = 0;
    for (const [key, rows] of before) {
      const [ds, day] = key.split('|') as [string, string];
      if (!sameFigures(rows, this.truthOf(ds, day).synced)) {
        this.state(ds, day).restated = true;
        n++;
      }
    }
    return n;
  }

  /** After a damage: units a reader now sees otherwise are broken (no run is blamed for them). */
  async afterDamage(): Promise<void> {
    await this.world.s3?.mirror(this.world.out);
    this.readable = await checkRevisionsKept(this.world.out, this.readable, { afterDamage: true });
    const reader = new ArchiveReader(this.world.out);
    for (const ds of this.world.dataSources)
      for (const day of this.world.days) {
        const s = this.state(ds, day);
        const seen = await reader.view(ds, day);
        s.from = seen.from;
        const truth = this.truthOf(ds, day);
        const fine =
          (s.expected && sameRows(seen, s.expected)) ||
          sameFigures(seen, truth.all) ||
          sameFigures(seen, truth.synced);
        if (!fine && !(s.broken && sameRows(seen, s.broken))) s.broken = seen;
        if (!s.expected && seen.ids.length === 0) s.broken = undefined;
      }
  }

  /** After a run: (a) for every unit, (b) for those the run answers for, (d) for the destination. */
  async afterRun(label: string, outcome: RunOutcome, promise: RunPromise): Promise<void> {
    if (outcome.code !== 0) this.stats.runsFailedLoudly++;
    await this.world.s3?.mirror(this.world.out);
    const reader = new ArchiveReader(this.world.out);
    const yesterday = utcDay(new Date(Date.now() - 86_400_000));
    // A data source whose sync is running is left alone, and the summary says so: the run answers
    // for none of its units (the next run exports them).
    const syncing = new Set(outcome.summary?.skippedSyncInProgress ?? []);
    for (const ds of this.world.dataSources)
      for (const day of this.world.days) {
        const s = this.state(ds, day);
        const seen = await reader.view(ds, day);
        const readFrom = s.from;
        s.from = seen.from;
        const truth = this.truthOf(ds, day);
        this.stats.checks++;
        this.stats.rowsCompared += seen.ids.length;
        if (sameFigures(seen, truth.all) || sameFigures(seen, truth.synced)) {
          if (seen.ids.length > 0 || s.expected) s.expected = seen;
          s.broken = undefined;
          s.restated = false;
          continue;
        }
        const stale = s.expected ? sameRows(seen, s.expected) : seen.ids.length === 0;
        if (!stale && !(s.broken && sameRows(seen, s.broken))) {
          throw new InvariantViolation(
            'reader-diverged',
            divergenceTag(
              seen,
              { ...s, from: readFrom },
              truth.synced,
              await removalRecorded(this.world.out, ds, day),
            ),
            `${label}: ${ds} ${day} (${seen.from}) reads ${describe(seen)}; archived ${describe(s.expected)}; ` +
              `Cloudforet ${describe(truth.synced)}; exit ${outcome.code}`,
          );
        }
        if (outcome.code !== 0 || syncing.has(ds)) continue;
        // A run that says it left work (the deadline: units not started, `left`) answers for what it
        // did, not for its window; the next run's checks hold it to the rest.
        const inWindow =
          !outcome.summary?.left &&
          !outcome.summary?.notStarted &&
          outcome.from !== undefined &&
          outcome.to !== undefined &&
          day >= outcome.from &&
          day <= outcome.to &&
          day <= yesterday;
        const why =
          (inWindow && 'window') ||
          (promise.verifies && s.broken && 'verify') ||
          (promise.followsJobs && s.restated && s.expected && 'followed-job') ||
          undefined;
        if (why)
          throw new InvariantViolation(
            'success-but-stale',
            why,
            `${label} exited 0 but ${ds} ${day} (${seen.from}) reads ${describe(seen)}; Cloudforet ${describe(truth.synced)}` +
              (s.broken ? ' (damaged before)' : ''),
          );
      }
    this.readable = await checkRevisionsKept(this.world.out, this.readable);
    const texts = this.world.texts.slice(this.checkedTexts);
    this.checkedTexts = this.world.texts.length;
    await checkHygiene(this.world.out, texts, this.world.token, { debris: !outcome.debrisExpected });
  }
}

/** The unit's manifest records the gate's proof of a removal (removedBecause). */
async function removalRecorded(out: string, ds: string, day: string): Promise<boolean> {
  const text = await readFile(join(out, costManifestKey(ds, day)), 'utf8').catch(() => '{}');
  return text.includes('"removedBecause"');
}

function describe(rows: UnitRows | undefined): string {
  return rows ? `${rows.ids.length} rows, sum ${rows.costSum.toFixed(4)}` : 'nothing';
}

/** Which case of (a): rows lost from a compacted month, a day removed, or other rows. */
function divergenceTag(
  seen: UnitView,
  { expected, from }: UnitState,
  truth: UnitRows,
  removal: boolean,
): string {
  if (removal && seen.ids.length < truth.ids.length) return 'lost-rows:proven-removal';
  const fewer =
    seen.ids.length < Math.min(expected?.ids.length ?? 0, truth.ids.length) ||
    (seen.ids.length === 0 && truth.ids.length > 0);
  if (fewer && seen.from === 'compacted') return 'lost-rows:compacted';
  // The run moved compaction_state below the unit's month: the view reads its daily object now.
  if (fewer && from === 'compacted') return 'lost-rows:uncompacted';
  if (fewer) return 'lost-rows:daily';
  return `other-rows:${seen.from}`;
}
