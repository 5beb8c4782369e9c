// The run ledger: one JSON line per exported unit version, appended and never rewritten, so
// Athena (JSON SerDe: one object per line) can read it while the manifests stay pretty-printed
// for planning. It lives outside every table folder, partitioned by export day (layout.ts).

import { ledgerKey } from '../destination/layout.ts';
import { redactValue } from '../redact/redact.ts';
import type { Sink } from '../storage/sink.ts';
import { exportUnitsTable } from '../tables/ledger.ts';

/** One row of the export_units table; its column names are the Glue table's. */
export interface ExportUnitRecord {
  readonly table_name: string;
  readonly partition_value: string;
  /** The data source id (costs) or the object name of the scope ('domain' or a workspace id). */
  readonly source: string;
  readonly scope: string | null;
  readonly object_key: string | null;
  readonly row_count: number;
  readonly total_count: number | null;
  readonly cost_sum: number | null;
  readonly analyze_rows: number | null;
  readonly analyze_cost_sum: number | null;
  readonly bytes: number;
  readonly schema_version: number | null;
  readonly run_id: string;
  readonly exported_at: string;
  readonly last_synchronized_at: string | null;
  /** Everything else the manifest holds (what the change check compared), as a JSON string. */
  readonly change_check: string;
}

const KNOWN = new Set([
  'table',
  'partition',
  'dataSourceId',
  'scope',
  'key',
  'rows',
  'totalCount',
  'costSum',
  'analyzeRows',
  'analyzeCostSum',
  'bytes',
  'schemaVersion',
  'runId',
  'exportedAt',
  'lastSynchronizedAt',
]);

/** The ledger row of a manifest, whatever kind of export wrote it. */
export function exportUnitRecord(
  manifest: Readonly<Record<string, unknown>>,
  name: string,
): ExportUnitRecord {
  const str = (k: string) => (typeof manifest[k] === 'string' ? (manifest[k] as string) : null);
  const num = (k: string) => (typeof manifest[k] === 'number' ? (manifest[k] as number) : null);
  const rest = Object.fromEntries(Object.entries(manifest).filter(([k]) => !KNOWN.has(k)));
  return {
    table_name: str('table') ?? '',
    partition_value: str('partition') ?? '',
    source: str('dataSourceId') ?? name,
    scope: str('scope'),
    object_key: str('key'),
    row_count: num('rows') ?? 0,
    total_count: num('totalCount'),
    cost_sum: num('costSum'),
    analyze_rows: num('analyzeRows'),
    analyze_cost_sum: num('analyzeCostSum'),
    bytes: num('bytes') ?? 0,
    schema_version: num('schemaVersion'),
    run_id: str('runId') ?? '',
    exported_at: str('exportedAt') ?? new Date().toISOString(),
    last_synchronized_at: str('lastSynchronizedAt'),
    change_check: JSON.stringify(rest),
  };
}

/**
 * Appends one line-delimited JSON object; a new key each time, so nothing is ever replaced. Its
 * strings pass the one redactor: a ledger row outlives the run and is read by anyone with Athena.
 */
export async function appendLedger(sink: Sink, key: string, record: object): Promise<void> {
  await sink.put(key, `${JSON.stringify(redactValue(record))}\n`, 'application/x-ndjson');
}

/** The ledger row of the unit whose manifest goes to `manifestKey`, appended before that manifest. */
export async function recordExportUnit(
  sink: Sink,
  manifestKey: string,
  manifest: Readonly<Record<string, unknown>>,
): Promise<void> {
  const name =
    manifestKey
      .split('/')
      .at(-1)
      ?.replace(/\.json$/, '') ?? '';
  const record = exportUnitRecord(manifest, name);
  await appendLedger(sink, ledgerKey(exportUnitsTable, record.exported_at, manifestKey), record);
}
