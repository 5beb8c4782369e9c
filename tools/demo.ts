// npm start: a whole export with no AWS account. Starts the local Cloudforet simulator with a
// small seeded domain, exports a week of costs into ./export-out with the real CLI, and
// queries the Parquet with DuckDB.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { main } from '../cli/main.ts';
import { addDays, utcDay } from '../functions/lib/dates.ts';
import { startSimulator } from './simulator/index.ts';

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
  await showCosts(out);
} finally {
  await simulator.close();
  await rm(secretDir, { recursive: true, force: true });
}

async function showCosts(dir: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  const glob = join(dir, 'costs', '*', '*.parquet');
  const result = await connection.runAndReadAll(`
    SELECT billed_date, provider, currency, count(*) AS rows, round(sum(cost), 2) AS cost
    FROM read_parquet('${glob}', hive_partitioning = true)
    GROUP BY ALL ORDER BY billed_date, provider`);
  console.log(`\nParquet files: ${glob}\nDuckDB: cost per day per provider\n`);
  console.table(result.getRowObjectsJson());
  connection.closeSync();
  db.closeSync();
}
