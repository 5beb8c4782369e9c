// The cost of reading (a stage of npm run bench; --reading-only alone, --no-reading skips it): a
// year of cost files (12 months × 5 data sources), the focus rows the cost export derives from
// them and daily inventory snapshots, written by the exporter's own writer (the CLI against the
// simulator) into a directory laid out as the bucket; then every saved query and view run in
// DuckDB (harness/duckdb-athena.ts translates them) under its profiler, DuckDB standing in for
// Athena's scan. Per query: the objects and bytes DuckDB read, against the minimum the question
// needs: the columns it reads, in the partitions its filters select, and of snapshot tables only
// the newest day (a name or an inventory count is asked as of now).
import { cp, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import type { CliIo } from '../../cli/command-context.ts';
import { main as cli } from '../../cli/main.ts';
import { retentionStart } from '../../functions/lib/costs/planning/job-history.ts';
import type { CostRunSummary } from '../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { ledgerPrefix } from '../../functions/lib/destination/layout.ts';
import { rebuildNameRanges } from '../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { exportTables } from '../../functions/lib/tables/all-tables.ts';
import { ledgerTables } from '../../functions/lib/tables/ledger.ts';
import { type AthenaLike, athenaOver, trinoToDuckDb } from '../../harness/duckdb-athena.ts';
import { startSimulator } from '../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../infra/named-queries.ts';
import { markdownTable } from './markdown.ts';
import { type CidRefreshReading, describeCidRefresh, measureCidRefresh } from './reading-cid.ts';
import { copyEarlierPeriods, rebuildDerived } from './reading-history.ts';

export interface ReadingScale {
  readonly dataSources: number;
  readonly from: string;
  readonly to: string;
  readonly rowsPerDay: number;
  readonly snapshotDays: number;
  readonly cloudServices: number;
  /** Then the same questions over this many years of history (the year copied before it); 1: none. */
  readonly years: number;
}

/**
 * The 12 months Cloudforet retains by the real clock (this one included), up to yesterday
 * (Athena's clock stands at today, noon UTC): the exporter keeps to that retention, and a fixed
 * window once lost its oldest month to it. Objects, not rows, are what the layout costs; rows a
 * day only make each object bigger, so the bench's default keeps them few enough for the stage
 * to take a few minutes on 2 cores (docs/performance.md, "Reading cost").
 */
const TODAY = new Date();
const YESTERDAY = addDays(utcDay(TODAY), -1);
export const READING_SCALE: ReadingScale = {
  dataSources: 5,
  from: retentionStart(TODAY),
  to: YESTERDAY,
  rowsPerDay: 100,
  snapshotDays: 365,
  cloudServices: 2000,
  years: 3,
};

export interface QueryReading {
  readonly query: string;
  readonly objects: number;
  readonly bytes: number;
  readonly minObjects: number;
  readonly minBytes: number;
  /** DuckDB's wall time for the query here: where the stage's time goes, not Athena's. */
  readonly ms: number;
}

export interface ReadingFigures {
  readonly scale: ReadingScale;
  /** Data source-days and cost rows the CLI exported (days beyond retention are not). */
  readonly costUnits: number;
  readonly costRows: number;
  /** The whole export: parquet objects and bytes, and of them the costs and focus tables. */
  readonly objects: number;
  readonly bytes: number;
  readonly costObjects: number;
  readonly costBytes: number;
  readonly focusObjects: number;
  readonly focusBytes: number;
  /** Wall time of the stage: the export (CLI and snapshot copies), the queries, in all. */
  readonly seconds: { readonly export: number; readonly queries: number; readonly total: number };
  readonly queries: QueryReading[];
  /** The same questions over `scale.years` of history, when more than one. */
  readonly longer?: {
    readonly years: number;
    readonly snapshotDays: number;
    readonly objects: number;
    readonly bytes: number;
    readonly costObjects: number;
    readonly focusObjects: number;
    readonly seconds: { readonly history: number; readonly queries: number };
    readonly queries: QueryReading[];
  };
  /** What a CID refresh opens through the focus table's registered partitions (reading-cid.ts). */
  readonly cidRefresh: CidRefreshReading;
  /** A year's spend by month and provider over the daily objects, and over one object a month. */
  readonly compaction: {
    daily: QueryReading;
    monthly: QueryReading;
    monthlyObjects: number;
    monthlyBytes: number;
  };
}

/** What the export holds: its Parquet objects, and the JSON objects of each ledger table. */
interface ExportIndex {
  readonly files: Map<string, FileInfo>;
  readonly ledger: Map<string, number>;
}

interface FileInfo {
  readonly table: string;
  readonly partition: string;
  readonly size: number;
  /** Compressed bytes of each column's chunks; the rest of the file is its footer. */
  readonly columns: Map<string, number>;
}

const SNAPSHOT_TABLES = new Set(
  exportTables.filter((t) => t.partitionKey === 'snapshot_date').map((t) => t.name),
);
/**
 * Questions about a series of snapshot days (counts on each day of 90): every snapshot day their
 * filter selects is needed. The others ask as of now; names as of each cost day read the ranges.
 */
const EVERY_SNAPSHOT = new Set(['inventory_counts_by_type']);
/** The rollup's partition its questions need: the three ledger queries ask about cost days. */
const LEDGER_LEAST: Record<string, string> = { export_units_latest: 'table_name=costs' };
const progress = (text: string) => process.stderr.write(`${text}\n`);

export async function measureReading(scale: ReadingScale = READING_SCALE): Promise<ReadingFigures> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'bench-reading-'));
  const out = join(dir, 'out');
  try {
    const exported = await exportYear(dir, out, scale);
    // What the inventory runs of the copied snapshot days would have folded into identity_names.
    await rebuildNameRanges(dirSink(out));
    const exportEnded = performance.now();
    const index = await indexFiles(out);
    const { files } = index;
    const now = new Date(`${addDays(scale.to, 1)}T12:00:00.000Z`);
    const { queries, compaction } = await measureQueries(out, { index, dir, now }, true);
    const cidRefresh = await measureCidRefresh(out, scale.dataSources);
    const queriesEnded = performance.now();
    const longer = scale.years > 1 ? await measureLonger(out, dir, now, scale) : undefined;
    const list = [...files.values()];
    const costs = list.filter((f) => f.table === 'costs');
    const focus = list.filter((f) => f.table === 'focus');
    const ended = performance.now();
    progress(`reading: queries measured in ${seconds(queriesEnded - exportEnded)} s`);
    return {
      scale,
      costUnits: exported.units,
      costRows: exported.rows,
      objects: list.length,
      bytes: list.reduce((n, f) => n + f.size, 0),
      costObjects: costs.length,
      costBytes: costs.reduce((n, f) => n + f.size, 0),
      focusObjects: focus.length,
      focusBytes: focus.reduce((n, f) => n + f.size, 0),
      seconds: {
        export: seconds(exportEnded - started),
        queries: seconds(queriesEnded - exportEnded),
        total: seconds(ended - started),
      },
      queries,
      ...(longer && { longer }),
      compaction: compaction!,
      cidRefresh,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Every saved query, and SELECT * of every view, under the profiler; the compaction probe with `compaction`. */
async function measureQueries(
  out: string,
  context: ProfileContext,
  withCompaction: boolean,
): Promise<{ queries: QueryReading[]; compaction?: ReadingFigures['compaction'] }> {
  const queries: QueryReading[] = [];
  let compaction: ReadingFigures['compaction'] | undefined;
  const all = loadNamedQueries();
  const db = await athenaOver(out, { now: context.now });
  try {
    // Every query reads from the files, not from what the one before left in DuckDB's caches.
    await db.connection.run('SET enable_external_file_cache = false');
    await db.connection.run('SET parquet_metadata_cache = false');
    // Views are only definitions: creating them reads no data.
    for (const q of all) if (q.sql.startsWith('CREATE OR REPLACE VIEW')) await db.run(q.sql);
    for (const q of all) {
      const sql = q.sql.startsWith('CREATE OR REPLACE VIEW') ? `SELECT * FROM ${viewName(q.sql)}` : q.sql;
      queries.push({ query: q.name, ...(await profile(db, sql, q.name, context)) });
    }
    if (withCompaction) compaction = await compact(db, context);
  } finally {
    db.close();
  }
  return { queries, ...(compaction && { compaction }) };
}

/**
 * The year made `scale.years` long (reading-history.ts: the year copied to the periods before it,
 * a snapshot a day), the rollup and ranges rebuilt, the same questions asked at the same clock.
 */
async function measureLonger(
  out: string,
  dir: string,
  now: Date,
  scale: ReadingScale,
): Promise<NonNullable<ReadingFigures['longer']>> {
  const started = performance.now();
  const days = daysBetween(scale.from, scale.to) + 1;
  await copyEarlierPeriods(out, days, scale.years - 1);
  const snapshotDays = scale.snapshotDays * scale.years;
  await copySnapshots(out, scale.to, scale.snapshotDays, snapshotDays);
  await rebuildDerived(out);
  const index = await indexFiles(out);
  const historyEnded = performance.now();
  progress(`reading: ${scale.years} years of history made in ${seconds(historyEnded - started)} s`);
  const { queries } = await measureQueries(out, { index, dir, now }, false);
  const list = [...index.files.values()];
  return {
    years: scale.years,
    snapshotDays,
    objects: list.length,
    bytes: list.reduce((n, f) => n + f.size, 0),
    costObjects: list.filter((f) => f.table === 'costs').length,
    focusObjects: list.filter((f) => f.table === 'focus').length,
    seconds: { history: seconds(historyEnded - started), queries: seconds(performance.now() - historyEnded) },
    queries,
  };
}

/** The newest snapshot of each table copied to the days `from`..`to`-1 before it. */
/** Moves the one snapshot day of each snapshot table (and its manifests) to `day`. */
async function fileSnapshotAs(out: string, day: string): Promise<void> {
  for (const table of SNAPSHOT_TABLES) {
    for (const folder of [join(out, table), join(out, '_manifests', table)]) {
      const taken = (await readdir(folder).catch(() => [])).filter((f) => f.startsWith('snapshot_date='));
      for (const name of taken)
        if (name !== `snapshot_date=${day}`)
          await rename(join(folder, name), join(folder, `snapshot_date=${day}`));
    }
  }
}

export async function copySnapshots(out: string, newestDay: string, from: number, to: number): Promise<void> {
  for (const table of SNAPSHOT_TABLES) {
    const newest = join(out, table, `snapshot_date=${newestDay}`);
    if (!(await stat(newest).catch(() => undefined))) continue;
    for (let d = from; d < to; d++) {
      await cp(newest, join(out, table, `snapshot_date=${addDays(newestDay, -d)}`), { recursive: true });
    }
  }
}

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
/** Calendar months from `from`'s to `to`'s, both counted. */
function monthsBetween(from: string, to: string): number {
  const month = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  return month(to) - month(from) + 1;
}
const viewName = (sql: string) => /CREATE OR REPLACE VIEW\s+(\w+)/.exec(sql)![1]!;

/**
 * Costs for the year (and the focus rows the cost export derives at its end) and one inventory
 * snapshot by the CLI; the snapshot copied to every day before. The CLI's progress goes to stderr.
 */
export async function exportYear(
  dir: string,
  out: string,
  scale: ReadingScale,
): Promise<Pick<CostRunSummary, 'units' | 'rows'>> {
  const started = performance.now();
  const simulator = await startSimulator({
    seed: 7,
    dataSources: scale.dataSources,
    workspaces: 3,
    from: scale.from,
    to: scale.to,
    rowsPerDay: scale.rowsPerDay,
    exactRowsPerDay: true,
    cloudServices: scale.cloudServices,
  });
  let summary: CostRunSummary;
  try {
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const common = ['--endpoint', simulator.url, '--secret-file', join(dir, 'app.secret'), '--out', out];
    const io = cliIo();
    // Cloudforet's cost reports of every month before the last one, archived with the costs (the
    // saved queries over them need their tables): one DONE report per workspace and month.
    for (let m = scale.from.slice(0, 7); m < scale.to.slice(0, 7); m = addDays(`${m}-01`, 31).slice(0, 7))
      simulator.runCostReportJob(m, 'DONE');
    const costs = await cli(
      ['costs', ...common, '--from', scale.from, '--to', scale.to, '--json', '--cost-reports'],
      {},
      io,
    );
    // The CLI takes today's snapshot only (EVENT_SNAPSHOT_NOT_TODAY): filed as the year's last day.
    const inventory = await cli(['inventory', ...common], {}, cliIo());
    if (inventory === 0) await fileSnapshotAs(out, scale.to);
    if (costs !== 0 || inventory !== 0)
      throw new Error(`reading: the export failed (${costs}, ${inventory})`);
    summary = JSON.parse(io.out()) as CostRunSummary;
    if (!summary.focus || summary.focus.failures.length > 0)
      throw new Error(`reading: the focus pass did not run or failed (${JSON.stringify(summary.focus)})`);
  } finally {
    await simulator.close();
  }
  // Daily snapshots hold the same records day after day here: the layout is what matters.
  await copySnapshots(out, scale.to, 1, scale.snapshotDays);
  progress(`reading: exported a year in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return summary;
}

/** The CLI's streams in process: its progress lines to stderr, its answer kept. */
function cliIo(): CliIo & { out: () => string } {
  const out: string[] = [];
  const stream = (write: (text: string) => void) =>
    ({
      isTTY: false,
      write: (chunk: string) => {
        write(String(chunk));
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  return {
    stdout: stream((text) => out.push(text)),
    stderr: stream((text) => process.stderr.write(`reading: ${text}`)),
    out: () => out.join(''),
  };
}

/**
 * Every Parquet object of the export (its table, partition, size and column chunk bytes), and how
 * many JSON objects each ledger table holds.
 */
export async function indexFiles(out: string): Promise<ExportIndex> {
  const files = new Map<string, FileInfo>();
  const ledger = new Map<string, number>();
  for (const table of ledgerTables) {
    const found = await readdir(join(out, ledgerPrefix(table.name)), { recursive: true }).catch(() => []);
    const json = found.map(String).filter((f) => f.endsWith('.json'));
    ledger.set(table.name, json.length);
    // The rollup's partitions (table_name=costs, …) are counted apart: a question names one.
    for (const f of json)
      ledger.set(`${table.name}/${dirname(f)}`, (ledger.get(`${table.name}/${dirname(f)}`) ?? 0) + 1);
  }
  const db = await athenaOver(out);
  try {
    for (const table of exportTables) {
      // focus is partitioned by billing period, then charge day: two folders.
      const glob = join(out, table.name, ...(table.dayKey ? ['*', '*'] : ['*']), '*.parquet');
      if (!(await stat(join(out, table.name)).catch(() => undefined))) continue;
      const rows = await db.run(
        `SELECT file_name AS f, path_in_schema AS c, sum(total_compressed_size) AS z FROM parquet_metadata('${glob}') GROUP BY 1, 2`,
      );
      for (const r of rows) {
        const path = String(r.f);
        let info = files.get(path);
        if (!info) {
          // billed_date=2026-01-05, or x_billing_period=2026-01/x_charge_day=05: 2026-01/05.
          const folders = path.split(sep).slice(0, -1).reverse();
          const keys = folders.slice(0, table.dayKey ? 2 : 1).reverse();
          const partition = keys.map((k) => k.split('=')[1]!).join('/');
          info = { table: table.name, partition, size: (await stat(path)).size, columns: new Map() };
          files.set(path, info);
        }
        info.columns.set(String(r.c), Number(r.z));
      }
    }
  } finally {
    db.close();
  }
  return { files, ledger };
}

interface ScanNode {
  operator_type?: string;
  extra_info?: Record<string, string | string[] | undefined>;
  children?: ScanNode[];
  total_bytes_read?: number;
}

interface ProfileContext {
  readonly index: ExportIndex;
  /** Where the profiles are written. */
  readonly dir: string;
  /** Athena's clock. */
  readonly now: Date;
}

/** One query under DuckDB's profiler: what it read, and the least it needs. */
export async function profile(
  db: AthenaLike,
  sql: string,
  name: string,
  { index: { files, ledger }, dir, now }: ProfileContext,
): Promise<Omit<QueryReading, 'query'>> {
  const output = join(dir, `profile-${name}.json`);
  await db.connection.run(`PRAGMA enable_profiling = 'json'`);
  await db.connection.run(`PRAGMA profiling_output = '${output}'`);
  await db.connection.run(
    `SET custom_profiling_settings = '{"TOTAL_BYTES_READ": "true", "EXTRA_INFO": "true", "OPERATOR_TYPE": "true"}'`,
  );
  const started = performance.now();
  // Kept in DuckDB, not turned into JavaScript rows: a view's SELECT * is 180,000 wide rows.
  await db.connection.run(trinoToDuckDb(sql, now));
  const ms = Math.round(performance.now() - started);
  await db.connection.run('PRAGMA disable_profiling');
  progress(`reading: ${name} in ${(ms / 1000).toFixed(1)} s`);
  if (process.env.READING_KEEP) await writeFile(`/tmp/profile-${name}.json`, await readFile(output));
  const root = JSON.parse(await readFile(output, 'utf8')) as ScanNode;
  let objects = 0;
  let minObjects = 0;
  let minBytes = 0;
  const ledgersRead = new Set<string>();
  for (const scan of scans(root)) {
    const info = scan.extra_info ?? {};
    const glob = [info['Filename(s)'] ?? ''].flat().join(',');
    const table = exportTables.find((t) => glob.includes(`${sep}${t.name}${sep}`))?.name;
    const read = Number(info['Total Files Read'] ?? 0);
    objects += read;
    // A ledger table is partitioned by export day: a question about billed days reads it whole,
    // once; of the rollup, the one partition the question names (LEDGER_LEAST). DuckDB reports no
    // bytes for JSON, so neither does the least.
    const ledgerTable = ledgerTables.find((t) => glob.includes(`${sep}${ledgerPrefix(t.name)}`))?.name;
    if (ledgerTable && read > 0 && !ledgersRead.has(ledgerTable)) {
      ledgersRead.add(ledgerTable);
      const part = LEDGER_LEAST[ledgerTable];
      minObjects += ledger.get(part ? `${ledgerTable}/${part}` : ledgerTable) ?? 0;
    }
    if (!table || read === 0) continue;
    const columns = `${[info.Projections ?? ''].flat().join(',')},${[info.Filters ?? ''].flat().join(',')}`;
    // The newest partitions first: every query's window ends now.
    const candidates = [...files.values()]
      .filter((f) => f.table === table)
      .sort((x, y) => (x.partition < y.partition ? 1 : x.partition > y.partition ? -1 : 0));
    const newest = candidates[0]?.partition;
    const needed =
      SNAPSHOT_TABLES.has(table) && !EVERY_SNAPSHOT.has(name)
        ? candidates.filter((f) => f.partition === newest)
        : candidates.slice(0, read);
    minObjects += needed.length;
    for (const file of needed) {
      const chunks = [...file.columns.values()].reduce((n, z) => n + z, 0);
      minBytes += file.size - chunks; // footer and magic
      for (const [column, bytes] of file.columns) if (mentions(columns, column)) minBytes += bytes;
    }
  }
  return { objects, bytes: Number(root.total_bytes_read ?? 0), minObjects, minBytes, ms };
}

/**
 * DuckDB's own compaction, for comparison with ours (costs_monthly, written by the cost run): the
 * year's cost rows rewritten one object a month (DuckDB's writer, ZSTD, row groups of 122,880),
 * and the same question asked of both layouts.
 */
async function compact(db: AthenaLike, context: ProfileContext): Promise<ReadingFigures['compaction']> {
  const monthly = join(context.dir, 'monthly');
  await db.run(
    `COPY (SELECT * EXCLUDE (billed_date) FROM costs) TO '${monthly}' ` +
      `(FORMAT PARQUET, COMPRESSION ZSTD, PARTITION_BY (billed_month), PER_THREAD_OUTPUT false)`,
  );
  await db.connection.run(
    `CREATE VIEW costs_monthly_duckdb AS SELECT * FROM read_parquet('${monthly}/*/*.parquet', hive_partitioning = true, hive_types_autocast = false)`,
  );
  const [{ a, b } = {}] = await db.run(
    'SELECT (SELECT count(*) FROM costs) AS a, (SELECT count(*) FROM costs_monthly_duckdb) AS b',
  );
  if (Number(a) !== Number(b)) throw new Error(`reading: ${a} cost rows, ${b} once compacted`);
  const question = (table: string) =>
    `SELECT billed_month, provider, sum(cost) AS cost FROM ${table} GROUP BY 1, 2 ORDER BY 1, 2`;
  const daily = {
    query: 'year by month (daily objects)',
    ...(await profile(db, question('costs'), 'daily', context)),
  };
  const monthlyRead = await profile(db, question('costs_monthly_duckdb'), 'monthly', context);
  const sizes = await db.run(
    `SELECT count(DISTINCT file_name) AS n, sum(total_compressed_size) AS z FROM parquet_metadata('${monthly}/*/*.parquet')`,
  );
  return {
    daily,
    monthly: { query: 'year by month (monthly objects)', ...monthlyRead },
    monthlyObjects: Number(sizes[0]!.n),
    monthlyBytes: Number(sizes[0]!.z),
  };
}

const mentions = (text: string, column: string) => new RegExp(`(^|[^\\w])${column}([^\\w]|$)`).test(text);

function* scans(node: ScanNode): Generator<ScanNode> {
  if (node.operator_type === 'TABLE_SCAN') yield node;
  for (const child of node.children ?? []) yield* scans(child);
}

const MB = 1024 * 1024;

export function describeReading(r: ReadingFigures): string {
  const s = r.scale;
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    `reading: ${monthsBetween(s.from, s.to)} months as the CLI exports them, ${s.from} to ${s.to}, ` +
      `${s.dataSources} data sources × ${daysBetween(s.from, s.to) + 1} days × ${n(s.rowsPerDay)} rows a day ` +
      `(few rows a day keep the stage short; objects, the figure to read first, do not depend on them, bytes grow with them): ` +
      `${n(r.costUnits)} data source-days, ${n(r.costRows)} cost rows in ${n(r.costObjects)} cost objects ` +
      `(${(r.costBytes / MB).toFixed(1)} MB, ${(r.costBytes / r.costObjects / 1024).toFixed(0)} KiB each) and ` +
      `${n(r.focusObjects)} focus objects (${(r.focusBytes / MB).toFixed(1)} MB); ${s.snapshotDays} daily inventory snapshots; ` +
      `${n(r.objects)} Parquet objects, ${(r.bytes / MB).toFixed(1)} MB in all. ` +
      `Stage: ${r.seconds.total} s (export ${r.seconds.export} s, queries ${r.seconds.queries} s). ` +
      'DuckDB read (its profiler) against the least the question needs:',
    '',
    markdownTable(queryRows(r)),
    '',
    ...(r.longer ? [longerLine(r), ''] : []),
    ...windowVerdict(r),
    '',
    describeCidRefresh(r.cidRefresh),
    '',
    `compaction probe (DuckDB's writer, round 2's proposal; the exporter's own compacted months are what the views above read): the year's spend by month and provider reads ` +
      `${r.compaction.daily.objects.toLocaleString('en-US')} daily objects, ${(r.compaction.daily.bytes / MB).toFixed(2)} MB; ` +
      `rewritten one object a month (${r.compaction.monthlyObjects} objects, ${(r.compaction.monthlyBytes / MB).toFixed(1)} MB of column chunks) ` +
      `it reads ${r.compaction.monthly.objects} objects, ${(r.compaction.monthly.bytes / MB).toFixed(2)} MB.`,
  ].join('\n');
}

const mb = (bytes: number) => (bytes / MB).toFixed(2);
const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(1) : '–');

/**
 * What each saved query asks about: a window that ends now (its objects must not grow with the
 * history kept) or all of history (views, audits; they grow with the months held). Issue 40's
 * targets are checked against these (windowVerdict); a query not named here counts as all history.
 */
export const QUESTION_WINDOW: Readonly<Record<string, string>> = {
  budget_vs_actual_forecast: 'budgets now',
  completeness_missing_days: 'ledger now',
  freshness_by_data_source: 'ledger now',
  cost_by_inventory_resource: '30 days',
  cost_by_tag: '30 days',
  daily_cost_by_provider: '30 days',
  focus_cost_last_30_days: '30 days',
  top_resources_last_30_days: '30 days',
  cost_by_workspace_project_usd: 'last month',
  last_month_spend_usd_by_provider_project: 'last month',
  month_to_date_by_workspace_project: 'this month',
  month_to_date_by_workspace_project_name: 'this month',
  month_to_date_spend_usd_by_provider_project: 'this month',
  inventory_counts_by_type: '90 snapshot days',
  spend_usd_by_month_last_12_months: 'a year',
};
/** Round 2's total (docs/performance.md) and issue 40's bounds on it and on one query. */
const ROUND_2_OBJECTS = 27_342;
const MOST_OBJECTS_A_QUERY = 600;

/** Issue 40's three targets, each met or not, with the figures that decide it. */
export function windowVerdict(r: ReadingFigures): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const total = sum(r.queries, 'objects');
  const largest = r.queries.reduce((a, q) => (q.objects > a.objects ? q : a));
  const lines = [
    `targets: all queries and views at 1 year read ${n(total)} objects, ${((100 * total) / ROUND_2_OBJECTS).toFixed(0)} % of round 2's ${n(ROUND_2_OBJECTS)} ` +
      `(at most a quarter: ${total * 4 <= ROUND_2_OBJECTS ? 'met' : 'NOT MET'}); the largest, ${largest.query}, ` +
      `${n(largest.objects)} (at most ${MOST_OBJECTS_A_QUERY}: ${largest.objects <= MOST_OBJECTS_A_QUERY ? 'met' : 'NOT MET'})`,
  ];
  if (!r.longer) return lines;
  const l = r.longer;
  const windowed = r.queries.filter((q) => QUESTION_WINDOW[q.query]);
  const grew = windowed.flatMap((q) => {
    const later = l.queries.find((x) => x.query === q.query);
    return later && later.objects !== q.objects ? [`${q.query} ${n(q.objects)} → ${n(later.objects)}`] : [];
  });
  lines.push(
    `targets: ${windowed.length} questions about a window ending now (${[...new Set(windowed.map((q) => QUESTION_WINDOW[q.query]))].join(', ')}) ` +
      `read the same objects at ${l.years} years as at 1: ${grew.length === 0 ? 'met' : `NOT MET (${grew.join('; ')})`}`,
  );
  const history = r.queries.filter((q) => !QUESTION_WINDOW[q.query]);
  const growth = history
    .map((q) => (l.queries.find((x) => x.query === q.query)?.objects ?? 0) / Math.max(1, q.objects))
    .sort((a, b) => a - b);
  lines.push(
    `all history (${history.length} views and audits): ×${growth[0]?.toFixed(1)} to ×${growth.at(-1)?.toFixed(1)} ` +
      `the objects for ×${l.years} the months held`,
  );
  return lines;
}

/** Per query: one year against the least; with a longer history, its figures and the growth. */
function queryRows(r: ReadingFigures): string[][] {
  const n = (x: number) => x.toLocaleString('en-US');
  const y = r.longer?.years;
  const head = ['query or view', 'window', 'objects', 'MB read', 'least objects', 'least MB', '× least'];
  if (y) head.push(`objects ${y}y`, `MB ${y}y`, `least objects ${y}y`, `objects ×${y}y/1y`);
  return [
    head,
    ...r.queries.map((q) => {
      const row = [
        q.query,
        QUESTION_WINDOW[q.query] ?? 'all history',
        n(q.objects),
        mb(q.bytes),
        n(q.minObjects),
        mb(q.minBytes),
        ratio(q.bytes, q.minBytes),
      ];
      const l = r.longer?.queries.find((x) => x.query === q.query);
      if (l) row.push(n(l.objects), mb(l.bytes), n(l.minObjects), ratio(l.objects, q.objects));
      return row;
    }),
    [
      'all',
      '',
      n(sum(r.queries, 'objects')),
      mb(sum(r.queries, 'bytes')),
      n(sum(r.queries, 'minObjects')),
      mb(sum(r.queries, 'minBytes')),
      '',
    ].concat(
      r.longer
        ? [
            n(sum(r.longer.queries, 'objects')),
            mb(sum(r.longer.queries, 'bytes')),
            n(sum(r.longer.queries, 'minObjects')),
            ratio(sum(r.longer.queries, 'objects'), sum(r.queries, 'objects')),
          ]
        : [],
    ),
  ];
}

const sum = (qs: readonly QueryReading[], key: 'objects' | 'bytes' | 'minObjects' | 'minBytes') =>
  qs.reduce((n, q) => n + q[key], 0);

function longerLine(r: ReadingFigures): string {
  const l = r.longer!;
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    `${l.years} years of history (the year copied to the ${l.years - 1} periods before it, ${n(l.snapshotDays)} snapshot days; ` +
    `reading-history.ts): ${n(l.costObjects)} cost and ${n(l.focusObjects)} focus objects, ${n(l.objects)} Parquet objects, ` +
    `${(l.bytes / MB).toFixed(1)} MB; made in ${l.seconds.history} s, queries ${l.seconds.queries} s. ` +
    `Largest single query: ${n(Math.max(...r.queries.map((q) => q.objects)))} objects at 1 year, ` +
    `${n(Math.max(...l.queries.map((q) => q.objects)))} at ${l.years}.`
  );
}

/** The reading figures for the JSON line. */
export function readingSummary(r: ReadingFigures): Record<string, unknown> {
  return {
    scale: r.scale,
    costUnits: r.costUnits,
    costRows: r.costRows,
    objects: r.objects,
    bytes: r.bytes,
    costObjects: r.costObjects,
    costBytes: r.costBytes,
    focusObjects: r.focusObjects,
    focusBytes: r.focusBytes,
    seconds: r.seconds,
    compaction: {
      dailyObjects: r.compaction.daily.objects,
      dailyBytes: r.compaction.daily.bytes,
      monthlyObjects: r.compaction.monthly.objects,
      monthlyBytes: r.compaction.monthly.bytes,
    },
    cidRefresh: r.cidRefresh,
    queries: byQuery(r.queries),
    ...(r.longer && {
      longer: {
        years: r.longer.years,
        snapshotDays: r.longer.snapshotDays,
        objects: r.longer.objects,
        bytes: r.longer.bytes,
        seconds: r.longer.seconds,
        queries: byQuery(r.longer.queries),
      },
    }),
  };
}

const byQuery = (queries: readonly QueryReading[]) =>
  Object.fromEntries(
    queries.map((q) => [
      q.query,
      { objects: q.objects, bytes: q.bytes, minObjects: q.minObjects, minBytes: q.minBytes, ms: q.ms },
    ]),
  );

// Standalone: tsx tools/bench/reading.ts [rowsPerDay] [snapshotDays] [years]
if (process.argv[1]?.endsWith(`bench${sep}reading.ts`)) {
  const [rows, days, years] = process.argv.slice(2).map(Number);
  const figures = await measureReading({
    ...READING_SCALE,
    ...(years ? { years } : {}),
    ...(process.env.READING_FROM ? { from: process.env.READING_FROM } : {}),
    ...(rows ? { rowsPerDay: rows } : {}),
    ...(days ? { snapshotDays: days } : {}),
  });
  console.log(describeReading(figures));
  console.log(JSON.stringify(readingSummary(figures)));
}
