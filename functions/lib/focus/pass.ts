// The focus pass of a cost run: every costs unit whose FOCUS rows are missing, were derived from
// another version of its costs object, or are not what their manifest says (damaged, truncated,
// deleted), is derived again (derive.ts), anywhere in the destination, not only in the run's
// window. Three listings find the candidates without reading a manifest (focus-candidates.ts);
// each candidate's two manifests are then read and compared, and its object checked against its
// manifest. A focus object is removed only with the gate's proof that its costs unit was.
import type { CloudforetClient } from '../cloudforet/client.ts';
import { parseManifest, type UnitManifest } from '../destination/manifest.ts';
import { objectDifference } from '../destination/object-check.ts';
import type { Compression } from '../export/listing-export.ts';
import { attemptUnit } from '../export/unit-attempts.ts';
import { type Logger, silentLogger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { focusTable } from '../tables/focus.ts';
import { deriveFocusUnit, type FocusManifest, focusManifestKey } from './derive.ts';
import { focusCandidates, objectDamage } from './focus-candidates.ts';

/**
 * The schema version every FOCUS unit of the destination was last derived in (see exportFocus);
 * beside the claims, not among the manifests (it describes no unit).
 */
export const FOCUS_SCHEMA_MARK = '_focus-schema.json';

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
  /** Read every focus object back and compare its SHA-256 with its manifest's (--verify). */
  readonly verify?: boolean;
}

export interface FocusPassSummary {
  /** Units whose FOCUS object was written, or removed after a proven costs removal. */
  readonly written: number;
  readonly removed: number;
  /** Units already derived from the costs object their manifest names now. */
  readonly current: number;
  /** Units whose FOCUS object was not what its manifest said (damaged, truncated, deleted): derived anew. */
  readonly repaired: number;
  readonly rows: number;
  readonly failures: ReadonlyArray<{ dataSourceId: string; date: string; code: string; message: string }>;
  /** Units left for the next run: the run's time ran short. */
  readonly notStarted: number;
}

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
  // A new schema version re-derives every unit anywhere, once: listings alone cannot tell a unit's
  // version, so a mark records the version the whole destination was last derived in.
  const mark = await deps.sink.read(FOCUS_SCHEMA_MARK).catch(() => undefined);
  const markedVersion = schemaVersionOf(mark);
  const everyUnit = deps.verify === true || markedVersion !== focusTable.schemaVersion;
  const candidates = await focusCandidates(deps.sink, window, everyUnit);
  let names: Promise<FocusNamesRead> | undefined;
  let written = 0;
  let removed = 0;
  let current = 0;
  let repaired = 0;
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
    // The costs object itself, from the listing (its checksum only when it moved): one replaced or
    // deleted behind the exporter's back is not derived from; the run exports the day again.
    const sourceDamage =
      costs.key === null
        ? undefined
        : await objectDifference(deps.sink, costs, costs.key, c.costsObject, false);
    if (sourceDamage) {
      const message = `${costs.key} is not what its manifest says (${sourceDamage}): the costs day is exported again`;
      failures.push({ dataSourceId: c.dataSourceId, date: c.date, code: 'FOCUS_SOURCE_DAMAGED', message });
      return;
    }
    const damage = focus
      ? await objectDamage(deps.sink, focus, c.focusObject, deps.verify === true)
      : undefined;
    if (!damage && (derivedFrom(focus, costs) || (costs.key === null && !c.hasFocus))) {
      current++;
      return;
    }
    if (damage) log.warn('focus object damaged; deriving it anew', { key: focus?.key, why: damage });
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
    if (damage) repaired++;
    rows += outcome.value.rows;
  });
  const summary = { written, removed, current, repaired, rows, failures, notStarted };
  if (everyUnit && failures.length === 0 && notStarted === 0 && markedVersion !== focusTable.schemaVersion) {
    const text = `${JSON.stringify({ schemaVersion: focusTable.schemaVersion, at: new Date().toISOString() })}\n`;
    await deps.sink.put(FOCUS_SCHEMA_MARK, text, 'application/json');
  }
  log.info('focus pass finished', { ...summary, failures: failures.slice(0, 20) });
  return summary;
}

function schemaVersionOf(mark: string | undefined): number | undefined {
  try {
    const version = (JSON.parse(mark ?? '') as { schemaVersion?: unknown }).schemaVersion;
    return typeof version === 'number' ? version : undefined;
  } catch {
    return undefined;
  }
}
