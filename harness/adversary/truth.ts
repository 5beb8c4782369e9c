// Cloudforet's truth for one unit, as the simulator holds it: every row the day holds, and the
// same without the leftover rows of failed sync jobs (what an exporter keeps publishing until a
// sync succeeds; docs/guarantees.md, "not synced").
import type { Simulator } from '../simulator/index.ts';
import { rowsOf, type UnitRows } from './reader.ts';

export interface UnitTruth {
  readonly all: UnitRows;
  readonly synced: UnitRows;
}

export function unitTruth(
  sim: Simulator,
  ds: string,
  day: string,
  failedJobs: ReadonlySet<string>,
): UnitTruth {
  const rows = sim.costRows(ds, day) as unknown as Array<Record<string, unknown>>;
  const all = rowsOf(rows);
  if (failedJobs.size === 0) return { all, synced: all };
  return { all, synced: rowsOf(rows.filter((r) => !failedJobs.has(String(r.job_id)))) };
}
