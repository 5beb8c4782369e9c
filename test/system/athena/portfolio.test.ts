// The provider's portfolio across tenants: one database whose tables are the tenants' tables with a
// `tenant` partition (each tenant's folder read once), no FOCUS table (FOCUS tools would count every
// row twice), saved queries that parse as Trino, and the spend by tenant, provider and month summed
// over two tenants' exports equal to each tenant's own.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Template } from 'aws-cdk-lib/assertions';
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { prepareSession, trinoToDuckDb } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { PORTFOLIO_QUERY_DIR } from '../../../infra/portfolio-lake.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { idOf, type Json, statementsOfRole, synthStack } from '../../support/synth-stack.ts';

const TENANTS = [
  { id: 'acme', endpoint: 'https://cf-one.example.com', secretName: 'cloudforet/acme' },
  { id: 'beta-2', endpoint: 'https://cf-two.example.com', secretName: 'cloudforet/beta' },
];
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties, read as the template has them
const props = (r: Json) => r.Properties as Record<string, any>;

describe('the portfolio database', () => {
  let t: Template;
  beforeAll(() => {
    t = synthStack({ tenants: TENANTS }).nested.get('Portfolio')!;
  });

  it('has every tenant table but the FOCUS ones, partitioned by tenant first, under each tenant folder', () => {
    t.hasResourceProperties('AWS::Glue::Database', {
      DatabaseInput: { Name: 'cloudforet_export_portfolio' },
    });
    const tables = Object.values(t.findResources('AWS::Glue::Table'))
      .map((r) => props(r).TableInput)
      .filter((input) => input.Name !== 'export_units_latest');
    const names = tables.map((input) => input.Name as string);

    expect(names).toContain('costs');
    expect(names).toContain('unified_costs');
    expect(names.filter((n) => n.startsWith('focus'))).toEqual([]);
    for (const input of tables) {
      expect(input.PartitionKeys[0]).toMatchObject({ Name: 'tenant', Type: 'string' });
      expect(input.Parameters['projection.tenant.type']).toBe('enum');
      expect(input.Parameters['projection.tenant.values']).toBe('acme,beta-2');
      expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
        `/cloudforet/tenants/\${tenant}/${input.Name}/`,
      );
    }
  });

  it("has every tenant's ledger rollup, partitioned by tenant and table", () => {
    const [ledger] = Object.values(t.findResources('AWS::Glue::Table'))
      .map((r) => props(r).TableInput)
      .filter((input) => input.Name === 'export_units_latest');

    expect(ledger.PartitionKeys.map((k: { Name: string }) => k.Name)).toEqual(['tenant', 'table_name']);
    expect(ledger.Parameters['projection.tenant.values']).toBe('acme,beta-2');
    expect(ledger.Parameters['projection.table_name.type']).toBe('enum');
    expect(JSON.stringify(ledger.Parameters['storage.location.template'])).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's projection placeholders, literally
      '/cloudforet/tenants/${tenant}/ledger/export_units_latest/table_name=${table_name}/',
    );
  });

  it("lets the provider's reader read every tenant's folder and the portfolio database only", () => {
    const text = JSON.stringify(statementsOfRole(t, idOf(t, 'AWS::IAM::Role', 'Reader')));

    expect(text).toContain('"/cloudforet/tenants/*"');
    expect(text).toContain(':database/cloudforet_export_portfolio"');
    expect(text).toContain(':workgroup/cloudforet_export-portfolio"');
    expect(text).not.toContain('cloudforet_export_acme');
    expect(text).not.toContain('"*"');
  });

  it('saves the portfolio queries in its workgroup, each one Trino statement', () => {
    const queries = loadNamedQueries(PORTFOLIO_QUERY_DIR);
    const trino = new TrinoSQL();

    expect(queries.map((q) => q.name)).toEqual([
      'exports_by_tenant_table',
      'freshness_by_tenant',
      'health_by_tenant_data_source',
      'spend_by_tenant_provider_month',
      'spend_usd_by_tenant_month',
    ]);
    for (const q of queries) expect(trino.validate(q.sql), q.name).toEqual([]);
    t.resourceCountIs('AWS::Athena::NamedQuery', queries.length);
  });
});

