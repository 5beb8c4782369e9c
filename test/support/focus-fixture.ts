// A synthetic `focus` table shaped like the one the export writes (issue 26): FOCUS columns in
// PascalCase, x_ custom columns, hive folders x_billing_period=YYYY-MM/x_charge_date=YYYY-MM-DD.
// 360 rows over AWS, Azure and Google, USD and KRW; Usage, Purchase, Tax and Credit rows, a few
// corrections. Each column is a DuckDB expression over `i` (0..359), so a test can replace one.
import { DuckDBInstance } from '@duckdb/node-api';

export const FIXTURE_ROWS = 360;

/** AWS, Azure, Google by i % 3. */
const provider = (aws: string, azure: string, google: string) =>
  `CASE i % 3 WHEN 0 THEN ${aws} WHEN 1 THEN ${azure} ELSE ${google} END`;

/** Usage (0-6), Purchase (7), Tax (8), Credit (9) by i % 10. */
const CATEGORY = `CASE i % 10 WHEN 7 THEN 'Purchase' WHEN 8 THEN 'Tax' WHEN 9 THEN 'Credit' ELSE 'Usage' END`;
const isUsage = 'i % 10 < 7';
const isPriced = 'i % 10 < 8'; // Usage and Purchase rows: PricingQuantity-C-005-C

/** Nine days across two billing periods. */
const DAY = `(DATE '2026-10-28' + (i % 9)::INTEGER)`;
const COST = `round(CASE WHEN i % 10 = 9 THEN -1.25 ELSE 0.5 + (i % 17) * 3.75 END * ${provider('1', '1350', '1')}, 4)`;

const SERVICE = `CASE WHEN i % 10 = 8 THEN 'Tax' WHEN i % 10 = 9 THEN 'Credits' WHEN i % 10 = 7 THEN 'Support' ELSE ${provider(
  "CASE WHEN i % 2 = 0 THEN 'Amazon Elastic Compute Cloud' ELSE 'Amazon Simple Storage Service' END",
  "CASE WHEN i % 2 = 0 THEN 'Virtual Machines' ELSE 'Azure Database for PostgreSQL' END",
  "CASE WHEN i % 2 = 0 THEN 'Compute Engine' ELSE 'Cloud Storage' END",
)} END`;

