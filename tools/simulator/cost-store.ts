// The live cost table: which version of each (data source, day) is current, and small caches
// so paging through one day neither regenerates its id order nor re-parses its rows.

import { costMicros } from './cost-draw.ts';
import {
  type CostRecord,
  type CostSettings,
  type DayOrder,
  type DayState,
  PRISTINE,
  RowWriter,
  dayOrder,
  rowCount,
} from './cost-rows.ts';
import { Lru } from './lru.ts';
import { rememberJson } from './record-json.ts';
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

interface GeneratedDay {
  readonly order: DayOrder;
  readonly writer: RowWriter;
}

/** Id orders are 12 bytes a row: millions fit. Parsed rows are ~1 KB: keep a few big days. */
const CACHED_ORDER_ROWS = 3_000_000;
const CACHED_RECORD_ROWS = 200_000;

export class CostStore {
  private readonly states = new Map<string, DayState>();
  private readonly generated = new Lru<GeneratedDay>(CACHED_ORDER_ROWS);
  private readonly parsed = new Lru<CostRecord[]>(CACHED_RECORD_ROWS);
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

  private key(ds: DataSource, day: number): string {
    return `${ds.id}|${day}|${this.state(ds, day).version}`;
  }

  private day(ds: DataSource, day: number): GeneratedDay {
    const key = this.key(ds, day);
    let found = this.generated.get(key);
    if (!found) {
      const state = this.state(ds, day);
      found = {
        order: dayOrder(this.settings, ds, day, state),
        writer: new RowWriter(this.settings, ds, day, state),
      };
      this.generated.set(key, found, found.order.ids.length);
    }
    return found;
  }

  /** JSON of the rows at positions [from, to) of the day in cost_id order. */
  json(ds: DataSource, day: number, from: number, to: number): string[] {
    const { order, writer } = this.day(ds, day);
    const out: string[] = [];
    for (let k = from; k < Math.min(to, order.ids.length); k++) {
      out.push(writer.json(order.rows[k] ?? 0, order.ids[k] ?? 0));
    }
    return out;
  }

  /** The day's rows as objects, in cost_id order, for row-level filtering and sorting. */
  records(ds: DataSource, day: number): CostRecord[] {
    const key = this.key(ds, day);
    let rows = this.parsed.get(key);
    if (!rows) {
      rows = this.json(ds, day, 0, Number.MAX_SAFE_INTEGER).map((json) =>
        rememberJson(JSON.parse(json), json),
      );
      this.parsed.set(key, rows, rows.length);
    }
    return rows;
  }

  /** Sums taken in integer micro-units, so they are exact and independent of row order. */
  truth(ds: DataSource, day: number): DayTruth {
    const key = this.key(ds, day);
    let truth = this.truths.get(key);
    if (!truth) {
      const { order, writer } = this.day(ds, day);
      const factor = this.state(ds, day).costFactor;
      let cost = 0;
      let usage = 0;
      for (const j of order.rows) {
        const draw = writer.draw(j);
        cost += costMicros(draw, factor);
        usage += draw.usageMicros;
      }
      truth = { rows: order.rows.length, costSum: cost / 1e6, usageQuantitySum: usage / 1e6 };
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
