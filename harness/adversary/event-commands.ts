// The commands that are not runs: Cloudforet's events (a sync, a manual re-sync, a failed sync),
// the exporter's clock a day ahead, a hostile gateway armed for the next run, and damage to one
// stored object (made on the S3 mirror and pushed, for an S3 world).

import { Base, ds, type Model } from './command-base.ts';
import { applyDamage, type DamageOp, type DamageTarget } from './damage.ts';
import type { GatewayFaultKind } from './gateway.ts';
import type { Adversary } from './model.ts';

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

export type Change = { rowDelta?: number; costFactor?: number; shift?: number };

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

/** A sync of one data source running (started minutes ago, or days ago: a stale job), or ended. */
export class Running extends Base {
  constructor(
    readonly dsIndex: number,
    readonly state: 'fresh' | 'stale' | 'ended',
  ) {
    super();
  }
  run(_m: Model, a: Adversary) {
    a.count('commands', `sync ${this.state === 'ended' ? 'ended' : `running (${this.state})`}`);
    const id = a.world.dataSources[this.dsIndex % a.world.dataSources.length]!;
    if (this.state === 'ended') a.world.sim.setJobInProgress(id, false);
    else
      a.world.sim.setJobInProgress(id, true, {
        startedAgoMs: this.state === 'fresh' ? 10 * 60_000 : 3 * 86_400_000,
      });
    return Promise.resolve();
  }
  toString() {
    return this.state === 'ended'
      ? `running sync of ${ds(this.dsIndex)} ended`
      : `${this.state} sync of ${ds(this.dsIndex)} running`;
  }
}

export const VERBS = {
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
    const keys = await applyDamage(a.world.out, { target: this.target, op: this.op, ds: id, day: this.day });
    if (keys.length > 0) a.count('damages', `${this.op} ${this.target}`);
    for (const key of keys) await a.world.s3?.push(a.world.out, key);
    await a.afterDamage();
  }
  toString() {
    return `damage ${this.op} ${this.target} ${ds(this.dsIndex)} ${this.day}`;
  }
}

// Days of the month two back (confirmed, compacted, outside the default window) and the last days
// of the previous month (the second page of its cost/analyze) are where the archive is thinnest.
