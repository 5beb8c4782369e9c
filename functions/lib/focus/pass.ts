// The focus pass of a cost run: every costs unit whose FOCUS rows are missing, or were derived
// from another version of its costs object, is derived again (derive.ts). Inside the run's
// window both manifests are read and compared; outside it, only a missing focus manifest counts
// (a costs object there changes only in a run whose window holds it). A focus object is never
// removed unless its costs unit's manifest records a proven removal.
import type { CloudforetClient } from '../cloudforet/client.ts';
import type { Compression } from '../export/listing-export.ts';
import { attemptUnit } from '../export/unit-attempts.ts';
import { type Logger, silentLogger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import { manifestPrefix } from '../storage/layout.ts';
import { parseManifest, type UnitManifest } from '../storage/manifest.ts';
import type { Sink } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import { focusTable } from '../tables/focus.ts';
import { deriveFocusUnit, type FocusManifest, focusManifestKey } from './derive.ts';
import { type FocusNamesRead, readFocusNames } from './names.ts';

export interface FocusPassDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly log?: Logger;
  readonly now?: () => Date;
  readonly concurrency?: number;
  readonly unitAttempts?: number;
  readonly compression?: Compression;
  readonly rowGroupRows?: number;
  readonly shouldStartUnit?: () => boolean;
  readonly signal?: AbortSignal;
}

export interface FocusPassSummary {
  /** Units whose FOCUS object was written, or removed after a proven costs removal. */
  readonly written: number;
  readonly removed: number;
  /** Units already derived from the costs object their manifest names now. */
  readonly current: number;
  readonly rows: number;
  readonly failures: ReadonlyArray<{ dataSourceId: string; date: string; code: string; message: string }>;
  /** Units left for the next run: the run's time ran short. */
  readonly notStarted: number;
}

/** `_manifests/costs/billed_date=D/<ds>.json` or the focus table's: (date, data source). */
const COST_KEY = /billed_date=(\d{4}-\d{2}-\d{2})\/([^/]+)\.json$/;
const FOCUS_KEY = /x_billing_period=(\d{4}-\d{2})\/x_charge_day=(\d{2})\/([^/]+)\.json$/;

/** Whether the focus manifest was derived from exactly the costs object `costs` names now. */
export function derivedFrom(focus: FocusManifest | undefined, costs: UnitManifest): boolean {
  if (!focus || focus.schemaVersion !== focusTable.schemaVersion) return false;
  if (focus.sourceKey !== costs.key || focus.sourceRows !== costs.rows) return false;
  if (costs.key === null) return true;
  // The checksum is the evidence; a costs manifest without one (before 0.2) is never taken as unchanged.
  return costs.sha256 !== undefined && focus.sourceSha256 === costs.sha256;
}

export async function exportFocus(
  deps: FocusPassDeps,
  window: { readonly from: string; readonly to: string },
): Promise<FocusPassSummary> {
  const log = deps.log ?? silentLogger;
  const [costKeys, focusKeys] = await Promise.all([
    deps.sink.list(manifestPrefix(costTable)),
    deps.sink.list(manifestPrefix(focusTable)),
  ]);
  const haveFocus = new Set<string>();
  for (const key of focusKeys) {
    const m = FOCUS_KEY.exec(key);
    if (m) haveFocus.add(`${m[1]}-${m[2]}/${m[3]}`);
  }
  const candidates: Array<{ key: string; date: string; dataSourceId: string; hasFocus: boolean }> = [];
  for (const key of costKeys) {
    const m = COST_KEY.exec(key);
    if (!m) continue;
    const [, date = '', dataSourceId = ''] = m;
    const hasFocus = haveFocus.has(`${date}/${dataSourceId}`);
    if (!hasFocus || (date >= window.from && date <= window.to)) {
      candidates.push({ key, date, dataSourceId, hasFocus });
    }
  }
  candidates.sort((a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId));

  let names: Promise<FocusNamesRead> | undefined;
  let written = 0;
  let removed = 0;
  let current = 0;
  let rows = 0;
  let notStarted = 0;
  const failures: Array<{ dataSourceId: string; date: string; code: string; message: string }> = [];
  await forEachLimit(candidates, deps.concurrency ?? 4, async (c) => {
    if (notStarted > 0 || deps.shouldStartUnit?.() === false || deps.signal?.aborted) {
      notStarted++;
      return;
    }
    const costs = parseManifest(await deps.sink.read(c.key));
    if (!costs) return; // a manifest being replaced, or not ours: the next run looks again
    const focus = c.hasFocus
      ? (parseManifest(await deps.sink.read(focusManifestKey(c.dataSourceId, c.date))) as
          | FocusManifest
          | undefined)
      : undefined;
    if (derivedFrom(focus, costs) || (costs.key === null && !c.hasFocus)) {
      current++;
      return;
    }
    names ??= readFocusNames(deps.client, log, deps.signal);
    const fields = { dataSourceId: c.dataSourceId, billedDate: c.date };
    const { gap } = await names;
    if (focus?.key && gap) {
      // An empty answer proves nothing: published rows are not replaced by rows with fewer names.
      const message = `${gap}: the published FOCUS rows are kept; rerun`;
      failures.push({ dataSourceId: c.dataSourceId, date: c.date, code: 'FOCUS_NAMES_MISSING', message });
      return;
    }
    const outcome = await attemptUnit(
      { what: 'focus unit', log, fields, attempts: deps.unitAttempts, signal: deps.signal },
      async () => deriveFocusUnit({ ...deps, names: await names! }, costs),
    );
    if (!outcome.ok) {
      const { code, message } = outcome.failure;
      failures.push({ dataSourceId: c.dataSourceId, date: c.date, code, message });
      return;
    }
    if (outcome.value.outcome === 'removed') removed++;
    else if (outcome.value.outcome === 'written') written++;
    rows += outcome.value.rows;
  });
  const summary = { written, removed, current, rows, failures, notStarted };
  log.info('focus pass finished', { ...summary, failures: failures.slice(0, 20) });
  return summary;
}
