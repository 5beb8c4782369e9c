// Runs the shipped Athena SQL in DuckDB over exported files, translated where DuckDB would answer
// differently from Athena engine 3 (Trino); each translation is pinned by a test of Trino's
// documented result (test/system/athena/duckdb-athena.test.ts). Tables are views over the Parquet files (the run
// ledger's over its JSON lines) with the partition folder as a string column, as Glue declares it.
// DuckDB 1.5.5 answers max(snapshot_date) from one file's statistics and fails inside (index out of
// range), so the statistics propagation optimizer is off: the queries are Athena's, not tuned for DuckDB.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { COMPACTION_STATE_DIR, ledgerPrefix } from '../functions/lib/destination/layout.ts';
import { exportTables } from '../functions/lib/tables/all-tables.ts';
import { compactedTables, compactionStateTable } from '../functions/lib/tables/compacted.ts';
import { ledgerTables } from '../functions/lib/tables/ledger.ts';
import { revisionTables } from '../functions/lib/tables/revisions.ts';

const LEDGER_TYPES = { string: 'VARCHAR', bigint: 'BIGINT', double: 'DOUBLE' } as const;
/** Parquet column types as DuckDB reads them from our files. */
const PARQUET_TYPES = {
  string: 'VARCHAR',
  json: 'VARCHAR',
  double: 'DOUBLE',
  bigint: 'BIGINT',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  map: 'MAP(VARCHAR, VARCHAR)',
} as const;

/** A date-typed operand as the shipped SQL writes one (no nesting beyond date_trunc of one). */
const DATE_OPERAND =
  String.raw`(?:current_date|DATE '\d{4}-\d\d-\d\d'|CAST\([\w.'-]+ AS date\)` +
  String.raw`|CAST\(date_trunc\('\w+', (?:current_date|DATE '[\d-]+'|CAST\([\w.'-]+ AS date\))\) AS date\))`;

/** current_date and current_timestamp as literals of one instant (UTC). */
function atClock(sql: string, now: Date): string {
  const iso = now.toISOString();
  return sql
    .replace(/\bcurrent_date\b/gi, `DATE '${iso.slice(0, 10)}'`)
    .replace(/\bcurrent_timestamp\b/gi, `TIMESTAMPTZ '${iso.slice(0, 10)} ${iso.slice(11, 23)}+00'`);
}

/**
 * Trino's SQL as DuckDB answers it the same way:
 * - date_trunc of a date and date ± a day/month/year interval stay DATE in Trino ("date_trunc(unit, x)
 *   -> [same as input]"; "date '2012-08-08' - interval '2' day | 2012-08-06"), where DuckDB makes them
 *   TIMESTAMP, so CAST(… AS varchar) gave 'YYYY-MM-DD 00:00:00' and a string range lost its first day;
 * - json_extract_scalar of an object or array is NULL ("The value referenced by json_path must be a
 *   scalar"), where DuckDB's json_extract_string gives the JSON text;
 * - TRY_CAST(json_parse(x) AS map(varchar, varchar)) is NULL when any value is an object or array
 *   (Trino casts JSON to VARCHAR only from scalars), where DuckDB keeps the JSON text as the value;
 * - date_diff counts whole units elapsed ("Returns timestamp2 - timestamp1 expressed in terms of
 *   unit"): DuckDB's date_sub; DuckDB's date_diff counts unit boundaries crossed;
 * - element_at(map, key) is the value or NULL ("Returns value for given key, or NULL if the key is not
 *   contained in the map"), where DuckDB's element_at gives a list of it;
 * - date_add(unit, value, x) is x + value units, a date for a date ("date_add(unit, value, timestamp)
 *   -> [same as input]"); DuckDB's date_add takes (x, interval);
 * - date_format(x, format) is strftime: the MySQL-style specifiers the shipped and CID's SQL use
 *   (%Y, %m, %d) mean the same there; DuckDB has no date_format;
 * - json_format(json) is the JSON text ("Returns the JSON text serialized from the input JSON
 *   value"): a cast to VARCHAR; DuckDB has no json_format;
 * - MAP<K,V> in a type (Trino's legacy spelling, which Athena DDL and CID use) is MAP(K, V);
 * - json_parse is json, sequence is generate_series, last_day_of_month is last_day, '$["key"]'
 *   paths are '$."key"';
 * - a WITH query is inlined wherever it is named ("The WITH clause will be inlined anywhere the named
 *   relation is used", Trino's docs, sql/select.md), so a filter on one use prunes that use's scan:
 *   `AS NOT MATERIALIZED`, where DuckDB materializes a query named twice and reads it whole once.
 * With `now`, current_date and current_timestamp are that instant's (UTC): a test's fixed clock.
 */
