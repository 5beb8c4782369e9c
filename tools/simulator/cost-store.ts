// The live cost table: which version of each (data source, day) is current, and a small
// cache of generated days so paging through one day does not regenerate it per page.

import { type CostRecord, type CostSettings, type DayState, PRISTINE, generateDay, rowCount } from './cost-rows.ts';
import { Lru } from './lru.ts';
import type { DataSource } from './world.ts';

export interface DayTruth {
  rows: number;
  costSum: number;
  usageQuantitySum: number;
}

export interface CostChange {
  rowDelta?: number;
  costFactor?: number;
}

/** Rows kept generated in memory at most; big enough for a few 50,000-row days in flight. */
const CACHED_ROWS = 250_000;

export class CostStore {
  private readonly states = new Map<string, DayState>();
  private readonly days = new Lru<CostRecord[]>(CACHED_ROWS);
  private readonly truths = new Map<string, DayTruth>();
  /** Bumped by every re-sync, so caches of query answers can tell they are stale. */
  epoch = 0;

  constructor(readonly settings: CostSettings) {}

  dataSource(id: unknown): DataSource | undefined {
    return this.settings.world.dataSources.find((ds) => ds.id === id);
  }

  state(ds: DataSource, day: number): DayState {
    return this.states.get(`${ds.id}|${day}`) ?? PRISTINE;
  }

  count(ds: DataSource, day: number): number {
    return rowCount(this.settings, ds, day, this.state(ds, day));
  }

  rows(ds: DataSource, day: number): CostRecord[] {
    const state = this.state(ds, day);
    const key = `${ds.id}|${day}|${state.version}`;
    let rows = this.days.get(key);
    if (!rows) {
      rows = generateDay(this.settings, ds, day, state);
      this.days.set(key, rows, rows.length);
    }
    return rows;
  }

  truth(ds: DataSource, day: number): DayTruth {
    const key = `${ds.id}|${day}|${this.state(ds, day).version}`;
    let truth = this.truths.get(key);
    if (!truth) {
      truth = { rows: 0, costSum: 0, usageQuantitySum: 0 };
      for (const row of this.rows(ds, day)) {
        truth.rows++;
        truth.costSum += (row['cost'] as number | undefined) ?? 0;
        truth.usageQuantitySum += (row['usage_quantity'] as number | undefined) ?? 0;
      }
      this.truths.set(key, truth);
    }
    return { ...truth };
  }

  /** Days that may hold rows: the configured range plus any day a re-sync touched. */
  candidateDays(ds: DataSource): number[] {
    const { fromDay, toDay } = this.settings.world;
    const days = new Set<number>();
    for (let day = fromDay; day <= toDay; day++) days.add(day);
    for (const key of this.states.keys()) {
      const [id, day] = key.split('|');
      if (id === ds.id) days.add(Number(day));
    }
    return [...days].sort((a, b) => a - b);
  }

  resync(ds: DataSource, day: number, change: CostChange = {}): void {
    const old = this.state(ds, day);
    const base = rowCount(this.settings, ds, day, PRISTINE);
    this.states.set(`${ds.id}|${day}`, {
      version: old.version + 1,
      // Clamped so that removing more rows than exist empties the day and no more.
      rowDelta: Math.max(-base, old.rowDelta + (change.rowDelta ?? 0)),
      costFactor: old.costFactor * (change.costFactor ?? 1),
    });
    ds.lastSynchronizedMs = Math.max(Date.now(), ds.lastSynchronizedMs + 1000);
    this.epoch++;
  }
}
