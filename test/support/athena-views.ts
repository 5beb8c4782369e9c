// A DuckDB session over an export directory with each table as Athena would see it (partition
// folders as VARCHAR columns), and the saved create_view_ queries run against it, translated and
// answered as Athena would (harness/duckdb-athena.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { COMPACTION_STATE_DIR } from '../../functions/lib/destination/layout.ts';
import { prepareSession, trinoToDuckDb } from '../../harness/duckdb-athena.ts';
import type { Row } from '../../harness/parquet-readers.ts';
import { loadNamedQueries } from '../../infra/named-queries.ts';

export interface AthenaLike {
  run(sql: string): Promise<Row[]>;
  close(): void;
}

const PARTITIONS: Record<string, string> = {
  costs: 'billed_date',
  unified_costs: 'billed_month',
  budgets: 'snapshot_date',
  budget_usage: 'snapshot_date',
  costs_monthly: 'billed_month',
};

const STATE_COLUMNS = "table_name: 'VARCHAR', through_month: 'VARCHAR', through_date: 'VARCHAR'";

/** Views named like the Glue tables over `dir`, then the saved view definitions, in their order. */
export async function athenaLike(dir: string): Promise<AthenaLike> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await prepareSession(connection);
  const run = async (sql: string) =>
    (await connection.runAndReadAll(trinoToDuckDb(sql))).getRowObjectsJS() as Row[];
  for (const [table, key] of Object.entries(PARTITIONS)) {
    if (!existsSync(join(dir, table))) continue;
    // A table, not a view: DuckDB 1.5.5 fails max(partition) answered from one file's statistics.
    await run(
      `CREATE OR REPLACE TABLE ${table} AS SELECT * FROM read_parquet('${join(dir, table)}/*/*.parquet', ` +
        `hive_partitioning = true, hive_types = {'${key}': VARCHAR}, union_by_name = true)`,
    );
  }
  // Nothing compacted yet: Athena's costs_monthly and compaction_state are there, empty.
  if (existsSync(join(dir, 'costs')) && !existsSync(join(dir, 'costs_monthly'))) {
    await run('CREATE TABLE costs_monthly AS SELECT * FROM costs LIMIT 0');
  }
  const state = join(dir, COMPACTION_STATE_DIR);
  await run(
    existsSync(state)
      ? `CREATE TABLE compaction_state AS SELECT * FROM read_json('${state}/*.json', format = 'newline_delimited', columns = {${STATE_COLUMNS}})`
      : 'CREATE TABLE compaction_state (table_name VARCHAR, through_month VARCHAR, through_date VARCHAR)',
  );
  // The views stand on costs and unified_costs; an inventory-only export has neither.
  // The money views (over costs_combined); costs_named_converted also needs the inventory's names.
  const views = loadNamedQueries().filter(
    (q) =>
      (q.name.startsWith('create_view_') || q.name === 'create_costs_combined_view') &&
      !/\bcosts_named\b/.test(q.sql),
  );
  if (existsSync(join(dir, 'unified_costs'))) for (const query of views) await run(query.sql);
  return {
    run,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A saved query's SQL by name. */
export function savedQuery(name: string): string {
  const found = loadNamedQueries().find((q) => q.name === name);
  if (!found) throw new Error(`no saved query ${name}`);
  return found.sql;
}
