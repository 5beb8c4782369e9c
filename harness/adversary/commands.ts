// The adversary's commands, each small: runs (the CLI, the costs face stopped or on another clock,
// the scheduled backfill, inventory), Cloudforet's events (syncs, a failed sync, the clock), a
// hostile gateway for the next run, and damage to stored bytes. Each prints as a replayable line.
import fc from 'fast-check';
import { addDays } from '../../functions/lib/dates.ts';
import { applyDamage, type DamageOp, type DamageTarget } from './damage.ts';
import type { GatewayFaultKind } from './gateway.ts';
import type { Adversary, RunPromise } from './model.ts';
import { cli, faceRun, type RunOutcome } from './runs.ts';
import { runScheduled } from './scheduled.ts';
import { invokeCostExport } from './lambda.ts';
import { worldCalendar } from './world.ts';

/** What fast-check's model holds: nothing the real side does not check itself. */
export type Model = Record<string, never>;
type Cmd = fc.AsyncCommand<Model, Adversary>;

const { days: DAYS } = worldCalendar();
const ds = (i: number) => `ds#${i}`;

abstract class Base implements Cmd {
  check(): boolean {
    return true;
  }
  abstract run(m: Model, a: Adversary): Promise<void>;
  abstract toString(): string;
}

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
    readonly stop?: { abortAfterUnits?: number; startAtMost?: number },
  ) {
    super();
    this.kind =
      stop?.abortAfterUnits !== undefined
        ? 'stopped (SIGINT)'
        : stop?.startAtMost !== undefined
          ? 'deadline'
          : 'cost-export face';
    this.promise = { followsJobs: event.from === undefined && stop === undefined, verifies: false };
  }
  async go(a: Adversary) {
    if (this.stop) a.stats.kills++;
    return faceRun(a.world, { event: this.event, ...this.stop });
  }
  toString() {
    const stop =
      this.stop?.abortAfterUnits !== undefined
        ? ` abort after ${this.stop.abortAfterUnits} units`
        : this.stop?.startAtMost !== undefined
          ? ` deadline after ${this.stop.startAtMost} units`
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
  readonly kind = 'scheduled';
  readonly promise: RunPromise = { followsJobs: true, verifies: false };
  go(a: Adversary) {
    return runScheduled(a.world, {});
  }
  toString() {
    return 'scheduled {}';
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

export class Clock extends Base {
  run(_m: Model, a: Adversary) {
    a.count('commands', 'clock');
    a.world.now = new Date(a.world.now.getTime() + 86_400_000);
    return Promise.resolve();
  }
  toString() {
    return 'clock +1 day';
  }
}

type Change = { rowDelta?: number; costFactor?: number };

export class Sync extends Base {
  constructor(
    readonly dsIndex: number,
    readonly start: string,
    readonly day: string,
    readonly change: Change,
    readonly status: 'SUCCESS' | 'FAILURE' | 'resync',
  ) {
    super();
  }
  async run(_m: Model, a: Adversary) {
    a.count(
      'commands',
      this.status === 'resync' ? 'manual re-sync' : this.status === 'FAILURE' ? 'failed sync' : 'sync',
    );
    const id = a.world.dataSources[this.dsIndex % a.world.dataSources.length]!;
    const before = a.snapshotTruth();
    if (this.status === 'resync') a.world.sim.resync(id, this.day, this.change);
    else if (this.status === 'SUCCESS')
      a.world.sim.sync(id, { start: this.start, changes: { [this.day]: this.change } });
    else
      a.failedJobs.add(
        a.world.sim.sync(id, { start: this.start, status: 'FAILURE', leftoverRows: { [this.day]: 3 } }),
      );
    a.markRestated(before);
  }
  toString() {
    if (this.status === 'resync')
      return `resync ${ds(this.dsIndex)} ${this.day} ${JSON.stringify(this.change)}`;
    if (this.status === 'FAILURE')
      return `failed sync ${ds(this.dsIndex)} from ${this.start} (3 leftover rows on ${this.day})`;
    return `sync ${ds(this.dsIndex)} from ${this.start} (${this.day} ${JSON.stringify(this.change)})`;
  }
}

const VERBS = {
  list: '/cost-analysis/cost/list',
  analyze: '/cost-analysis/cost/analyze',
  'data-source': '/cost-analysis/data-source/list',
  jobs: '/cost-analysis/job/list',
  unified: '/cost-analysis/unified-cost/list',
} as const;

export class Fault extends Base {
  constructor(
    readonly verb: keyof typeof VERBS,
    readonly page: 1 | 2,
    readonly kind: GatewayFaultKind,
    readonly times: number | undefined,
  ) {
    super();
  }
  run(_m: Model, a: Adversary) {
    a.count('commands', 'gateway fault');
    a.count('faults', `${this.verb} p${this.page} ${this.kind}`);
    a.world.gateway.arm({
      path: VERBS[this.verb],
      page: this.page,
      kind: this.kind,
      ...(this.times && { times: this.times }),
    });
    return Promise.resolve();
  }
  toString() {
    return `gateway ${this.verb} page ${this.page === 1 ? '1' : '2+'} -> ${this.kind} (${this.times ?? 'every'} time(s), next run)`;
  }
}

export class Damage extends Base {
  constructor(
    readonly target: DamageTarget,
    readonly op: DamageOp,
    readonly dsIndex: number,
    readonly day: string,
  ) {
    super();
  }
  async run(_m: Model, a: Adversary) {
    a.count('commands', 'damage');
    const id = a.world.dataSources[this.dsIndex % a.world.dataSources.length]!;
    await a.world.s3?.mirror(a.world.out);
    const key = await applyDamage(a.world.out, { target: this.target, op: this.op, ds: id, day: this.day });
    if (key) a.count('damages', `${this.op} ${this.target}`);
    if (key) await a.world.s3?.push(a.world.out, key);
    await a.afterDamage();
  }
  toString() {
    return `damage ${this.op} ${this.target} ${ds(this.dsIndex)} ${this.day}`;
  }
}

// Days of the month two back (confirmed, compacted, outside the default window) and the last days
// of the previous month (the second page of its cost/analyze) are where the archive is thinnest.
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
    fc.constant(new Inventory()),
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

export { addDays };
