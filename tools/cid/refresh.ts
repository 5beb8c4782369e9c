// What one refresh of AWS CID's FOCUS dashboard reads of the focus table, measured (docs/focus.md,
// "What a CID refresh reads"): a year of FOCUS rows exported by the CLI from the simulator; CID's
// own code (run.ts) creates its views over the table as the stack declares it, and the two
// datasets' refresh (SELECT * of focus_summary_view and focus_resource_view, tags picked) runs in
// DuckDB under its profiler, as in the bench's reading stage. Then the same with the table's
// month partition named `billing_period`, the name CID recognizes, to show what pruning would save.
// npx tsx tools/cid/refresh.ts [--data-sources 3] [--rows-per-day 60]
import { cp, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { main as cli } from '../../cli/main.ts';
import { retentionStart } from '../../functions/lib/costs/planning/job-history.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver, trinoToDuckDb } from '../../harness/duckdb-athena.ts';
import { startSimulator } from '../../harness/simulator/index.ts';
import { CloudforetExportStack } from '../../infra/cloudforet-export-stack.ts';
import { readSettings } from '../../infra/settings.ts';
import { checkFocusConformance } from '../focus/conformance.ts';
import { listTableMetadata, runCid } from './run.ts';

const DATABASE = 'cloudforet_export';

export interface RefreshReading {
  readonly partitionKey: string;
  readonly view: string;
  readonly objects: number;
  readonly bytes: number;
  readonly months: number;
  /** The objects, and their bytes, of the billing periods the view keeps: what pruning would read. */
  readonly leastObjects: number;
  readonly leastBytes: number;
}

/** focus's objects by billing period: how many, and their bytes. */
async function objectsByMonth(focus: string): Promise<Map<string, { objects: number; bytes: number }>> {
  const months = new Map<string, { objects: number; bytes: number }>();
  for (const file of await readdir(focus, { recursive: true })) {
    if (!String(file).endsWith('.parquet')) continue;
    const month = /=(\d{4}-\d{2})/.exec(String(file))![1]!;
    const m = months.get(month) ?? { objects: 0, bytes: 0 };
    m.objects++;
    m.bytes += (await stat(join(focus, String(file)))).size;
    months.set(month, m);
  }
  return months;
}

/** The synthesized stack's template (bundling skipped: only the Glue tables are read). */
function template(): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const settings = readSettings({ cloudforetEndpoint: 'https://cf.example.com' });
  return Template.fromStack(new CloudforetExportStack(app, 'Export', { settings }));
}

/** The export with focus's month folders named `key=` (the files are the same). */
async function withMonthKey(out: string, copy: string, key: string): Promise<void> {
  await cp(out, copy, { recursive: true });
  for (const folder of await readdir(join(copy, 'focus'))) {
    await rename(
      join(copy, 'focus', folder),
      join(copy, 'focus', folder.replace(/^x_billing_period=/, `${key}=`)),
    );
  }
}

