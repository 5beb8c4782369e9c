// A small export with hand-checkable figures, written by the exporter's own Parquet writer, for the
// saved queries' result tests. Athena's clock stands at NOW (2026-03-16): the last 30 days start on
// 2026-02-14, the month to date on 2026-03-01, last month is February (confirmed; 1 USD = 1400 KRW),
// March's rate is 1 USD = 1500 KRW. Every cost is in docs/tables.md's sample results.
import type { ApiRecord } from '../../functions/lib/cloudforet/pager.ts';
import { rebuildNameRanges } from '../../functions/lib/inventory/name-ranges.ts';
import { ParquetRowWriter } from '../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { exportTables } from '../../functions/lib/tables/all-tables.ts';
import { costTable } from '../../functions/lib/tables/costs.ts';

export const NOW = new Date('2026-03-16T12:00:00.000Z');
/** The inventory snapshot of NOW, and one older than the names views' 7-day window. */
export const SNAPSHOT = '2026-03-16';
export const OLD_SNAPSHOT = '2026-02-01';
const EXPORTED_AT_MS = Date.parse('2026-03-16T01:00:00.000Z');

type Cost = [
  id: string,
  day: string,
  workspace: string | null,
  project: string | null,
  provider: string,
  resource: string | null,
  tags: Record<string, unknown>,
  cost: number,
];

/** USD data source: web and data projects, a routed virtual workspace, a row with no workspace. */
export const USD_COSTS: Cost[] = [
  ['c01', '2026-01-31', 'ws-a', 'p-web', 'aws', 'r-1', { team: 'web' }, 1],
  ['c02', '2026-02-01', 'ws-a', 'p-web', 'aws', 'r-1', { team: 'web' }, 10],
  ['c03', '2026-02-01', 'ws-a', 'p-gone', 'aws', 'r-4', {}, 7],
  ['c04', '2026-02-13', 'ws-a', 'p-web', 'aws', 'r-2', { team: 'web' }, 100],
  ['c05', '2026-02-14', 'ws-b', 'p-db', 'aws', 'r-2', { team: { lead: 'kim' } }, 1000],
  ['c06', '2026-02-28', 'v-workspace-1', null, 'google_cloud', 'r-3', {}, 20000],
  ['c07', '2026-02-28', null, null, 'aws', null, {}, 3],
  ['c08', '2026-03-01', 'ws-a', 'p-web', 'aws', 'r-1', { team: 'web' }, 0.5],
  ['c09', '2026-03-15', 'ws-a', 'p-web', 'aws', 'r-1', { team: 'web' }, 5.25],
];
export const KRW_COSTS: Cost[] = [
  ['k01', '2026-02-28', 'ws-b', 'p-db', 'azure', 'r-9', { team: 'data' }, 140000],
  ['k02', '2026-03-15', 'ws-b', 'p-db', 'azure', 'r-9', { team: 'data' }, 70000],
];

const ACCOUNT: Record<string, string> = { aws: '111', google_cloud: '222', azure: 'sub-9' };

function costRecord([
  cost_id,
  day,
  workspace_id,
  project_id,
  provider,
  resource,
  tags,
  cost,
]: Cost): ApiRecord {
  return {
    cost_id,
    cost,
    provider,
    resource,
    tags,
    workspace_id,
    project_id,
    product: provider === 'aws' ? 'AmazonEC2' : 'Compute',
    region_code: 'us-east-1',
    region_key: `${provider}.us-east-1`,
    account_id: ACCOUNT[provider],
    service_account_id: provider === 'aws' ? 'sa-1' : null,
    billed_year: day.slice(0, 4),
    billed_month: day.slice(0, 7),
    billed_date: day,
  };
}

const unified = (month: string, currency: string, krwPerUsd: number, confirmed: boolean): ApiRecord => ({
  unified_cost_id: `u-${month}-${currency}`,
  cost: currency === 'USD' ? { USD: 1, KRW: krwPerUsd, JPY: 150 } : { KRW: krwPerUsd, USD: 1, JPY: 150 },
  currency,
  billed_year: month.slice(0, 4),
  exchange_date: `${month}-01`,
  exchange_source: 'Yahoo! Finance',
  aggregation_date: `${month}-02`,
  is_confirmed: confirmed,
  provider: 'aws',
});

const budget = (id: string, unit: string, limit: number, start: string, end: string, project: string) => ({
  budget_id: id,
  name: id,
  state: 'ACTIVE',
  limit,
  currency: 'USD',
  time_unit: unit,
  start,
  end,
  resource_group: 'PROJECT',
  project_id: project,
  workspace_id: project === 'p-web' ? 'ws-a' : 'ws-b',
});
const usage = (id: string, date: string, cost: number, limit: number) => ({
  budget_id: id,
  name: id,
  date,
  cost,
  limit,
  currency: 'USD',
  resource_group: 'PROJECT',
});

