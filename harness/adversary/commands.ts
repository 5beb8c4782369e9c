// The adversary's commands, each small: runs (the CLI, the costs face stopped or on another clock,
// the cost function's handler on S3, the scheduled backfill, inventory), and (event-commands.ts)
// Cloudforet's events, the clock, a hostile gateway for the next run, and damage to stored bytes.
import fc from 'fast-check';
import { Base, type Cmd, type Model } from './command-base.ts';
import type { DamageOp, DamageTarget } from './damage.ts';
import { type Change, Clock, Damage, Fault, Running, Sync, type VERBS } from './event-commands.ts';
import type { GatewayFaultKind } from './gateway.ts';
import { killedRun } from './killed.ts';
import { invokeCostExport } from './lambda.ts';
import type { Adversary, RunPromise } from './model.ts';
import { cli, faceRun, type RunOutcome } from './runs.ts';
import { runScheduled, type UnitPath } from './scheduled.ts';
import { worldCalendar } from './world.ts';

export type { Model };
export { Clock, Damage, Fault, Running, Sync };

const { days: DAYS } = worldCalendar();

abstract class RunCommand extends Base {
  abstract readonly kind: string;
  abstract readonly promise: RunPromise;
  abstract go(a: Adversary): Promise<RunOutcome>;
  async run(_m: Model, a: Adversary): Promise<void> {
    a.count('commands', this.kind);
    const outcome = await this.go(a).finally(() => a.world.gateway.clear());
    await a.afterRun(this.toString(), outcome, this.promise);
  }
}

export class CliCosts extends RunCommand {
  readonly kind: string;
  readonly promise: RunPromise;
  constructor(
    readonly mode: 'default' | 'verify' | 'range',
    readonly from?: string,
    readonly to?: string,
  ) {
    super();
    this.kind = `costs ${mode}`;
    this.promise = { followsJobs: mode !== 'range', verifies: mode === 'verify' };
  }
  args(): string[] {
    if (this.mode === 'range') return ['costs', '--from', this.from!, '--to', this.to!];
    return this.mode === 'verify' ? ['costs', '--verify'] : ['costs'];
  }
  go(a: Adversary) {
    return cli(a.world, this.args());
  }
  toString() {
    return `cli ${this.args().join(' ')}`;
  }
}

export class FaceCosts extends RunCommand {
  readonly kind: string;
  readonly promise: RunPromise;
  constructor(
    readonly event: { from?: string; to?: string },
    readonly stop?: { abortAfterUnits?: number; startAtMost?: number; skewMs?: number },
  ) {
    super();
    this.kind =
      stop?.abortAfterUnits !== undefined
        ? 'stopped (SIGINT)'
        : stop?.startAtMost !== undefined
          ? 'deadline'
          : stop?.skewMs !== undefined
            ? 'skewed clock'
            : 'cost-export face';
    const stops = stop?.abortAfterUnits !== undefined || stop?.startAtMost !== undefined;
    this.promise = { followsJobs: event.from === undefined && !stops, verifies: false };
  }
  async go(a: Adversary) {
    if (this.stop?.abortAfterUnits !== undefined || this.stop?.startAtMost !== undefined) a.stats.kills++;
    return faceRun(a.world, { event: this.event, ...this.stop });
  }
  toString() {
    const stop =
      this.stop?.abortAfterUnits !== undefined
        ? ` abort after ${this.stop.abortAfterUnits} units`
        : this.stop?.startAtMost !== undefined
          ? ` deadline after ${this.stop.startAtMost} units`
          : this.stop?.skewMs !== undefined
            ? ` clock ${this.stop.skewMs > 0 ? '+' : ''}${this.stop.skewMs / 3_600_000} h`
            : '';
    return `cost-export ${JSON.stringify(this.event)}${stop}`;
  }
}

/** The cost function's handler itself (S3 worlds only). */
export class LambdaCosts extends RunCommand {
  readonly kind: string;
  readonly promise: RunPromise;
  constructor(readonly event: { from?: string; to?: string }) {
    super();
    this.kind = event.from === undefined ? 'lambda cost-export {}' : 'lambda cost-export range';
    this.promise = { followsJobs: event.from === undefined, verifies: false };
  }
  go(a: Adversary) {
    return invokeCostExport(a.world, this.event);
  }
  toString() {
    return `lambda cost-export ${JSON.stringify(this.event)}`;
  }
}