async function profile(db: AthenaLike, sql: string, output: string, now: Date) {
  await db.connection.run(`PRAGMA enable_profiling = 'json'`);
  await db.connection.run(`PRAGMA profiling_output = '${output}'`);
  await db.connection.run(
    `SET custom_profiling_settings = '{"TOTAL_BYTES_READ": "true", "EXTRA_INFO": "true", "OPERATOR_TYPE": "true"}'`,
  );
  await db.connection.run(trinoToDuckDb(sql, now));
  await db.connection.run('PRAGMA disable_profiling');
  type Node = { operator_type?: string; extra_info?: Record<string, unknown>; children?: Node[] };
  const root = JSON.parse(await readFile(output, 'utf8')) as Node & { total_bytes_read?: number };
  let objects = 0;
  const walk = (n: Node) => {
    if (n.operator_type === 'TABLE_SCAN') objects += Number(n.extra_info?.['Total Files Read'] ?? 0);
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return { objects, bytes: Number(root.total_bytes_read ?? 0) };
}

export async function measureRefresh(options: { dataSources: number; rowsPerDay: number }) {
  const now = new Date();
  const to = addDays(utcDay(now), -1);
  const from = retentionStart(now);
  const dir = await mkdtemp(join(tmpdir(), 'cid-refresh-'));
  const readings: RefreshReading[] = [];
  try {
    const simulator = await startSimulator({
      seed: 36,
      dataSources: options.dataSources,
      workspaces: 2,
      from,
      to,
      rowsPerDay: options.rowsPerDay,
      exactRowsPerDay: true,
      cloudServices: 200,
    });
    try {
      await writeFile(join(dir, 'app.secret'), simulator.issueToken());
      const args = [
        '--endpoint',
        simulator.url,
        '--secret-file',
        join(dir, 'app.secret'),
        '--out',
        join(dir, 'a'),
      ];
      const quiet = { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream;
      const code = await cli(
        ['costs', ...args, '--from', from, '--to', to],
        {},
        { stdout: quiet, stderr: quiet },
      );
      if (code !== 0) throw new Error(`cid-refresh: the export failed (${code})`);
    } finally {
      await simulator.close();
    }
    const tables = listTableMetadata(template());
    const byMonth = await objectsByMonth(join(dir, 'a', 'focus'));
    for (const key of ['x_billing_period', 'billing_period']) {
      const out = key === 'x_billing_period' ? join(dir, 'a') : join(dir, 'b');
      if (out !== join(dir, 'a')) await withMonthKey(join(dir, 'a'), out, key);
      const databases = structuredClone(tables);
      for (const t of databases[DATABASE]!) {
        if (t.Name === 'focus') (t.PartitionKeys as { Name: string }[])[0]!.Name = key;
      }
      const db = await athenaOver(out, { now });
      try {
        await db.run(`CREATE SCHEMA ${DATABASE}`);
        await db.run(`CREATE VIEW ${DATABASE}.focus AS SELECT * FROM main.focus`);
        await runCid({
          db,
          now,
          database: DATABASE,
          databases,
          tagAnswers: { resource_tags: ['tag_team', 'tag_env'] },
          workDir: dir,
          afterCreate: async () => [],
        });
        await db.connection.run('SET enable_external_file_cache = false');
        await db.connection.run('SET parquet_metadata_cache = false');
        for (const view of ['focus_summary_view', 'focus_resource_view']) {
          const read = await profile(db, `SELECT * FROM ${view}`, join(dir, `${key}-${view}.json`), now);
          const kept = await db.run(`SELECT DISTINCT billing_period AS m FROM ${view}`);
          const least = kept.map((r) => byMonth.get(String(r.m)) ?? { objects: 0, bytes: 0 });
          readings.push({
            partitionKey: key,
            view,
            ...read,
            months: kept.length,
            leastObjects: least.reduce((n, x) => n + x.objects, 0),
            leastBytes: least.reduce((n, x) => n + x.bytes, 0),
          });
        }
      } finally {
        db.close();
      }
    }
    // The FOCUS rules over each layout: a partition key is a column of the table Athena reads.
    const custom = async (out: string) => {
      const report = await checkFocusConformance({ parquetGlob: join(out, 'focus', '*', '*', '*.parquet') });
      const rule = report.rules.find((r) => r.id === 'Static-ColumnHandling-A-010-M')!;
      return { status: rule.status, failures: report.failures.map((f) => f.id), samples: rule.samples ?? [] };
    };
    const conformance = {
      x_billing_period: await custom(join(dir, 'a')),
      billing_period: await custom(join(dir, 'b')),
    };
    const total = [...byMonth.values()];
    return {
      from,
      to,
      objects: total.reduce((n, x) => n + x.objects, 0),
      bytes: total.reduce((n, x) => n + x.bytes, 0),
      months: byMonth.size,
      readings,
      conformance,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'data-sources': { type: 'string', default: '3' },
      'rows-per-day': { type: 'string', default: '60' },
    },
  });
  const r = await measureRefresh({
    dataSources: Number(values['data-sources']),
    rowsPerDay: Number(values['rows-per-day']),
  });
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  console.log(
    `focus: ${r.objects} objects, ${mb(r.bytes)} MB, ${r.months} billing periods (${r.from} to ${r.to}), ` +
      `${values['data-sources']} data sources × ${values['rows-per-day']} rows a day`,
  );
  console.log(
    '| month partition | dataset (view) | objects read | MB read | billing periods kept | their objects | their MB |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const x of r.readings) {
    console.log(
      `| \`${x.partitionKey}\` | ${x.view} | ${x.objects} | ${mb(x.bytes)} | ${x.months} | ${x.leastObjects} | ${mb(x.leastBytes)} |`,
    );
  }
  console.log(`FOCUS conformance, custom columns x_-prefixed: ${JSON.stringify(r.conformance)}`);
}