/** Snapshot tables: [table, snapshot_date, records]. */
const SNAPSHOTS: Array<[string, string, ApiRecord[]]> = [
  [
    'workspaces',
    SNAPSHOT,
    [
      { workspace_id: 'ws-a', name: 'Alpha' },
      { workspace_id: 'ws-b', name: 'Beta' },
    ],
  ],
  ['workspaces', OLD_SNAPSHOT, [{ workspace_id: 'ws-a', name: 'Alpha (old)' }]],
  ['project_groups', SNAPSHOT, [{ project_group_id: 'pg-1', name: 'Platform' }]],
  [
    'projects',
    SNAPSHOT,
    [
      { project_id: 'p-web', name: 'Web', project_group_id: 'pg-1', workspace_id: 'ws-a' },
      { project_id: 'p-db', name: 'Data', workspace_id: 'ws-b' },
    ],
  ],
  [
    'projects',
    OLD_SNAPSHOT,
    [
      { project_id: 'p-web', name: 'Web (old)' },
      { project_id: 'p-gone', name: 'Gone' },
    ],
  ],
  ['service_accounts', SNAPSHOT, [{ service_account_id: 'sa-1', name: 'Prod', trusted_account_id: 'ta-1' }]],
  [
    'trusted_accounts',
    SNAPSHOT,
    [{ trusted_account_id: 'ta-1', name: 'Payer', data: { account_id: '999' } }],
  ],
  [
    'data_source_accounts',
    SNAPSHOT,
    [{ account_id: '222', v_workspace_id: 'v-workspace-1', workspace_id: 'ws-b' }],
  ],
  ['providers', SNAPSHOT, [{ provider: 'aws', name: 'AWS' }]],
  ['regions', SNAPSHOT, [{ region_key: 'aws.us-east-1', name: 'US East (N. Virginia)' }]],
  [
    'cloud_services',
    SNAPSHOT,
    [
      {
        name: 'web-1',
        state: 'ACTIVE',
        provider: 'aws',
        cloud_service_group: 'EC2',
        cloud_service_type: 'Instance',
        instance_type: 'm5.large',
        project_id: 'p-web',
        reference: { resource_id: 'r-1' },
      },
      {
        name: 'db-1',
        state: 'ACTIVE',
        provider: 'aws',
        cloud_service_group: 'EC2',
        cloud_service_type: 'Instance',
        instance_type: 'r5.xlarge',
        project_id: 'p-db',
        reference: { resource_id: 'r-2' },
      },
      {
        name: 'old-1',
        state: 'DISCONNECTED',
        provider: 'aws',
        cloud_service_group: 'EC2',
        cloud_service_type: 'Instance',
      },
      {
        name: 'vm-9',
        state: 'ACTIVE',
        provider: 'azure',
        cloud_service_group: 'VirtualMachines',
        cloud_service_type: 'Instance',
        project_id: 'p-db',
        reference: { resource_id: 'r-9' },
      },
    ],
  ],
  [
    'cloud_services',
    OLD_SNAPSHOT,
    [
      {
        name: 'web-1',
        state: 'ACTIVE',
        provider: 'aws',
        cloud_service_group: 'EC2',
        cloud_service_type: 'Instance',
        reference: { resource_id: 'r-1' },
      },
    ],
  ],
  [
    'budgets',
    SNAPSHOT,
    [
      budget('b-month', 'MONTHLY', 3100, '2026-01', '2026-12', 'p-web'),
      budget('b-total', 'TOTAL', 10000, '2026-01', '2026-04', 'p-db'),
    ],
  ],
  [
    'budget_usage',
    SNAPSHOT,
    [
      usage('b-month', '2026-01', 2000, 3100),
      usage('b-month', '2026-02', 2500, 3100),
      usage('b-month', '2026-03', 1500, 3100),
      usage('b-total', '2026-01', 1000, 10000),
      usage('b-total', '2026-02', 2000, 10000),
      usage('b-total', '2026-03', 700, 10000),
      usage('b-total', '2026-04', 0, 10000),
    ],
  ],
];

async function write(
  dir: string,
  name: string,
  partition: string,
  file: string,
  records: ApiRecord[],
  context: unknown,
) {
  const table = exportTables.find((t) => t.name === name)!;
  const upload = dirSink(dir).begin(
    `${name}/${table.partitionKey}=${partition}/${file}.parquet`,
    'application/vnd.apache.parquet',
  );
  const writer = new ParquetRowWriter(table as never, upload, context as never);
  await writer.append(records as never[]);
  await writer.close();
  await upload.commit();
}

/** Writes the fixture export under `dir`, as the exporter lays it out. */
export async function writeSqlFixture(dir: string): Promise<void> {
  const context = { exportedAtMs: EXPORTED_AT_MS };
  for (const [currency, rows] of [
    ['USD', USD_COSTS],
    ['KRW', KRW_COSTS],
  ] as const) {
    const costContext = {
      currency,
      workspaceOfVirtual: new Map<string, string>(),
      exportedAtMs: EXPORTED_AT_MS,
    };
    for (const day of new Set(rows.map((r) => r[1]))) {
      const records = rows
        .filter((r) => r[1] === day)
        .map((r) => ({ ...costRecord(r), data_source_id: `ds-${currency.toLowerCase()}` }));
      await write(dir, costTable.name, day, `ds-${currency.toLowerCase()}`, records, costContext);
    }
  }
  await write(
    dir,
    'unified_costs',
    '2026-02',
    'domain',
    [unified('2026-02', 'KRW', 1400, true), unified('2026-02', 'USD', 1400, true)],
    context,
  );
  await write(
    dir,
    'unified_costs',
    '2026-03',
    'domain',
    [unified('2026-03', 'KRW', 1500, false), unified('2026-03', 'USD', 1500, false)],
    context,
  );
  for (const [table, day, records] of SNAPSHOTS) await write(dir, table, day, 'domain', records, context);
  // What the inventory runs of those days would have folded into identity_names.
  await rebuildNameRanges(dirSink(dir));
}
