// The revisions ledger: one line per superseded object kept for good (destination/gate.ts keepRevision),
// appended once the object replacing it is committed (or it is removed) and before the unit's
// manifest, so its `superseded_at` is the exported_at of what actually replaced it.
import type { KeptRevision } from '../destination/gate.ts';
import { ledgerKey } from '../destination/layout.ts';
import type { UnitManifest } from '../destination/manifest.ts';
import type { Sink } from '../storage/sink.ts';
import { revisionsTable } from '../tables/ledger.ts';
import { appendLedger } from './ledger.ts';

/** One row of the revisions table; its column names are the Glue table's. */
export interface RevisionRecord {
  readonly table_name: string;
  readonly partition_value: string;
  readonly unit: string;
  readonly object_key: string;
  readonly revision_key: string;
  readonly revision_sha256: string;
  readonly revision_bytes: number;
  readonly revision_rows: number | null;
  readonly current_since: string | null;
  readonly superseded_at: string;
  readonly outcome: 'replaced' | 'removed';
  readonly reason: string;
  readonly evidence: string;
  readonly new_rows: number;
  readonly run_id: string;
}

/** `costs/billed_date=D/ds-1.parquet` -> its table and unit name. */
function unitOf(key: string): { table: string; unit: string } {
  return {
    table: key.slice(0, key.indexOf('/')),
    unit: key.slice(key.lastIndexOf('/') + 1, -'.parquet'.length),
  };
}

export async function recordRevision(
  sink: Sink,
  manifestKey: string,
  e: {
    readonly key: string;
    readonly kept: KeptRevision;
    /** The manifest the superseded object was published with (undefined: none was found). */
    readonly before: UnitManifest | undefined;
    /** The new manifest: its exportedAt is when the old object stopped being current. */
    readonly after: Readonly<Record<string, unknown>>;
    readonly reason: string;
    readonly evidence?: string;
  },
): Promise<RevisionRecord> {
  const { table, unit } = unitOf(e.key);
  const newRows = typeof e.after.rows === 'number' ? e.after.rows : 0;
  const supersededAt = typeof e.after.exportedAt === 'string' ? e.after.exportedAt : new Date().toISOString();
  const same = e.before?.sha256 === undefined || e.before.sha256 === e.kept.sha256;
  const oldRows = same ? (e.before?.rows ?? null) : null;
  const row: RevisionRecord = {
    table_name: table,
    partition_value: String(e.after.partition ?? e.before?.partition ?? ''),
    unit,
    object_key: e.key,
    revision_key: e.kept.key,
    revision_sha256: e.kept.sha256,
    revision_bytes: e.kept.bytes,
    revision_rows: oldRows,
    // An object that was not the manifest's (a crashed attempt's commit) has no recorded export time.
    current_since: same ? (e.before?.exportedAt ?? null) : null,
    superseded_at: supersededAt,
    outcome: newRows > 0 ? 'replaced' : 'removed',
    reason: e.reason,
    evidence: e.evidence ?? `rows ${oldRows ?? '?'} -> ${newRows}`,
    new_rows: newRows,
    run_id: typeof e.after.runId === 'string' ? e.after.runId : '',
  };
  await appendLedger(sink, ledgerKey(revisionsTable, supersededAt, manifestKey), row);
  return row;
}