export function trinoToDuckDb(sql: string, now?: Date): string {
  let out = now ? atClock(sql, now) : sql;
  out = out
    .replace(/TRY_CAST\(json_parse\(([\w.]+)\) AS map\(varchar, varchar\)\)/gi, 'trino_json_varchar_map($1)')
    .replace(/\bjson_extract_scalar\(/g, 'trino_json_extract_scalar(')
    .replace(/\belement_at\(/gi, 'trino_element_at(')
    .replace(/\bdate_format\(/gi, 'strftime(')
    .replace(/\bjson_format\(/gi, 'trino_json_format(')
    .replace(/\bMAP<(\w+),\s*(\w+)>/gi, 'MAP($1, $2)')
    .replace(/'\$\["([^"]*)"\]'/g, `'$."$1"'`)
    .replace(/\bjson_parse\(/g, 'json(')
    .replace(/\bsequence\(/g, 'generate_series(')
    .replace(/\bdate_diff\(/g, 'date_sub(')
    .replace(/\blast_day_of_month\(/g, 'last_day(')
    .replace(/(\bWITH\s+|,\s*)(\w+)(\s*\([\w\s,]*\))?\s+AS\s+\(/gi, '$1$2$3 AS NOT MATERIALIZED (')
    .replace(
      /date_trunc\('(\w+)', (current_date|DATE '[\d-]+'|CAST\([\w.'-]+ AS date\))\)/gi,
      "CAST(date_trunc('$1', $2) AS date)",
    );
  const arithmetic = new RegExp(
    String.raw`(${DATE_OPERAND}) ([+-]) INTERVAL '(\d+)' (DAY|MONTH|YEAR)\b`,
    'gi',
  );
  out = out.replace(arithmetic, "CAST($1 $2 INTERVAL '$3' $4 AS date)");
  const dateAdd = String.raw`\bdate_add\('(\w+)', (-?\d+), `;
  out = out
    .replace(new RegExp(`${dateAdd}(${DATE_OPERAND})\\)`, 'gi'), 'CAST($3 + INTERVAL ($2) $1 AS date)')
    .replace(new RegExp(`${dateAdd}([\\w."]+)\\)`, 'gi'), '($3 + INTERVAL ($2) $1)');
  return out;
}

/** Macros the translation calls, and Athena's session: UTC, whatever the machine's zone. */
const SESSION = [
  "SET TimeZone = 'UTC'",
  "SET disabled_optimizers = 'statistics_propagation'",
  `CREATE OR REPLACE MACRO trino_json_extract_scalar(j, p) AS
     CASE WHEN json_type(j, p) IN ('OBJECT', 'ARRAY') THEN NULL ELSE json_extract_string(j, p) END`,
  'CREATE OR REPLACE MACRO trino_element_at(m, k) AS m[k]',
  'CREATE OR REPLACE MACRO trino_json_format(j) AS CAST(j AS VARCHAR)',
  `CREATE OR REPLACE MACRO trino_json_varchar_map(j) AS
     CASE WHEN coalesce(list_bool_or(list_transform(map_values(TRY_CAST(json(j) AS MAP(VARCHAR, JSON))),
       v -> json_type(v) IN ('OBJECT', 'ARRAY'))), false) THEN NULL
     ELSE TRY_CAST(json(j) AS MAP(VARCHAR, VARCHAR)) END`,
];

/** Readies a DuckDB connection to answer translated Trino SQL as Athena would. */
export async function prepareSession(connection: DuckDBConnection): Promise<void> {
  for (const statement of SESSION) await connection.run(statement);
}

export interface AthenaLike {
  readonly connection: DuckDBConnection;
  run(sql: string): Promise<Record<string, unknown>[]>;
  describe(view: string): Promise<Array<{ name: string; type: string }>>;
  close(): void;
}

export interface AthenaOptions {
  /** Athena's clock for current_date and current_timestamp; the machine's (in UTC) by default. */
  readonly now?: Date;
}

/** A DuckDB database with one view per exported table found under `dir`. */
export async function athenaOver(dir: string, options: AthenaOptions = {}): Promise<AthenaLike> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await prepareSession(connection);
  await createTableViews(connection, dir);
  return athenaLike(instance, connection, options);
}

/** One view per exported table found under `dir` (a ledger, compacted or revisions table empty when none), in the current schema. */
export async function createTableViews(connection: DuckDBConnection, dir: string): Promise<void> {
  for (const table of exportTables) {
    if (!existsSync(join(dir, table.name))) {
      // A destination with nothing compacted yet: Athena's table is there, empty; so is this one.
      const alwaysThere = [...compactedTables, ...revisionTables];
      if (alwaysThere.some((t) => t.name === table.name)) await connection.run(emptyTable(table));
      continue;
    }
    const glob = join(dir, table.name, ...(table.dayKey ? ['*', '*'] : ['*']), '*.parquet');
    // Glue reads such a table by position, naming some columns otherwise (tables/revisions.ts).
    const byPosition =
      'byPosition' in table ? (table.byPosition as Record<string, string> | undefined) : undefined;
    const renames = Object.entries(byPosition ?? {}).map(([from, to]) => `"${from}" AS "${to}"`);
    const star = renames.length > 0 ? `* RENAME (${renames.join(', ')})` : '*';
    await connection.run(
      `CREATE VIEW ${table.name} AS SELECT ${star} FROM read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false)`,
    );
  }
  for (const table of ledgerTables) await connection.run(ledgerView(dir, table));
  await connection.run(compactionStateView(dir));
}

/** The connection as Athena answers: translated Trino SQL at `options.now`. */
export function athenaLike(
  instance: DuckDBInstance,
  connection: DuckDBConnection,
  options: AthenaOptions,
): AthenaLike {
  type Row = Record<string, unknown>;
  const run = async (sql: string) =>
    (await connection.runAndReadAll(trinoToDuckDb(sql, options.now))).getRowObjectsJS() as Row[];
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

/** An exported table with no object yet, typed as Glue declares it. */
function emptyTable(table: (typeof exportTables)[number]): string {
  const columns = [
    ...table.columns.map((c) => `"${c.name}" ${PARQUET_TYPES[c.type]}`),
    `${table.partitionKey} VARCHAR`,
    ...(table.dayKey ? [`${table.dayKey} VARCHAR`] : []),
  ];
  return `CREATE TABLE ${table.name} (${columns.join(', ')})`;
}

/** compaction_state: one JSON line a daily table (destination/compaction-state.ts); empty when none yet. */
function compactionStateView(dir: string): string {
  const folder = join(dir, COMPACTION_STATE_DIR);
  const names = compactionStateTable.columns.map((c) => c.name);
  if (existsSync(folder)) {
    const typed = names.map((name) => `${name}: 'VARCHAR'`).join(', ');
    return (
      `CREATE VIEW compaction_state AS SELECT * FROM read_json('${folder}/*.json', ` +
      `format = 'newline_delimited', columns = {${typed}})`
    );
  }
  return `CREATE TABLE compaction_state (${names.map((name) => `${name} VARCHAR`).join(', ')})`;
}
