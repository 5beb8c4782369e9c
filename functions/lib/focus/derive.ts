// One focus unit: the FOCUS rows of one (data source, billed day), derived from the costs object
// that unit's manifest names, through the one export flow (atomic replace, ledger row, manifest).
// The costs object is the only input besides names, so archived days past Cloudforet's
// retention get their FOCUS rows too, and a restated day's rows replace the old ones.

import { createHash } from 'node:crypto';
import type { CloudforetClient } from '../cloudforet/client.ts';
import { markCompactionDirty } from '../destination/compaction-state.ts';
import { proveDerivedFrom, proveSourceRemoved } from '../destination/gate.ts';
import { manifestKey, objectKey } from '../destination/layout.ts';
import type { UnitManifest } from '../destination/manifest.ts';
import { ExportError, UnprovenRemovalError } from '../errors.ts';
import { type Compression, exportListing } from '../export/listing-export.ts';
import { parquetRowGroups } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { type FocusContext, focusTable } from '../tables/focus.ts';
import type { FocusNames } from './names.ts';

export interface FocusUnitDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly names: FocusNames;
  readonly now?: () => Date;
  readonly compression?: Compression;
  readonly rowGroupRows?: number;
  readonly signal?: AbortSignal;
}

/** What a focus unit's manifest adds to the common fields: the costs object it was made from. */
export interface FocusManifest extends UnitManifest {
  readonly sourceKey: string | null;
  readonly sourceSha256?: string;
  readonly sourceRows: number;
}

/** The row's BilledCost, as its column computes it (the manifest's costSum sums these). */
const billedColumn = focusTable.columns.find((c) => c.name === 'BilledCost');
const billedCostOf = (row: Record<string, unknown>, context: FocusContext): number => {
  const value = billedColumn?.value(row, context);
  return typeof value === 'number' ? value : 0;
};

export const focusObjectKey = (dataSourceId: string, date: string) =>
  objectKey(focusTable, date, dataSourceId);
export const focusManifestKey = (dataSourceId: string, date: string) =>
  manifestKey(focusTable, date, dataSourceId);

export interface FocusUnitResult {
  readonly dataSourceId: string;
  readonly date: string;
  readonly outcome: 'written' | 'removed' | 'empty' | 'kept';
  readonly rows: number;
  readonly billedCost: number;
}

/**
 * Derives the focus object of the costs unit `source` describes. A costs manifest naming no
 * object records a proven removal (days/export-day.ts): the focus object goes too. A costs object
 * whose bytes do not match its manifest's checksum is not read: the next cost run repairs it.
 */
export async function deriveFocusUnit(deps: FocusUnitDeps, source: UnitManifest): Promise<FocusUnitResult> {
  const dataSourceId = source.dataSourceId ?? '';
  const date = source.partition;
  const now = deps.now?.() ?? new Date();
  const context: FocusContext = { ...deps.names, exportedAtMs: now.getTime() };
  let billedCost = 0;
  let rows = 0;
  let bytes: Uint8Array | undefined;
  if (source.key !== null) {
    bytes = await deps.sink.readBytes(source.key);
    if (bytes === undefined) {
      throw new ExportError('FOCUS_SOURCE_MISSING', `${source.key} is named by its manifest but not there`);
    }
    if (source.sha256 !== undefined) {
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (sha !== source.sha256) {
        throw new ExportError(
          'FOCUS_SOURCE_DAMAGED',
          `${source.key} does not match its manifest's checksum: the next cost run repairs it, then its FOCUS rows follow`,
        );
      }
    }
  }
  const costBytes = bytes;
  // A compacted month whose day is about to change is marked, for the compaction step.
  const leaveCompaction = () =>
    markCompactionDirty(deps.sink, focusTable.name, date.slice(0, 7), dataSourceId || 'unknown');
  const result = await exportListing(
    { client: deps.client, sink: deps.sink, signal: deps.signal, compression: deps.compression },
    {
      list: { path: `costs object ${source.key ?? '(none)'}`, idKey: 'cost_id' },
      pages: async function* () {
        if (!costBytes) return;
        for await (const group of parquetRowGroups(costBytes)) {
          for (const row of group) {
            row.billed_date = date;
            billedCost += billedCostOf(row, context);
          }
          rows += group.length;
          yield group;
        }
      },
      table: focusTable,
      context,
      key: focusObjectKey(dataSourceId, date),
      manifestKey: focusManifestKey(dataSourceId, date),
      kvMetadata: {
        data_source_id: dataSourceId,
        billed_date: date,
        run_id: deps.runId,
        focus_version: '1.3',
      },
      rowGroupRows: deps.rowGroupRows,
      revisionReason: `derived again: its costs day is now ${source.key ?? 'removed'} (exported ${source.exportedAt})`,
      // One FOCUS row per cost row, or nothing is published.
      beforePublish: async () => {
        if (rows !== (source.key === null ? 0 : source.rows)) {
          throw new ExportError(
            'FOCUS_ROWS_DIFFER',
            `${source.key}: its manifest counts ${source.rows} rows, the object holds ${rows}`,
          );
        }
        if (rows > 0) await leaveCompaction();
      },
      // An empty costs object cannot be (the export writes none); no object means a removal, which
      // the FOCUS object follows only when the costs manifest records the gate's proof.
      whenEmpty: async (_signal, published) => {
        if (source.key !== null) return 'keep';
        if (!published) return 'none';
        const proof = proveSourceRemoved(source);
        if (proof) {
          await leaveCompaction();
          return proof;
        }
        throw new UnprovenRemovalError(
          'REMOVAL_UNPROVEN',
          `${focusManifestKey(dataSourceId, date)}: its costs day has no object, but the costs manifest records ` +
            'no proof of the removal (written before 0.9): the FOCUS rows are kept; re-export the day with --force',
        );
      },
      whenFewer: async (_signal, _published, written) =>
        proveDerivedFrom(source.key ?? '', source.sha256, written),
      manifest: (published): FocusManifest => ({
        table: focusTable.name,
        partition: date,
        dataSourceId,
        ...published,
        totalCount: source.rows,
        costSum: published.rows > 0 ? billedCost : 0,
        sourceKey: source.key,
        ...(source.sha256 && { sourceSha256: source.sha256 }),
        sourceRows: source.rows,
        schemaVersion: focusTable.schemaVersion,
        runId: deps.runId,
        exportedAt: now.toISOString(),
      }),
    },
  );
  return {
    dataSourceId,
    date,
    outcome: result.outcome,
    rows: result.rows,
    billedCost: result.rows > 0 ? billedCost : 0,
  };
}