describe('the portfolio over two exported tenants', () => {
  // Recent days, inside the freshness query's 60-day window.
  const FROM = addDays(new Date().toISOString().slice(0, 10), -9);
  const TO = addDays(FROM, 4);
  let sims: Simulator[];
  let dir: string;
  let out: string;

  beforeAll(async () => {
    sims = await Promise.all([
      startSimulator({ seed: 61, dataSources: 2, from: FROM, to: TO, rowsPerDay: 12 }),
      startSimulator({ seed: 62, dataSources: 3, from: FROM, to: TO, rowsPerDay: 9 }),
    ]);
    const apps = await Promise.all(sims.map((s, i) => appFolder(`portfolio-${i}`, s.issueToken())));
    dir = apps[0]!.dir;
    out = join(dir, 'lake');
    for (const [i, sim] of sims.entries()) {
      const args = ['costs', '--endpoint', sim.url, '--secret-file', apps[i]!.secretFile, '--out', out];
      const code = await main(
        [...args, '--tenant', TENANTS[i]!.id, '--from', FROM, '--to', TO],
        {},
        fakeIo(),
      );
      expect(code).toBe(0);
    }
    await rm(apps[1]!.dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  });

  /** DuckDB as Athena reads the portfolio's costs (and `views`): the tenant partition from the folder. */
  async function query(
    sql: string,
    tenantFolder = '*',
    views: Record<string, string> = {},
  ): Promise<Record<string, unknown>[]> {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await prepareSession(connection);
      for (const [name, select] of Object.entries(views))
        await connection.run(`CREATE VIEW ${name} AS ${select}`);
      await connection.run(
        `CREATE VIEW costs AS SELECT *, regexp_extract(filename, '/tenants/([^/]+)/costs/', 1) AS tenant
         FROM read_parquet('${out}/tenants/${tenantFolder}/costs/*/*.parquet', hive_partitioning = true,
           hive_types_autocast = false, filename = true)`,
      );
      return (await connection.runAndReadAll(trinoToDuckDb(sql))).getRowObjectsJS() as Record<
        string,
        unknown
      >[];
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }

  it("sums each tenant's spend once: per tenant, provider and month as the tenant's own export", async () => {
    const sql = loadNamedQueries(PORTFOLIO_QUERY_DIR).find(
      (q) => q.name === 'spend_by_tenant_provider_month',
    )!.sql;
    const own = `SELECT provider, substr(billed_date, 1, 7) AS m, currency, round(sum(cost), 2) AS total, count(*) AS n
      FROM costs GROUP BY ALL ORDER BY ALL`;

    const portfolio = await query(sql);

    expect(new Set(portfolio.map((r) => r.tenant))).toEqual(new Set(['acme', 'beta-2']));
    for (const { id } of TENANTS) {
      const mine = await query(own, id);
      const theirs = portfolio
        .filter((r) => r.tenant === id)
        .map((r) => ({
          provider: r.provider,
          m: r.billed_month,
          currency: r.currency,
          total: r.total_cost,
          n: r.cost_rows,
        }));
      expect(theirs).toEqual(mine);
    }
    expect(await readdir(join(out, 'tenants'))).toEqual(['acme', 'beta-2']);
  });

  it("names each tenant's tables with their newest export, from the tenants' ledger rollups", async () => {
    const sql = loadNamedQueries(PORTFOLIO_QUERY_DIR).find((q) => q.name === 'exports_by_tenant_table')!.sql;
    const ledger = `SELECT *, regexp_extract(filename, '/tenants/([^/]+)/ledger/', 1) AS tenant
      FROM read_json('${out}/tenants/*/ledger/export_units_latest/*/*.json', format = 'newline_delimited',
        hive_partitioning = true, filename = true)`;

    const rows = await query(sql, '*', { export_units_latest: ledger });

    const costs = rows.filter((r) => r.table_name === 'costs');
    expect(costs.map((r) => [r.tenant, r.newest_partition, Number(r.units)])).toEqual([
      ['acme', TO, 5 * sims[0]!.dataSourceIds().length],
      ['beta-2', TO, 5 * sims[1]!.dataSourceIds().length],
    ]);
  });

  it('names each tenant and data source with its newest exported day', async () => {
    const sql = loadNamedQueries(PORTFOLIO_QUERY_DIR).find((q) => q.name === 'freshness_by_tenant')!.sql;

    const rows = await query(sql);

    expect(rows.map((r) => [r.tenant, r.newest_billed_date, Number(r.days_exported)])).toEqual([
      ...sims[0]!.dataSourceIds().map(() => ['acme', TO, 5]),
      ...sims[1]!.dataSourceIds().map(() => ['beta-2', TO, 5]),
    ]);
  });
});