/** Column name to DuckDB expression, in the order written. */
export function focusFixtureColumns(): Array<[string, string]> {
  return [
    ['BilledCost', `${COST}::DOUBLE`],
    [
      'BillingAccountId',
      provider("'111122223333'", "'8a1b2c3d-0000-4000-8000-000000000001'", "'01ABCD-23EF45-6789AB'"),
    ],
    ['BillingAccountName', provider("'Payer account'", "'청구 계정'", "'Billing account'")],
    ['BillingCurrency', provider("'USD'", "'KRW'", "'USD'")],
    ['BillingPeriodStart', `date_trunc('month', ${DAY})::TIMESTAMPTZ`],
    ['BillingPeriodEnd', `(date_trunc('month', ${DAY}) + INTERVAL 1 MONTH)::TIMESTAMPTZ`],
    ['ChargeCategory', CATEGORY],
    ['ChargeClass', `CASE WHEN i % 50 = 3 THEN 'Correction' END`],
    ['ChargeDescription', `'Cost of ' || (${SERVICE}) || ' on ' || strftime(${DAY}, '%Y-%m-%d')`],
    [
      'ChargeFrequency',
      `CASE WHEN ${isUsage} THEN 'Usage-Based' WHEN i % 10 = 7 THEN 'Recurring' ELSE 'One-Time' END`,
    ],
    ['ChargePeriodStart', `${DAY}::TIMESTAMPTZ`],
    ['ChargePeriodEnd', `(${DAY} + 1)::TIMESTAMPTZ`],
    ['ConsumedQuantity', `CASE WHEN ${isUsage} THEN (1 + i % 24)::DOUBLE END`],
    ['ConsumedUnit', `CASE WHEN ${isUsage} THEN CASE WHEN i % 2 = 0 THEN 'Hours' ELSE 'GB-Months' END END`],
    ['ContractedCost', `${COST}::DOUBLE`],
    // EffectiveCost-C-005-C: 0 on every Purchase row (the model does not limit it to prepayments).
    ['EffectiveCost', `CASE WHEN i % 10 = 7 THEN 0 ELSE ${COST} END::DOUBLE`],
    // BilledCost-C-005-C: BilledCost must be 0 where ProviderName differs from InvoiceIssuerName.
    ['InvoiceIssuerName', provider("'AWS'", "'Microsoft'", "'Google Cloud'")],
    ['ListCost', `${COST}::DOUBLE`],
    ['PricingQuantity', `CASE WHEN ${isPriced} THEN (1 + i % 24)::DOUBLE END`],
    ['PricingUnit', `CASE WHEN ${isPriced} THEN CASE WHEN i % 2 = 0 THEN 'Hours' ELSE 'GB-Months' END END`],
    ['ProviderName', provider("'AWS'", "'Microsoft'", "'Google Cloud'")],
    ['PublisherName', provider("'AWS'", "'Microsoft'", "'Google Cloud'")],
    ['ServiceProviderName', provider("'AWS'", "'Microsoft'", "'Google Cloud'")],
    ['HostProviderName', provider("'AWS'", "'Microsoft'", "'Google Cloud'")],
    [
      'RegionId',
      `CASE WHEN ${isUsage} THEN ${provider("'ap-northeast-2'", "'koreacentral'", "'asia-northeast3'")} END`,
    ],
    [
      'RegionName',
      `CASE WHEN ${isUsage} THEN ${provider("'Asia Pacific (Seoul)'", "'Korea Central'", "'Seoul'")} END`,
    ],
    ['ResourceId', `CASE WHEN ${isUsage} THEN 'resource-' || (i % 40)::VARCHAR END`],
    [
      'ResourceName',
      `CASE WHEN ${isUsage} THEN CASE WHEN i % 5 = 0 THEN '웹 서버 ' ELSE 'web-' END || (i % 40)::VARCHAR END`,
    ],
    [
      'ServiceCategory',
      `CASE (${SERVICE}) WHEN 'Tax' THEN 'Other' WHEN 'Credits' THEN 'Other' WHEN 'Support' THEN 'Management and Governance' ` +
        `WHEN 'Amazon Simple Storage Service' THEN 'Storage' WHEN 'Cloud Storage' THEN 'Storage' ` +
        `WHEN 'Azure Database for PostgreSQL' THEN 'Databases' ELSE 'Compute' END`,
    ],
    ['ServiceName', SERVICE],
    [
      'SubAccountId',
      provider(
        "'444455556666'",
        "'0f0e0d0c-0000-4000-8000-00000000000' || (i % 2)::VARCHAR",
        "'project-' || (i % 2)::VARCHAR",
      ),
    ],
    [
      'SubAccountName',
      provider("'Linked account'", "'구독 ' || (i % 2)::VARCHAR", "'Project ' || (i % 2)::VARCHAR"),
    ],
    [
      'Tags',
      `CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN '{}' ELSE json_object('env', 'prod', 'team', 'core-' || (i % 3)::VARCHAR, 'cost-center', i % 7)::VARCHAR END`,
    ],
    // Present because the clouds support the concept, NULL where Cloudforet has no value (issue 36).
    ...[
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
    ].map((name): [string, string] => [name, 'NULL::VARCHAR']),
    ...['CommitmentDiscountQuantity', 'ContractedUnitPrice', 'ListUnitPrice'].map(
      (name): [string, string] => [name, 'NULL::DOUBLE'],
    ),
    ['SkuPriceDetails', 'NULL::MAP(VARCHAR, VARCHAR)'],
    ['x_cost_id', `'cost-' || i::VARCHAR`],
    ['x_data_source_id', provider("'ds-aws'", "'ds-azure'", "'ds-google'")],
    ['x_project_id', `'project-' || (i % 5)::VARCHAR`],
    ['x_workspace_id', `'workspace-' || (i % 2)::VARCHAR`],
    ['x_billing_period', `strftime(${DAY}, '%Y-%m')`],
    ['x_charge_date', `strftime(${DAY}, '%Y-%m-%d')`],
  ];
}

/**
 * Writes the fixture, changed by `edit` (replace, add or drop columns), under `dir` as hive
 * partitions; returns the glob of its files.
 */
export async function writeFocusFixture(
  dir: string,
  edit: (columns: Array<[string, string]>) => Array<[string, string]> = (columns) => columns,
): Promise<string> {
  const columns = edit(focusFixtureColumns());
  const select = columns.map(([name, sql]) => `${sql} AS "${name}"`).join(',\n  ');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    await connection.run(
      `COPY (SELECT ${select} FROM range(${FIXTURE_ROWS}) AS r(i)) TO '${dir.replaceAll("'", "''")}' ` +
        '(FORMAT parquet, PARTITION_BY (x_billing_period, x_charge_date))',
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return `${dir}/**/*.parquet`;
}

/** Replaces one column's expression. */
export function replaceColumn(name: string, sql: string) {
  return (columns: Array<[string, string]>): Array<[string, string]> => {
    if (!columns.some(([n]) => n === name)) throw new Error(`no column ${name}`);
    return columns.map(([n, s]) => [n, n === name ? sql : s]);
  };
}

export function dropColumn(name: string) {
  return (columns: Array<[string, string]>): Array<[string, string]> => columns.filter(([n]) => n !== name);
}