export class Scheduled extends RunCommand {
  readonly kind: string;
  readonly promise: RunPromise = { followsJobs: true, verifies: false };
  /** Without `path`, one Map item per unit; with it, the units in lanes (the daily run across tenants). */
  constructor(readonly path: UnitPath = undefined) {
    super();
    this.kind = path ? 'scheduled in lanes' : 'scheduled';
  }
  go(a: Adversary) {
    return runScheduled(a.world, {}, this.path);
  }
  toString() {
    return this.path
      ? `scheduled {} in ${this.path.lanes} lanes, cut every ${this.path.cut}`
      : 'scheduled {}';
  }
}

/** `costs` in a child SIGKILLed after N more units (directory worlds: the trigger reads the ledger folder). */
export class Killed extends RunCommand {
  readonly kind = 'killed (SIGKILL)';
  readonly promise: RunPromise = { followsJobs: false, verifies: false };
  constructor(readonly afterUnits: number) {
    super();
  }
  async go(a: Adversary): Promise<RunOutcome> {
    const outcome = await killedRun(a.world, this.afterUnits);
    if (outcome.killed) a.stats.kills++;
    else a.count('commands', 'killed (SIGKILL): finished first');
    // Nothing of a killed run cleans up: its temporaries are the next run's to remove.
    return { ...outcome, debrisExpected: outcome.killed };
  }
  toString() {
    return `cli costs SIGKILLed after ${this.afterUnits} unit(s)`;
  }
}

/** Two runs at once on one destination: each must finish right or fail loudly, never lose a row. */
export class TwoRuns extends RunCommand {
  readonly kind = 'two runs at once';
  readonly promise: RunPromise;
  constructor(
    readonly first: RunCommand,
    readonly second: RunCommand,
  ) {
    super();
    this.promise = {
      followsJobs: first.promise.followsJobs && second.promise.followsJobs,
      verifies: first.promise.verifies && second.promise.verifies,
    };
  }
  async go(a: Adversary): Promise<RunOutcome> {
    const [x, y] = await Promise.all([this.first.go(a), this.second.go(a)]);
    // Both exited 0: each answers for its window; the model checks the first's (both cover it or more).
    const syncing = [
      ...(x.summary?.skippedSyncInProgress ?? []),
      ...(y.summary?.skippedSyncInProgress ?? []),
    ];
    const left = x.summary?.left ?? y.summary?.left;
    return {
      code: Math.max(x.code, y.code),
      ...(x.summary && { summary: { ...x.summary, skippedSyncInProgress: syncing, ...(left && { left }) } }),
      from: x.from,
      to: x.to,
    };
  }
  toString() {
    return `at once: [${this.first}] and [${this.second}]`;
  }
}

/** `statements --month M`: reads the archive only; must finish or fail loudly, whatever it finds. */
export class Statements extends RunCommand {
  readonly kind = 'statements';
  readonly promise: RunPromise = { followsJobs: false, verifies: false };
  constructor(readonly month: string) {
    super();
  }
  async go(a: Adversary) {
    const outcome = await cli(a.world, ['statements', '--month', this.month], { readsCloudforet: false });
    return { code: outcome.code };
  }
  toString() {
    return `cli statements --month ${this.month}`;
  }
}

export class Inventory extends RunCommand {
  readonly kind = 'inventory';
  readonly promise: RunPromise = { followsJobs: false, verifies: false };
  async go(a: Adversary) {
    const outcome = await cli(a.world, ['inventory']);
    return { code: outcome.code };
  }
  toString() {
    return 'cli inventory';
  }
}

const day = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...DAYS.slice(0, 3)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...DAYS.filter((d) => d.slice(0, 7) === worldCalendar().months[1]).slice(-5)),
  },
  { weight: 2, arbitrary: fc.constantFrom(...DAYS) },
);
const dsIndex = fc.integer({ min: 0, max: 1 });
const range = fc
  .tuple(fc.integer({ min: 0, max: DAYS.length - 1 }), fc.integer({ min: 0, max: 6 }))
  .map(([i, span]) => [DAYS[i]!, DAYS[Math.min(DAYS.length - 1, i + span)]!] as const);
