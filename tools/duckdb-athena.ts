// Runs the shipped Athena SQL in DuckDB over exported files. The light dialect changes are the only
// differences the shipped SQL meets: Trino's json_extract_scalar with a '$["key"]' path is DuckDB's
// json_extract_string with '$."key"', json_parse is json, and sequence is generate_series. Tables
// are views over the Parquet files (the run ledger's over its JSON lines) with the partition folder
// as a string column, as Glue declares it. DuckDB 1.5.5 answers
// max(snapshot_date) from one file's statistics and fails inside (index out of range), so the
// statistics propagation optimizer is off: the queries are Athena's, not tuned for DuckDB.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { ledgerPrefix } from '../functions/lib/storage/layout.ts';
import { exportTables } from '../functions/lib/tables/all-tables.ts';
import { ledgerTables } from '../functions/lib/tables/ledger.ts';

const LEDGER_TYPES = { string: 'VARCHAR', bigint: 'BIGINT', double: 'DOUBLE' } as const;

export function trinoToDuckDb(sql: string): string {
  return sql
    .replace(/json_extract_scalar\(/g, 'json_extract_string(')
    .replace(/'\$\["([^"]*)"\]'/g, `'$."$1"'`)
    .replace(/json_parse\(/g, 'json(')
    .replace(/\bsequence\(/g, 'generate_series(');
}

export interface AthenaLike {
  readonly connection: DuckDBConnection;
  run(sql: string): Promise<Record<string, unknown>[]>;
  describe(view: string): Promise<Array<{ name: string; type: string }>>;
  close(): void;
}

/** A DuckDB database with one view per exported table found under `dir`. */
export async function athenaOver(dir: string): Promise<AthenaLike> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run("SET disabled_optimizers = 'statistics_propagation'");
  for (const table of exportTables) {
    if (!existsSync(join(dir, table.name))) continue;
    const glob = join(dir, table.name, '*', '*.parquet');
    await connection.run(
      `CREATE VIEW ${table.name} AS SELECT * FROM read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false)`,
    );
  }
  for (const table of ledgerTables) await connection.run(ledgerView(dir, table));
  const run = async (sql: string) =>
    (await connection.runAndReadAll(trinoToDuckDb(sql))).getRowObjectsJS() as Record<string, unknown>[];
  return {
    connection,
    run,
    async describe(view) {
      const rows = await run(`DESCRIBE ${view}`);
      return rows.map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A ledger table as Glue declares it: JSON lines typed by its column list (empty when none yet). */
function ledgerView(dir: string, table: (typeof ledgerTables)[number]): string {
  const folder = join(dir, ledgerPrefix(table.name));
  const typed = table.columns.map((c) => `${c.name}: '${LEDGER_TYPES[c.type]}'`).join(', ');
  if (existsSync(folder)) {
    return (
      `CREATE VIEW ${table.name} AS SELECT * FROM read_json('${folder}/*/*.json', format = 'newline_delimited', ` +
      `columns = {${typed}}, hive_partitioning = true, hive_types_autocast = false)`
    );
  }
  const columns = [
    ...table.columns.map((c) => `${c.name} ${LEDGER_TYPES[c.type]}`),
    `${table.partitionKey} VARCHAR`,
  ];
  return `CREATE TABLE ${table.name} (${columns.join(', ')})`;
}
