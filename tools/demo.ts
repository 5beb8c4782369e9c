// npm start: a whole export with no AWS account. Starts the local Cloudforet simulator with a
// small seeded domain, exports a week of costs and an inventory snapshot into ./export-out
// with the real CLI, and queries the Parquet with DuckDB.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { main } from '../cli/main.ts';
import { addDays, utcDay } from '../functions/lib/dates.ts';
import { athenaOver } from '../harness/duckdb-athena.ts';
import { startSimulator } from '../harness/simulator/index.ts';
import { loadNamedQueries } from '../infra/named-queries.ts';
import { monthToDateUsd } from './demo-money.ts';

const out = resolve(process.argv[2] ?? 'export-out');
const to = addDays(utcDay(new Date()), -1);
const from = addDays(to, -6);

const simulator = await startSimulator({
  seed: 7,
  dataSources: 3,
  from: addDays(to, -30),
  to,
  rowsPerDay: 60,
});
const secretDir = await mkdtemp(join(tmpdir(), 'cloudforet-demo-'));
try {
  const secretFile = join(secretDir, 'app.json');
  await writeFile(secretFile, JSON.stringify({ name: 'demo', client_secret: simulator.issueToken() }));
  console.log(`Cloudforet simulator at ${simulator.url}; exporting ${from}..${to} into ${out}\n`);
  const common = ['--endpoint', simulator.url, '--secret-file', secretFile, '--out', out];
  const costs = await main(['costs', ...common, '--from', from, '--to', to], process.env);
  if (costs !== 0) process.exit(costs);
  const inventory = await main(['inventory', ...common], process.env);
  if (inventory !== 0) process.exit(inventory);
  await show(
    'cost per day per provider',
    join(out, 'costs', '*', '*.parquet'),
    `SELECT billed_date, provider, currency, count(*) AS rows, round(sum(cost), 2) AS cost
     FROM read_parquet('$GLOB', hive_partitioning = true) GROUP BY ALL ORDER BY billed_date, provider`,
  );
  const month = to.slice(0, 7);
  console.log(
    `\nmonth-to-date spend in USD by provider, ${month} (unified costs; the exported days through view costs_converted)`,
  );
  console.table(await monthToDateUsd(out, month));
  // Not max(snapshot_date): DuckDB 1.5.5 answers it from the statistics of a single file and
  // fails with an internal error (index out of range) on the partition column.
  await show(
    'resources per provider and type in the latest snapshot',
    join(out, 'cloud_services', '*', '*.parquet'),
    `SELECT snapshot_date, provider, cloud_service_group || '/' || cloud_service_type AS type, count(*) AS resources
     FROM read_parquet('$GLOB', hive_partitioning = true)
     WHERE snapshot_date = (SELECT snapshot_date FROM read_parquet('$GLOB', hive_partitioning = true)
                            ORDER BY snapshot_date DESC LIMIT 1)
     GROUP BY ALL ORDER BY provider, type`,
  );
  await show(
    'the same costs as FOCUS 1.3 rows (the focus table), by provider and charge category',
    join(out, 'focus', '*', '*', '*.parquet'),
    `SELECT ServiceProviderName, ChargeCategory, BillingCurrency, x_billed_cost_basis AS basis, count(*) AS rows,
            round(sum(BilledCost), 2) AS billed_cost
     FROM read_parquet('$GLOB', hive_partitioning = true) GROUP BY ALL ORDER BY ALL`,
  );
  console.log(
    "BilledCost is the invoiced charge: where a data source keeps it apart from `cost` (Azure's cost is the\n" +
      'pay-as-you-go price, its data["Actual Cost"] the invoice; basis \'actual\'), it can be lower than the\n' +
      "costs table's `cost`; elsewhere (basis 'cost') it is `cost`. See docs/focus.md#cost-basis-per-data-source.",
  );
  await costByProjectName(out);
} finally {
  await simulator.close();
  await rm(secretDir, { recursive: true, force: true });
}

async function show(title: string, glob: string, sql: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  const result = await connection.runAndReadAll(sql.replaceAll('$GLOB', glob));
  console.log(`\n${title} (DuckDB over ${glob})`);
  console.table(result.getRowObjectsJson());
  connection.closeSync();
  db.closeSync();
}

/** The saved view costs_named, run as Athena would (harness/duckdb-athena.ts), grouped by names. */
async function costByProjectName(dir: string): Promise<void> {
  const db = await athenaOver(dir);
  try {
    // costs_named reads costs_combined: both views, in name order, as the README says.
    const views = ['create_costs_combined_view', 'create_costs_named_view'];
    for (const q of loadNamedQueries().filter((q) => views.includes(q.name))) await db.run(q.sql);
    const rows = await db.run(
      `SELECT workspace_name, project_name, currency, round(sum(cost), 2) AS cost
       FROM costs_named GROUP BY ALL ORDER BY workspace_name, project_name, currency`,
    );
    console.log('\ncost by workspace and project name (the costs_named view over the export)');
    console.table(rows.map((r) => ({ ...r, project_name: ellipsis(r.project_name) })));
  } finally {
    db.close();
  }
}

function ellipsis(name: unknown): unknown {
  return typeof name === 'string' && name.length > 40 ? `${name.slice(0, 39)}…` : name;
}
