// The cost_restatements ledger: one line each time a published cost day is replaced or removed,
// with the old and new figures and why. Append-only (a new key per restatement), so the history
// outlives the bucket's expiry of noncurrent object versions.

import { ledgerKey, revisionKey } from '../../destination/layout.ts';
import { parseManifest, type UnitManifest } from '../../destination/manifest.ts';
import { appendLedger } from '../../export/ledger.ts';
import type { Sink } from '../../storage/sink.ts';
import { costRestatementsTable } from '../../tables/ledger.ts';
import { costManifestKey } from '../sources/day-keys.ts';
import {
  canonicalGroups,
  type GroupStat,
  sameGroups,
  sameSum,
  type WorkspaceOfVirtual,
} from '../sources/fingerprint.ts';

/** One row of the cost_restatements table; its column names are the Glue table's. */
export interface CostRestatement {
  readonly data_source_id: string;
  readonly billed_date: string;
  /** replaced: a new object; removed: the day has no rows any more, so no object. */
  readonly outcome: 'replaced' | 'removed';
  readonly reason: string;
  readonly old_rows: number;
  readonly old_cost_sum: number;
  readonly old_run_id: string;
  readonly old_exported_at: string;
  readonly new_rows: number;
  readonly new_cost_sum: number;
  readonly run_id: string;
  readonly restated_at: string;
  /** What proved the change: the figures that differ, or for a removal what confirmed the day empty. */
  readonly evidence: string;
  /** Where the replaced object is kept for good (destination/gate.ts keepRevision); null before 0.2 manifests. */
  readonly revision_key: string | null;
}

/**
 * The manifest a cost day was last published with, if any. Lists the day's folder first: a GET
 * of a missing key is answered 403, not 404, to a role that may list only under the prefix.
 */
export async function publishedCostDay(
  sink: Sink,
  dataSourceId: string,
  date: string,
): Promise<UnitManifest | undefined> {
  const key = costManifestKey(dataSourceId, date);
  const folder = key.slice(0, key.lastIndexOf('/') + 1);
  if (!(await sink.list(folder)).includes(key)) return undefined;
  const manifest = parseManifest(await sink.read(key));
  // A day removed earlier (no object) was not published: re-adding it restates nothing.
  return manifest && manifest.key !== null ? manifest : undefined;
}

export interface NewFigures {
  readonly outcome: 'written' | 'removed' | 'empty' | 'kept';
  readonly rows: number;
  readonly costSum: number;
  /** Row count and cost sum per attribution of what was written. */
  readonly groups?: readonly GroupStat[];
  /** A removal's proof that the day has no rows. */
  readonly evidence?: string;
}

/**
 * What differs between the published figures and the new ones; undefined when nothing does (the
 * same rows, sum and split re-exported: a forced run, a repair, a re-insert by a sync).
 */
export function differences(
  old: UnitManifest,
  next: NewFigures,
  workspaceOf: WorkspaceOfVirtual = new Map(),
): string | undefined {
  if (next.outcome === 'removed' || next.outcome === 'empty')
    return next.evidence ?? 'the day has no rows any more';
  const found: string[] = [];
  if (old.rows !== next.rows) found.push(`rows ${old.rows} -> ${next.rows}`);
  if (!sameSum(old.costSum ?? 0, next.costSum)) found.push(`cost sum ${old.costSum ?? 0} -> ${next.costSum}`);
  const before = old.groups && canonicalGroups(old.groups, workspaceOf);
  if (found.length === 0 && before && next.groups && !sameGroups(before, next.groups)) {
    found.push(`split across attributions changed (${before.length} -> ${next.groups.length} groups)`);
  }
  return found.length > 0 ? found.join('; ') : undefined;
}

/** Appends the restatement of a published day, when this export replaced or removed it. */
export async function recordCostRestatement(
  sink: Sink,
  old: UnitManifest | undefined,
  next: NewFigures,
  by: {
    readonly reason: string;
    readonly runId: string;
    readonly now?: Date;
    /** Keys older manifests' groups the way new ones are keyed (fingerprint.ts). */
    readonly workspaceOf?: WorkspaceOfVirtual;
  },
): Promise<CostRestatement | undefined> {
  if (!old?.dataSourceId || next.outcome === 'kept') return undefined;
  const evidence = differences(old, next, by.workspaceOf);
  if (evidence === undefined) return undefined;
  const restatedAt = (by.now ?? new Date()).toISOString();
  const row: CostRestatement = {
    data_source_id: old.dataSourceId,
    billed_date: old.partition,
    outcome: next.outcome === 'written' ? 'replaced' : 'removed',
    reason: by.reason,
    old_rows: old.rows,
    old_cost_sum: old.costSum ?? 0,
    old_run_id: old.runId,
    old_exported_at: old.exportedAt,
    new_rows: next.rows,
    new_cost_sum: next.costSum,
    run_id: by.runId,
    restated_at: restatedAt,
    evidence,
    revision_key: old.key && old.sha256 ? revisionKey(old.key, old.sha256) : null,
  };
  const unitPath = costManifestKey(old.dataSourceId, old.partition);
  await appendLedger(sink, ledgerKey(costRestatementsTable, restatedAt, unitPath), row);
  return row;
}

/**
 * Wraps one cost unit's export (each attempt of it) so that replacing a published day appends its
 * restatement. The published manifest is read once, before the first attempt writes anything.
 */
export function restating<R extends NewFigures>(
  sink: Sink,
  unit: {
    readonly dataSourceId: string;
    readonly date: string;
    readonly reason: string;
    readonly runId: string;
    readonly workspaceOf?: WorkspaceOfVirtual;
  },
  exportUnit: () => Promise<R>,
): () => Promise<R> {
  let before: { old: UnitManifest | undefined } | undefined;
  return async () => {
    before ??= { old: await publishedCostDay(sink, unit.dataSourceId, unit.date) };
    const result = await exportUnit();
    await recordCostRestatement(sink, before.old, result, unit);
    return result;
  };
}
