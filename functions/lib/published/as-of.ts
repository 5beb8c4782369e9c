// A table exactly as a reader saw it at one instant, read from the destination alone: for each unit
// (partition and object name), the object that was current then, among the current objects and the
// revisions kept for good (destination/gate.ts keepRevision). An object is current from its rows' export
// stamp to the next version's stamp of the unit, or to its removal (the revisions ledger's line);
// the same rules as the `<table>_versions` views (infra/queries/create_costs_versions_view.sql).
import { ledgerPrefix, revisionsTableName } from '../destination/layout.ts';
import type { Sink } from '../storage/sink.ts';
import { parquetRowGroups, type Row } from './read-objects.ts';

/** What the reader needs of a table: its folder, partition columns and the column of its export stamp. */
export interface VersionedTable {
  readonly name: string;
  readonly partitionKey: string;
  readonly dayKey?: string;
  readonly stampColumn: string;
}

interface Version {
  readonly from: number;
  readonly key: string;
  readonly rows: Row[];
}

/** `costs/billed_date=D/ds.parquet` or `costs_revisions/billed_date=D/ds~<sha>.parquet` -> the unit. */
function unitOf(key: string): { unit: string; partitions: Record<string, string> } | undefined {
  const parts = key.split('/');
  const file = parts.at(-1) ?? '';
  if (!file.endsWith('.parquet')) return undefined;
  const name = file.slice(0, -'.parquet'.length).replace(/~[0-9a-f]{16}$/, '');
  const partitions = Object.fromEntries(
    parts.slice(1, -1).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
  );
  return { unit: `${parts.slice(1, -1).join('/')}/${name}`, partitions };
}

const stampOf = (value: unknown): number | undefined =>
  value instanceof Date ? value.getTime() : typeof value === 'number' ? value : undefined;

/** The partition value the revisions ledger names a unit by (a day for a table with a day key). */
function ledgerPartition(table: VersionedTable, partitions: Record<string, string>): string {
  const value = partitions[table.partitionKey] ?? '';
  return table.dayKey ? `${value}-${partitions[table.dayKey] ?? ''}` : value;
}

/** When each unit was removed, from the revisions ledger: `<partition value>/<name>` -> instants. */
async function removals(sink: Sink, table: VersionedTable): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  for (const key of await sink.list(ledgerPrefix('revisions'))) {
    if (!key.endsWith('.json')) continue;
    for (const line of (await sink.read(key))?.split('\n') ?? []) {
      if (line.trim() === '') continue;
      const r = JSON.parse(line) as Record<string, unknown>;
      if (r.table_name !== table.name || r.outcome !== 'removed') continue;
      const id = `${String(r.partition_value)}/${String(r.unit)}`;
      found.set(id, [...(found.get(id) ?? []), Date.parse(String(r.superseded_at))]);
    }
  }
  return found;
}

/**
 * Every row of `table` a reader read at `at`, with its partition columns, from the objects whose
 * partition passes `keep` (a window: fewer objects read). Each object is read whole once.
 */
export async function readAsOf(
  sink: Sink,
  table: VersionedTable,
  at: Date,
  keep: (partitions: Record<string, string>) => boolean = () => true,
): Promise<Row[]> {
  const keys = [
    ...(await sink.list(`${table.name}/`)),
    ...(await sink.list(`${revisionsTableName(table.name)}/`)),
  ];
  const units = new Map<string, { partitions: Record<string, string>; versions: Version[] }>();
  for (const key of keys) {
    const unit = unitOf(key);
    if (!unit || !keep(unit.partitions)) continue;
    const rows: Row[] = [];
    for await (const group of parquetRowGroups((await sink.readBytes(key)) ?? new Uint8Array())) {
      rows.push(...group.map((r) => ({ ...r, ...unit.partitions })));
    }
    const from = stampOf(rows[0]?.[table.stampColumn]);
    if (from === undefined) continue;
    const entry = units.get(unit.unit) ?? { partitions: unit.partitions, versions: [] };
    // A revision of the very object still current (kept before a replacement that did not happen): once.
    if (!entry.versions.some((v) => v.from === from)) entry.versions.push({ from, key, rows });
    units.set(unit.unit, entry);
  }
  const removed = await removals(sink, table);
  const instant = at.getTime();
  const seen: Row[] = [];
  for (const [id, { partitions, versions }] of units) {
    const sorted = versions.sort((a, b) => a.from - b.from);
    const current = sorted.filter((v) => v.from <= instant).at(-1);
    if (!current) continue;
    const name = id.slice(id.lastIndexOf('/') + 1);
    const gone = removed.get(`${ledgerPartition(table, partitions)}/${name}`) ?? [];
    if (gone.some((t) => t > current.from && t <= instant)) continue;
    seen.push(...current.rows);
  }
  return seen;
}
