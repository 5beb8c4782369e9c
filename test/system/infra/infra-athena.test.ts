import { DuckDBInstance } from '@duckdb/node-api';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportTables } from '../../../functions/lib/tables/all-tables.ts';
import { compactionStateTable } from '../../../functions/lib/tables/compacted.ts';
import { ledgerTables } from '../../../functions/lib/tables/ledger.ts';
import { prepareSession, trinoToDuckDb } from '../../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { type Json, synth } from '../../support/synth-stack.ts';

function tableInputs(template: Template): Map<string, Json> {
  const inputs = Object.values(template.findResources('AWS::Glue::Table')).map(
    (r) => r.Properties.TableInput as Json,
  );
  return new Map(inputs.map((input) => [input.Name as string, input]));
}

const QUERY_NAMES = [
  'budget_vs_actual_forecast',
  'completeness_missing_days',
  'cost_by_inventory_resource',
  'cost_by_tag',
  'cost_by_workspace_project_usd',
  'cost_reports_regenerated',
  'cost_reports_sent',
  'cost_reports_standing',
  'costs_as_of',
  'create_costs_combined_view',
  'create_costs_named_as_of_day_view',
  'create_costs_named_view',
  'create_costs_versions_view',
  'create_focus_combined_view',
  'create_focus_versions_view',
  'create_focus_view_aws_consolidation',
  'create_view_1_exchange_rates',
  'create_view_2_costs_converted',
  'create_view_3_month_status',
  'create_view_4_costs_named_converted',
  'daily_cost_by_provider',
  'focus_as_of',
  'focus_cost_last_30_days',
  'freshness_by_data_source',
  'inventory_counts_by_type',
  'last_month_spend_usd_by_provider_project',
  'month_to_date_by_workspace_project',
  'month_to_date_by_workspace_project_name',
  'month_to_date_spend_usd_by_provider_project',
  'reconcile_cost_days',
  'restatements_of_confirmed_months',
  'spend_usd_by_confirmed_month',
  'spend_usd_by_month_last_12_months',
  'top_resources_last_30_days',
];

const FOCUS_WHERE_SUPPORTED_STRINGS = [
  'CapacityReservationId',
  'CapacityReservationStatus',
  'CommitmentDiscountCategory',
  'CommitmentDiscountId',
  'CommitmentDiscountName',
  'CommitmentDiscountStatus',
  'CommitmentDiscountType',
  'CommitmentDiscountUnit',
  'PricingCategory',
  'ResourceType',
  'SkuId',
  'SkuMeter',
  'SkuPriceId',
];
const FOCUS_MANDATORY_STRINGS = [
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'InvoiceIssuerName',
  'PricingUnit',
  'ProviderName',
  'PublisherName',
  'ServiceCategory',
  'ServiceName',
  'ServiceProviderName',
  'HostProviderName',
];

