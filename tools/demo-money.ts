// The demo's money table: month-to-date spend in USD per provider as Cloudforet's unified costs
// hold it, beside the exported daily rows converted through the saved views (as in Athena).
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadNamedQueries } from '../infra/named-queries.ts';

export async function monthToDateUsd(out: string, month: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const tables = { costs: 'billed_date', unified_costs: 'billed_month' };
    for (const [table, key] of Object.entries(tables)) {
      // A table, not a view: DuckDB 1.5.5 fails some aggregates answered from file statistics.
      await connection.run(
        `CREATE TABLE ${table} AS SELECT * FROM read_parquet('${join(out, table, '*', '*.parquet')}', ` +
          `hive_partitioning = true, hive_types = {'${key}': VARCHAR}, union_by_name = true)`,
      );
    }
    // The demo's window is never a confirmed month, so nothing is compacted: costs_combined (which
    // costs_converted reads) is costs here, through the shipped view over empty compacted tables.
    await connection.run('CREATE TABLE costs_monthly AS SELECT * FROM costs LIMIT 0');
    await connection.run(
      'CREATE TABLE compaction_state (table_name VARCHAR, through_month VARCHAR, through_date VARCHAR)',
    );
    const views = (name: string) => name === 'create_costs_combined_view' || /^create_view_[12]_/.test(name);
    for (const q of loadNamedQueries().filter((q) => views(q.name))) await connection.run(q.sql);
    const result = await connection.runAndReadAll(
      `WITH mtd AS (
         SELECT provider, round(sum(cost_usd), 2) AS month_to_date_usd FROM unified_costs
         WHERE billed_month = '${month}' GROUP BY provider),
       days AS (
         SELECT provider, string_agg(DISTINCT currency, ', ') AS reported_in,
                round(sum(cost_usd), 2) AS exported_days_usd, bool_or(rate_is_fallback) AS fallback_rate
         FROM costs_converted WHERE substr(billed_date, 1, 7) = '${month}' GROUP BY provider)
       SELECT d.provider, d.reported_in, m.month_to_date_usd, d.exported_days_usd, d.fallback_rate
       FROM days d LEFT JOIN mtd m ON m.provider = d.provider ORDER BY d.provider`,
    );
    return result.getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}
