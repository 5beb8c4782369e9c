// The live cost table: which version of each (data source, day) is current, and small caches
// so paging through one day neither regenerates its id order nor re-parses its rows.

import { servedCostMicros, servedUsageMicros } from './azure-costs.ts';
import { JobBook } from './cost-jobs.ts';
import {
  type CostRecord,
  type CostSettings,
  type DayOrder,
  type DayState,
  dayOrder,
  PRISTINE,
  RowWriter,
  rowCount,
} from './cost-rows.ts';
import { Lru } from './lru.ts';
import { hex12 } from './prng.ts';
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
  /** Moves rows to other accounts' project, workspace and service account: count and sum stay. */
  shift?: number;
}

/** What answering one cost/list cost the database, as MongoDB would count it. */
export interface QueryCost {
  /** Rows fetched through the index: the day's rows whatever the page. */
  examined: number;
  /** Rows a blocking top-k sort held: start - 1 + limit, at most the matches. */
  sortHeld: number;
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
  readonly jobs: JobBook;
  /** Rows a sort may hold before the database fails the query (MongoDB's memory limit). */
  sortLimitRows: number | undefined;
  /** Set by the last cost/list answered, for the request log. */
  lastCost: QueryCost | undefined;

  constructor(readonly settings: CostSettings) {
    this.jobs = new JobBook(settings.world);
  }

  dataSource(id: unknown): DataSource | undefined {
    return this.settings.world.dataSources.find((ds) => ds.id === id);
  }

  state(ds: DataSource, day: number): DayState {
    return this.states.get(`${ds.id}|${day}`) ?? PRISTINE;
  }

  /** Every row the day holds, a failed sync's leftover rows included. */
  count(ds: DataSource, day: number): number {
    const state = this.state(ds, day);
    return rowCount(this.settings, ds, day, state) + this.leftoverRows(ds, day, state);
  }

  /** True when the day holds rows of two syncs side by side. */
  mixed(ds: DataSource, day: number): boolean {
    return this.state(ds, day).leftover !== undefined;
  }

  jobOf(ds: DataSource, day: number, state: DayState): string {
    return state.jobId ?? this.jobs.initialJobId(ds, day);
  }

  private leftoverRows(ds: DataSource, day: number, state: DayState): number {
    return state.leftover ? Math.min(state.leftover.rows, rowCount(this.settings, ds, day, state)) : 0;
  }

  private key(ds: DataSource, day: number): string {
    const state = this.state(ds, day);
    return `${ds.id}|${day}|${state.version}|${state.leftover?.version ?? ''}`;
  }

  private day(ds: DataSource, day: number, state = this.state(ds, day)): GeneratedDay {
    const key = `${ds.id}|${day}|${state.version}`;
    let found = this.generated.get(key);
    if (!found) {
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

  /** How many of the day's (unmixed) rows have a cost_id at or below `costId`. */
  rowsThrough(ds: DataSource, day: number, costId: string): number {
    return this.rowsWhere(ds, day, (id) => id <= costId);
  }

  /** How many of the day's (unmixed) rows have a cost_id below `costId`. */
  rowsBelow(ds: DataSource, day: number, costId: string): number {
    return this.rowsWhere(ds, day, (id) => id < costId);
  }

  /** The length of the prefix of the day's ids (in order) that `holds` admits. */
  private rowsWhere(ds: DataSource, day: number, holds: (id: string) => boolean): number {
    const { ids } = this.day(ds, day).order;
    let [lo, hi] = [0, ids.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (holds(`cost-${hex12(ids[mid] ?? 0)}`)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The day's rows as objects, in cost_id order, for row-level filtering and sorting. Each knows
   * its job_id, a model field that filters and analyze see but cost/list never prints.
   */
  records(ds: DataSource, day: number): CostRecord[] {
    const key = this.key(ds, day);
    let rows = this.parsed.get(key);
    if (!rows) {
      const state = this.state(ds, day);
      rows = this.parse(this.day(ds, day), this.jobOf(ds, day, state), Number.MAX_SAFE_INTEGER);
      const { leftover } = state;
      if (leftover) {
        const partial = this.day(ds, day, { ...state, version: leftover.version });
        rows = [...rows, ...this.parse(partial, leftover.jobId, leftover.rows)].sort((a, b) =>
          String(a['cost_id']).localeCompare(String(b['cost_id'])),
        );
      }
      this.parsed.set(key, rows, rows.length);
    }
    return rows;
  }

  /** Rows of one generated version with row index below `below`, in cost_id order. */
  private parse({ order, writer }: GeneratedDay, jobId: string, below: number): CostRecord[] {
    const rows: CostRecord[] = [];
    for (let k = 0; k < order.ids.length; k++) {
      const j = order.rows[k] ?? 0;
      if (j >= below) continue;
      const json = writer.json(j, order.ids[k] ?? 0);
      rows.push(Object.assign(rememberJson(JSON.parse(json), json), { job_id: jobId }));
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
        cost += servedCostMicros(ds, draw, factor, j);
        usage += servedUsageMicros(ds, draw, j);
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

  /** A successful sync of the day by `jobId`: new ids, the change applied, any leftover gone. */
  resync(ds: DataSource, day: number, change: CostChange, jobId: string): void {
    const old = this.state(ds, day);
    const base = rowCount(this.settings, ds, day, PRISTINE);
    this.states.set(`${ds.id}|${day}`, {
      version: Math.max(old.version, old.leftover?.version ?? 0) + 1,
      // Clamped so that removing more rows than exist empties the day and no more.
      rowDelta: Math.max(-base, old.rowDelta + (change.rowDelta ?? 0)),
      costFactor: old.costFactor * (change.costFactor ?? 1),
      shift: (old.shift ?? 0) + (change.shift ?? 0),
      jobId,
    });
    ds.lastSynchronizedMs = Math.max(Date.now(), ds.lastSynchronizedMs + 1000);
    this.epoch++;
  }

  /** A failed sync of `jobId` had inserted the first `rows` rows of a new version of the day. */
  addLeftover(ds: DataSource, day: number, jobId: string, rows: number): void {
    const old = this.state(ds, day);
    const version = Math.max(old.version, old.leftover?.version ?? 0) + 1;
    this.states.set(`${ds.id}|${day}`, { ...old, leftover: { version, jobId, rows } });
    this.epoch++;
  }
}