describe('Glue tables', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({ bucketName: 'my-exports', projectionStart: '2024-06-01' });
  });

  it('defines one table per exported table in the cloudforet_export database', () => {
    t.hasResourceProperties('AWS::Glue::Database', {
      CatalogId: { Ref: 'AWS::AccountId' },
      DatabaseInput: { Name: 'cloudforet_export' },
    });
    t.allResourcesProperties('AWS::Glue::Table', {
      DatabaseName: 'cloudforet_export',
      CatalogId: { Ref: 'AWS::AccountId' },
    });

    const names = [...exportTables, ...ledgerTables, compactionStateTable].map((table) => table.name);
    expect([...tableInputs(t).keys()].sort()).toEqual(names.sort());
  });

  it('the compacted months: monthly projection, and compaction_state as JSON lines beside them', () => {
    const inputs = tableInputs(t);
    for (const [name, key] of [
      ['costs_monthly', 'billed_month'],
      ['focus_monthly', 'x_billing_period'],
    ] as const) {
      const input = inputs.get(name)!;
      expect(input.PartitionKeys).toEqual([{ Name: key, Type: 'string', Comment: expect.any(String) }]);
      expect(input.Parameters).toMatchObject({
        [`projection.${key}.format`]: 'yyyy-MM',
        [`projection.${key}.interval.unit`]: 'MONTHS',
        'storage.location.template': `s3://my-exports/cloudforet/${name}/${key}=\${${key}}/`,
      });
    }
    const state = inputs.get('compaction_state')!;
    expect(state.PartitionKeys).toBeUndefined();
    expect(state.StorageDescriptor).toMatchObject({
      Location: 's3://my-exports/cloudforet/compaction_state/',
      SerdeInfo: { SerializationLibrary: 'org.openx.data.jsonserde.JsonSerDe' },
    });
  });

  it.each(
    exportTables
      .filter((table) => !['billed_month', 'x_billing_period', 'report_month'].includes(table.partitionKey))
      .map((t) => [t.name, t.partitionKey]),
  )('%s is external Parquet under its own folder, partitioned by %s with date projection', (name, key) => {
    const input = tableInputs(t).get(name)!;
    const location = `s3://my-exports/cloudforet/${name}/`;

    expect(input.TableType).toBe('EXTERNAL_TABLE');
    expect(input.PartitionKeys).toEqual([{ Name: key, Type: 'string', Comment: expect.any(String) }]);
    expect(input.Parameters).toEqual({
      EXTERNAL: 'TRUE',
      classification: 'parquet',
      'projection.enabled': 'true',
      [`projection.${key}.type`]: 'date',
      [`projection.${key}.format`]: 'yyyy-MM-dd',
      [`projection.${key}.range`]: '2024-06-01,NOW',
      [`projection.${key}.interval`]: '1',
      [`projection.${key}.interval.unit`]: 'DAYS',
      'storage.location.template': `${location}${key}=\${${key}}/`,
      'cloudforet_export.schema_version': '1',
    });
    expect(input.StorageDescriptor).toMatchObject({
      Location: location,
      InputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      OutputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      SerdeInfo: { SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
    });
  });

  it('unified_costs is partitioned by billed_month with monthly projection from the start month', () => {
    const input = tableInputs(t).get('unified_costs')!;

    expect(input.PartitionKeys).toEqual([
      { Name: 'billed_month', Type: 'string', Comment: expect.any(String) },
    ]);
    expect(input.Parameters).toMatchObject({
      'projection.billed_month.type': 'date',
      'projection.billed_month.format': 'yyyy-MM',
      'projection.billed_month.range': '2024-06,NOW',
      'projection.billed_month.interval': '1',
      'projection.billed_month.interval.unit': 'MONTHS',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's projection placeholder, literally
      'storage.location.template': 's3://my-exports/cloudforet/unified_costs/billed_month=${billed_month}/',
    });
    expect((input.StorageDescriptor as Json).Columns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Name: 'cost_krw', Type: 'double' }),
        expect.objectContaining({ Name: 'cost_usd', Type: 'double' }),
        expect.objectContaining({ Name: 'cost_jpy', Type: 'double' }),
      ]),
    );
  });

  it.each(exportTables.filter((table) => table.partitionKey === 'report_month').map((t) => [t.name]))(
    '%s is partitioned by report_month with monthly projection from the start month',
    (name) => {
      const input = tableInputs(t).get(name)!;
      expect(input.PartitionKeys).toEqual([
        { Name: 'report_month', Type: 'string', Comment: expect.any(String) },
      ]);
      expect(input.Parameters).toMatchObject({
        'projection.report_month.type': 'date',
        'projection.report_month.format': 'yyyy-MM',
        'projection.report_month.range': '2024-06,NOW',
        'projection.report_month.interval.unit': 'MONTHS',
        'storage.location.template': `s3://my-exports/cloudforet/${name}/report_month=\${report_month}/`,
      });
    },
  );

  it('focus is a table (not a view) FOCUS discovery finds: month, then day of month, partitions registered', () => {
    const input = tableInputs(t).get('focus')!;
    const location = 's3://my-exports/cloudforet/focus/';

    expect(input.TableType).toBe('EXTERNAL_TABLE');
    expect(input.PartitionKeys).toEqual([
      { Name: 'x_billing_period', Type: 'string', Comment: expect.any(String) },
      { Name: 'x_charge_day', Type: 'string', Comment: expect.any(String) },
    ]);
    // No projection: the cost run registers its partitions, a closed month at its compacted object
    // (docs/focus.md, "CID reads closed months compacted"), and its files are read by position.
    expect(input.Parameters).toEqual({
      EXTERNAL: 'TRUE',
      classification: 'parquet',
      'cloudforet_export.schema_version': '4',
    });
    expect((input.StorageDescriptor as Json).Location).toBe(location);
    expect(((input.StorageDescriptor as Json).SerdeInfo as Json).Parameters).toEqual({
      'serialization.format': '1',
      'parquet.column.index.access': 'true',
    });
    const columns = ((input.StorageDescriptor as Json).Columns as Json[]).map((c) => [c.Name, c.Type]);
    // The FOCUS 1.2 mandatory columns and the 1.3 provider columns, by their FOCUS names and types.
    for (const name of FOCUS_MANDATORY_STRINGS) expect(columns).toContainEqual([name, 'string']);
    for (const name of ['BilledCost', 'ContractedCost', 'EffectiveCost', 'ListCost', 'PricingQuantity'])
      expect(columns).toContainEqual([name, 'double']);
    for (const name of ['BillingPeriodStart', 'BillingPeriodEnd', 'ChargePeriodStart', 'ChargePeriodEnd'])
      expect(columns).toContainEqual([name, 'timestamp']);
    // Columns FOCUS wants present where the clouds support the concept (NULL where Cloudforet has no value).
    for (const name of FOCUS_WHERE_SUPPORTED_STRINGS) expect(columns).toContainEqual([name, 'string']);
    for (const name of ['CommitmentDiscountQuantity', 'ContractedUnitPrice', 'ListUnitPrice'])
      expect(columns).toContainEqual([name, 'double']);
  });

  it('builds locations from the created bucket when none is named', () => {
    const created = synth();
    const bucketId = Object.keys(created.findResources('AWS::S3::Bucket'))[0]!;
    const costs = tableInputs(created).get('costs')!;

    expect((costs.Parameters as Json)['storage.location.template']).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's projection placeholder, literally
      'Fn::Join': ['', ['s3://', { Ref: bucketId }, '/cloudforet/costs/billed_date=${billed_date}/']],
    });
  });
});

