// The portfolio database as Athena reads it, in DuckDB: each table every tenant's rows with a
// `tenant` column (infra/portfolio-lake.ts: partition projection over tenants/<id>/), each tenant's
// folder read once, and no FOCUS table. A tenant's own tables are in a schema of their own.
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { exportTables } from '../functions/lib/tables/all-tables.ts';
import { exportUnitsLatestTable } from '../functions/lib/tables/ledger.ts';
import { TENANTS_DIR } from '../functions/lib/tenant.ts';
import {
  type AthenaLike,
  type AthenaOptions,
  athenaLike,
  createTableViews,
  prepareSession,
} from './duckdb-athena.ts';

/** The schema holding one tenant's own tables (as its database has them). */
export const tenantSchema = (id: string) => `tenant_${id.replaceAll('-', '_')}`;

/** DuckDB over `root` (a destination of tenants): the portfolio's tables in `main`, each tenant's in its schema. */
export async function portfolioOver(
  root: string,
  tenantIds: readonly string[],
  options: AthenaOptions = {},
): Promise<AthenaLike> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await prepareSession(connection);
  for (const id of tenantIds) {
    await connection.run(`CREATE SCHEMA ${tenantSchema(id)}`);
    await connection.run(`USE ${tenantSchema(id)}`);
    await createTableViews(connection, join(root, TENANTS_DIR, id));
  }
  await connection.run('USE main');
  const names = [
    ...exportTables.map((t) => t.name).filter((name) => !name.startsWith('focus')),
    exportUnitsLatestTable.name,
  ];
  for (const name of names) {
    const found = (
      await connection.runAndReadAll(
        `SELECT schema_name FROM duckdb_views() WHERE view_name = '${name}'
         UNION ALL SELECT schema_name FROM duckdb_tables() WHERE table_name = '${name}'`,
      )
    ).getRowsJS();
    const schemas = new Set(found.map((row) => String(row[0])));
    const parts = tenantIds
      .filter((id) => schemas.has(tenantSchema(id)))
      .map((id) => `SELECT *, '${id}' AS tenant FROM ${tenantSchema(id)}.${name}`);
    if (parts.length > 0) await connection.run(`CREATE VIEW ${name} AS ${parts.join(' UNION ALL BY NAME ')}`);
  }
  return athenaLike(instance, connection, options);
}