const change = fc.oneof(
  fc.constant<Change>({}),
  fc.constantFrom<Change>({ costFactor: 1.5 }, { costFactor: 0.8 }),
  fc.constantFrom<Change>({ rowDelta: 3 }, { rowDelta: -2 }),
  // Re-attribution: rows move to other accounts' projects, count and sum the same.
  fc.constant<Change>({ shift: 3 }),
);
const MONTHS = worldCalendar().months;

/** The command arbitraries, runs first (what matters most), weighted by repetition. */
export function commandArbitraries(opts: { s3?: boolean } = {}): Array<fc.Arbitrary<Cmd>> {
  const defaultRun = fc.constant(new CliCosts('default'));
  const lambda = opts.s3
    ? [fc.constant(new LambdaCosts({})), range.map(([from, to]) => new LambdaCosts({ from, to }))]
    : [];
  return [
    ...lambda,
    defaultRun,
    defaultRun,
    fc.constant(new CliCosts('verify')),
    range.map(([from, to]) => new CliCosts('range', from, to)),
    fc.constant(new FaceCosts({})),
    range.map(([from, to]) => new FaceCosts({ from, to })),
    fc.integer({ min: 1, max: 3 }).map((n) => new FaceCosts({}, { abortAfterUnits: n })),
    fc.constant(new FaceCosts({}, { abortAfterUnits: 1 })),
    fc.integer({ min: 1, max: 3 }).map((n) => new FaceCosts({}, { startAtMost: n })),
    fc.constant(new Scheduled()),
    fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 1, 2))
      .map(([lanes, cut]) => new Scheduled({ lanes, cut })),
    fc.constant(new Inventory()),
    fc.constantFrom(...MONTHS.slice(0, 2)).map((m) => new Statements(m)),
    fc
      .constantFrom<[RunCommand, RunCommand]>(
        [new CliCosts('default'), new CliCosts('default')],
        [new CliCosts('default'), new FaceCosts({})],
        [new CliCosts('default'), new Scheduled()],
        [new FaceCosts({}), new CliCosts('verify')],
      )
      .map(([x, y]) => new TwoRuns(x, y)),
    fc.constantFrom(-3, 3, 30).map((h) => new FaceCosts({}, { skewMs: h * 3_600_000 })),
    ...(opts.s3 ? [] : [fc.integer({ min: 0, max: 3 }).map((n) => new Killed(n))]),
    fc
      .tuple(dsIndex, fc.constantFrom<'fresh' | 'stale' | 'ended'>('fresh', 'stale', 'ended', 'ended'))
      .map(([d, s]) => new Running(d, s)),
    fc.constant(new Clock()),
    fc
      .tuple(dsIndex, fc.constantFrom(...MONTHS), day, change)
      .map(([d, m, x, c]) => new Sync(d, m, x < m ? `${m}-01` : x, c, 'SUCCESS')),
    fc.tuple(dsIndex, day, change).map(([d, x, c]) => new Sync(d, x.slice(0, 7), x, c, 'resync')),
    fc.tuple(dsIndex, day, change).map(([d, x, c]) => new Sync(d, x.slice(0, 7), x, c, 'resync')),
    fc.tuple(dsIndex, day).map(([d, x]) => new Sync(d, x.slice(0, 7), x, {}, 'FAILURE')),
    fc
      .tuple(
        fc.constantFrom<keyof typeof VERBS>('list', 'analyze', 'analyze', 'data-source', 'jobs', 'unified'),
        fc.constantFrom<1 | 2>(1, 2),
        fc.constantFrom<GatewayFaultKind>(
          'empty',
          'null-results',
          'html',
          'detail',
          '429',
          '503',
          'truncated',
        ),
        fc.constantFrom<number | undefined>(undefined, 1, 2),
      )
      .map(([v, p, k, t]) => new Fault(v, p, k, t)),
    fc
      .tuple(
        fc.constantFrom<DamageTarget>(
          'daily-object',
          'daily-manifest',
          'daily-manifest',
          'daily-unit',
          'monthly-object',
          'compaction-state',
          'job-mark',
          'ledger-line',
        ),
        fc.constantFrom<DamageOp>('delete', 'truncate', 'replace'),
        dsIndex,
        day,
      )
      .map(([t, o, d, x]) => new Damage(t, o, d, x)),
  ];
}