describe('Athena workgroup and saved queries', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({ bucketName: 'my-exports', athenaBytesScannedLimit: '5GiB', workgroupName: 'finops' });
  });

  it('enforces its configuration: scan limit, results location outside every table folder, engine version 3', () => {
    t.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: 'finops',
      RecursiveDeleteOption: true,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: 5 * 1024 ** 3,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: {
          OutputLocation: 's3://my-exports/athena-results/',
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
        },
      },
    });
    for (const table of exportTables) {
      expect('s3://my-exports/athena-results/'.startsWith(`s3://my-exports/cloudforet/${table.name}/`)).toBe(
        false,
      );
    }
  });

  it('saves every query in infra/queries in that workgroup and database', () => {
    const workgroupId = Object.keys(t.findResources('AWS::Athena::WorkGroup'))[0]!;
    const queries = Object.values(t.findResources('AWS::Athena::NamedQuery')).map((q) => q.Properties);

    expect(queries.map((q) => q.Name).sort()).toEqual(QUERY_NAMES);
    for (const query of queries) {
      expect(query).toMatchObject({ Database: 'cloudforet_export', WorkGroup: { Ref: workgroupId } });
      expect(query.Description.length).toBeGreaterThan(20);
      expect(query.QueryString).not.toMatch(/^--/);
    }
    const focus = queries.find((q) => q.Name === 'create_focus_view_aws_consolidation')!;
    expect(focus.QueryString).toMatch(/^CREATE OR REPLACE VIEW focus_consolidation_cloudforet AS\n/);
  });
});

describe('the saved queries against the tables the functions write', () => {
  const duckType = {
    string: 'VARCHAR',
    json: 'VARCHAR',
    double: 'DOUBLE',
    bigint: 'BIGINT',
    timestamp: 'TIMESTAMP',
    map: 'MAP(VARCHAR, VARCHAR)',
  };
  let run: (sql: string) => Promise<Json[]>;
  let close: () => void;
  beforeAll(async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await prepareSession(connection);
    run = async (sql) => (await connection.runAndReadAll(trinoToDuckDb(sql))).getRowObjectsJS() as Json[];
    close = () => {
      connection.closeSync();
      instance.closeSync();
    };
    for (const table of exportTables) {
      const columns = table.columns.map((c) => `"${c.name}" ${duckType[c.type]}`);
      const keys = [table.partitionKey, table.dayKey].filter((k) => k !== undefined);
      await run(
        `CREATE TABLE ${table.name} (${[...columns, ...keys.map((k) => `"${k}" VARCHAR`)].join(', ')})`,
      );
    }
    for (const table of ledgerTables) {
      const columns = table.columns.map((c) => `"${c.name}" ${duckType[c.type]}`);
      await run(`CREATE TABLE ${table.name} (${[...columns, `"${table.partitionKey}" VARCHAR`].join(', ')})`);
    }
    const state = compactionStateTable.columns.map((c) => `"${c.name}" ${duckType[c.type]}`);
    await run(`CREATE TABLE ${compactionStateTable.name} (${state.join(', ')})`);
    // The views, in file order (dependency order), so that no test depends on another having made them.
    for (const q of loadNamedQueries().filter((q) => q.name.startsWith('create_'))) await run(q.sql);
    return () => close();
  });

  it('are all present, one file per saved query', () => {
    expect(loadNamedQueries().map((q) => q.name)).toEqual(QUERY_NAMES);
  });

  // In file order, which is dependency order: costs_named first, then the queries using it.
  it.each(loadNamedQueries().map((q) => [q.name, q.sql]))(
    '%s names only real tables and columns',
    async (_name, sql) => {
      await expect(run(sql)).resolves.toBeInstanceOf(Array);
    },
  );

  it('create_focus_view_aws_consolidation gives the focus table as the consolidation view wants it', async () => {
    const columns = (await run('DESCRIBE focus_consolidation_cloudforet')).map(
      (row) => row.column_name as string,
    );

    expect(columns).toHaveLength(44);
    for (const column of columns.filter((c) => c !== 'billing_period')) {
      expect(column).toMatch(/^([A-Z][a-z]+)+$/);
    }
    expect(columns.at(-1)).toBe('billing_period');
  });
});
