// A Glue table with registered partitions, read in DuckDB as Athena reads it: each partition's
// folder listed (every object in it), its columns read by position (the table's
// parquet.column.index.access, so focus_monthly's x_BilledCost is the table's BilledCost), and its
// partition values as the partition columns. Local folders stand for S3 locations: `root` is the
// catalog's location prefix, `dir` the folder it stands for.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogPartition } from '../functions/lib/compaction/focus-catalog.ts';

export interface CatalogTable {
  readonly name: string;
  /** The table's data columns in order (Glue's StorageDescriptor.Columns). */
  readonly columns: readonly string[];
  /** The partition keys in order. */
  readonly partitionKeys: readonly string[];
}

/** The objects each partition's folder holds (what Athena would list), local paths. */
export function partitionObjects(
  partitions: readonly CatalogPartition[],
  root: string,
  dir: string,
): string[][] {
  return partitions.map((p) => {
    if (!p.location.startsWith(root)) throw new Error(`${p.location} is not under ${root}`);
    const folder = join(dir, p.location.slice(root.length));
    let names: string[] = [];
    try {
      names = readdirSync(folder).filter((n) => n.endsWith('.parquet'));
    } catch {
      // A partition whose folder is gone reads as empty, as in Athena.
    }
    return names.sort().map((n) => join(folder, n));
  });
}

/** Creates view `table.name` over the partitions' objects; returns how many objects it reads. */
export async function createCatalogView(
  connection: DuckDBConnection,
  table: CatalogTable,
  partitions: readonly CatalogPartition[],
  root: string,
  dir: string,
): Promise<number> {
  const objects = partitionObjects(partitions, root, dir);
  const selects: string[] = [];
  for (const [i, p] of partitions.entries()) {
    const files = objects[i]!;
    if (files.length === 0) continue;
    const list = `[${files.map((f) => `'${f}'`).join(', ')}]`;
    const source = `read_parquet(${list}, hive_partitioning = false)`;
    const described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS();
    const fileColumns = described.map((r) => String(r.column_name));
    const byPosition = table.columns.map((c, n) =>
      n < fileColumns.length ? `"${fileColumns[n]}" AS "${c}"` : `NULL AS "${c}"`,
    );
    const keys = table.partitionKeys.map((k, n) => `'${p.values[n]}' AS "${k}"`);
    selects.push(`SELECT ${[...byPosition, ...keys].join(', ')} FROM ${source}`);
  }
  if (selects.length === 0) {
    const all = [...table.columns, ...table.partitionKeys].map((c) => `NULL AS "${c}"`).join(', ');
    await connection.run(`CREATE OR REPLACE VIEW ${table.name} AS SELECT ${all} WHERE false`);
  } else {
    await connection.run(`CREATE OR REPLACE VIEW ${table.name} AS ${selects.join('\nUNION ALL\n')}`);
  }
  return objects.reduce((n, files) => n + files.length, 0);
}
