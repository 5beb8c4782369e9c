// What a reader of the archive sees of one (data source, day), by the rule of the costs_combined
// view (infra/queries/create_costs_combined_view.sql): days up to compaction_state's through_date
// from the month's compacted object (costs_monthly), every later day from its daily object.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { compactionStateKey } from '../../functions/lib/destination/layout.ts';
import { type Row, readWithArrow } from '../parquet-readers.ts';

/** A unit's rows as compared: cost_ids sorted, the cost sum, and the rows per project (the attribution). */
export interface UnitRows {
  readonly ids: readonly string[];
  readonly costSum: number;
  /** `project:rows` sorted: a re-attribution moves rows between projects, count and sum the same. */
  readonly attribution: string;
}

export interface UnitView extends UnitRows {
  /** Where the reader took them from. */
  readonly from: 'daily' | 'compacted';
}

export const monthlyKey = (ds: string, month: string) => `costs_monthly/billed_month=${month}/${ds}.parquet`;

export function rowsOf(rows: readonly Row[]): UnitRows {
  const ids = rows.map((r) => String(r.cost_id)).sort();
  const costSum = rows.reduce((s, r) => s + Number(r.cost ?? 0), 0);
  const perProject = new Map<string, number>();
  for (const r of rows)
    perProject.set(String(r.project_id ?? ''), (perProject.get(String(r.project_id ?? '')) ?? 0) + 1);
  const attribution = [...perProject]
    .map(([p, n]) => `${p}:${n}`)
    .sort()
    .join(',');
  return { ids, costSum, attribution };
}

export function sameRows(a: UnitRows, b: UnitRows): boolean {
  if (a.ids.length !== b.ids.length) return false;
  for (let i = 0; i < a.ids.length; i++) if (a.ids[i] !== b.ids[i]) return false;
  return sameSum(a.costSum, b.costSum) && a.attribution === b.attribution;
}

/** Equal within rounding; an unreadable object's NaN equals itself (the same damage seen twice). */
function sameSum(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));
}

/**
 * The same figures (count, cost sum, rows per project): a re-sync that gives a day new ids and nothing else is no
 * change the exporter must follow (docs/guarantees.md, "Restatements only on change").
 */
export function sameFigures(a: UnitRows, b: UnitRows): boolean {
  return a.ids.length === b.ids.length && sameSum(a.costSum, b.costSum) && a.attribution === b.attribution;
}

/** Reads the destination once per check: parsed objects are cached by key for that check. */
export class ArchiveReader {
  private readonly cache = new Map<string, Row[] | undefined>();
  private through: Promise<string> | undefined;

  constructor(private readonly out: string) {}

  /** '0000-00-00' when no month is read compacted. */
  throughDate(): Promise<string> {
    this.through ??= readFile(join(this.out, compactionStateKey('costs')), 'utf8')
      .then((t) => (JSON.parse(t) as { through_date?: string | null }).through_date ?? '0000-00-00')
      .catch(() => '0000-00-00');
    return this.through;
  }

  private async rows(key: string): Promise<Row[] | undefined> {
    if (!this.cache.has(key)) {
      const bytes = await readFile(join(this.out, key)).catch(() => undefined);
      let rows: Row[] | undefined;
      try {
        rows = bytes ? readWithArrow(new Uint8Array(bytes)).rows : undefined;
      } catch {
        rows = [{ cost_id: `UNREADABLE ${key}`, cost: Number.NaN }];
      }
      this.cache.set(key, rows);
    }
    return this.cache.get(key);
  }

  async view(ds: string, day: string): Promise<UnitView> {
    if (day <= (await this.throughDate())) {
      const rows = (await this.rows(monthlyKey(ds, day.slice(0, 7)))) ?? [];
      return { ...rowsOf(rows.filter((r) => String(r.billed_date).slice(0, 10) === day)), from: 'compacted' };
    }
    return { ...rowsOf((await this.rows(costObjectKey(ds, day))) ?? []), from: 'daily' };
  }
}
