// The cost of reading (npm run bench -- --reading): a year of cost files (12 months × 5 data
// sources) and daily inventory snapshots, written by the exporter's own writer (the CLI against
// the simulator) into a directory laid out as the bucket; then every saved query and view run
// in DuckDB (tools/duckdb-athena.ts translates them) under its profiler, DuckDB standing in for
// Athena's scan. Per query: the objects and bytes DuckDB read, against the minimum the question
// needs: the columns it reads, in the partitions its filters select, and of snapshot tables only
// the newest day (a name or an inventory count is asked as of now).
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { main as cli } from '../../cli/main.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { exportTables } from '../../functions/lib/tables/all-tables.ts';
import { loadNamedQueries } from '../../infra/named-queries.ts';
import { fakeIo } from '../../test/support/fake-io.ts';
import { type AthenaLike, athenaOver } from '../duckdb-athena.ts';
import { startSimulator } from '../simulator/index.ts';
import { markdownTable } from './markdown.ts';

export interface ReadingScale {
  readonly dataSources: number;
  readonly from: string;
  readonly to: string;
  readonly rowsPerDay: number;
  readonly snapshotDays: number;
  readonly cloudServices: number;
}

/**
 * The year up to yesterday by the real clock (Athena's clock stands at today, noon UTC): the
 * exporter keeps to Cloudforet's retention as of the real clock, and a fixed window once lost its
 * oldest month to it.
 */
const YESTERDAY = addDays(utcDay(new Date()), -1);
export const READING_SCALE: ReadingScale = {
  dataSources: 5,
  from: addDays(YESTERDAY, -364),
  to: YESTERDAY,
  rowsPerDay: 1000,
  snapshotDays: 365,
  cloudServices: 2000,
};

export interface QueryReading {
  readonly query: string;
  readonly objects: number;
  readonly bytes: number;
  readonly minObjects: number;
  readonly minBytes: number;
}

export interface ReadingFigures {
  readonly scale: ReadingScale;
  readonly costRows: number;
  /** The whole export: parquet objects and bytes, and of them the costs table. */
  readonly objects: number;
  readonly bytes: number;
  readonly costObjects: number;
  readonly costBytes: number;
  readonly queries: QueryReading[];
  /** A year's spend by month and provider over the daily objects, and over one object a month. */
  readonly compaction: {
    daily: QueryReading;
    monthly: QueryReading;
    monthlyObjects: number;
    monthlyBytes: number;
  };
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
 * Questions about a series of snapshot days (names as of each cost day; counts on each day of
 * 90): every snapshot day their filter selects is needed. The others ask as of now.
 */
const EVERY_SNAPSHOT = new Set(['create_costs_named_as_of_day_view', 'inventory_counts_by_type']);
const progress = (text: string) => process.stderr.write(`${text}\n`);

export async function measureReading(scale: ReadingScale = READING_SCALE): Promise<ReadingFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-reading-'));
  const out = join(dir, 'out');
  try {
    await exportYear(dir, out, scale);
    const files = await indexFiles(out);
    const now = new Date(`${addDays(scale.to, 1)}T12:00:00.000Z`);
    const queries: QueryReading[] = [];
    let compaction: ReadingFigures['compaction'] | undefined;
    const all = loadNamedQueries();
    const db = await athenaOver(out, { now });
    try {
      // Every query reads from the files, not from what the one before left in DuckDB's caches.
      await db.connection.run('SET enable_external_file_cache = false');
      await db.connection.run('SET parquet_metadata_cache = false');
      // Views are only definitions: creating them reads no data.
      for (const q of all) if (q.sql.startsWith('CREATE OR REPLACE VIEW')) await db.run(q.sql);
      for (const q of all) {
        const sql = q.sql.startsWith('CREATE OR REPLACE VIEW') ? `SELECT * FROM ${viewName(q.sql)}` : q.sql;
        queries.push({ query: q.name, ...(await profile(db, sql, q.name, files, dir)) });
      }
      compaction = await compact(db, files, dir);
    } finally {
      db.close();
    }
    const list = [...files.values()];
    const costs = list.filter((f) => f.table === 'costs');
    return {
      scale,
      costRows: scale.dataSources * scale.rowsPerDay * (daysBetween(scale.from, scale.to) + 1),
      objects: list.length,
      bytes: list.reduce((n, f) => n + f.size, 0),
      costObjects: costs.length,
      costBytes: costs.reduce((n, f) => n + f.size, 0),
      queries,
      compaction: compaction!,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
const viewName = (sql: string) => /CREATE OR REPLACE VIEW\s+(\w+)/.exec(sql)![1]!;

/** Costs for the year and one inventory snapshot by the CLI; the snapshot copied to every day before. */
async function exportYear(dir: string, out: string, scale: ReadingScale): Promise<void> {
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
  try {
    await writeFile(join(dir, 'app.secret'), simulator.issueToken());
    const common = ['--endpoint', simulator.url, '--secret-file', join(dir, 'app.secret'), '--out', out];
    const costs = await cli(['costs', ...common, '--from', scale.from, '--to', scale.to], {}, fakeIo());
    const inventory = await cli(['inventory', ...common, '--snapshot-date', scale.to], {}, fakeIo());
    if (costs !== 0 || inventory !== 0)
      throw new Error(`reading: the export failed (${costs}, ${inventory})`);
  } finally {
    await simulator.close();
  }
  // Daily snapshots hold the same records day after day here: the layout is what matters.
  for (const table of SNAPSHOT_TABLES) {
    const newest = join(out, table, `snapshot_date=${scale.to}`);
    if (!(await stat(newest).catch(() => undefined))) continue;
    for (let d = 1; d < scale.snapshotDays; d++) {
      await cp(newest, join(out, table, `snapshot_date=${addDays(scale.to, -d)}`), { recursive: true });
    }
  }
  progress(`reading: exported a year in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** Every Parquet object of the export: its table, partition, size and column chunk bytes. */
async function indexFiles(out: string): Promise<Map<string, FileInfo>> {
  const files = new Map<string, FileInfo>();
  const db = await athenaOver(out);
  try {
    for (const table of exportTables) {
      const glob = join(out, table.name, '*', '*.parquet');
      if (!(await stat(join(out, table.name)).catch(() => undefined))) continue;
      const rows = await db.run(
        `SELECT file_name AS f, path_in_schema AS c, sum(total_compressed_size) AS z FROM parquet_metadata('${glob}') GROUP BY 1, 2`,
      );
      for (const r of rows) {
        const path = String(r.f);
        let info = files.get(path);
        if (!info) {
          const partition = path.split(sep).at(-2)!.split('=')[1]!;
          info = { table: table.name, partition, size: (await stat(path)).size, columns: new Map() };
          files.set(path, info);
        }
        info.columns.set(String(r.c), Number(r.z));
      }
    }
  } finally {
    db.close();
  }
  return files;
}

interface ScanNode {
  operator_type?: string;
  extra_info?: Record<string, string | string[] | undefined>;
  children?: ScanNode[];
  total_bytes_read?: number;
}

/** One query in a fresh database under DuckDB's profiler: what it read, and the least it needs. */
async function profile(
  db: AthenaLike,
  sql: string,
  name: string,
  files: Map<string, FileInfo>,
  dir: string,
): Promise<Omit<QueryReading, 'query'>> {
  const output = join(dir, `profile-${name}.json`);
  await db.connection.run(`PRAGMA enable_profiling = 'json'`);
  await db.connection.run(`PRAGMA profiling_output = '${output}'`);
  await db.connection.run(
    `SET custom_profiling_settings = '{"TOTAL_BYTES_READ": "true", "EXTRA_INFO": "true", "OPERATOR_TYPE": "true"}'`,
  );
  await db.run(sql);
  await db.connection.run('PRAGMA disable_profiling');
  if (process.env.READING_KEEP) await writeFile(`/tmp/profile-${name}.json`, await readFile(output));
  const root = JSON.parse(await readFile(output, 'utf8')) as ScanNode;
  let objects = 0;
  let minObjects = 0;
  let minBytes = 0;
  for (const scan of scans(root)) {
    const info = scan.extra_info ?? {};
    const glob = [info['Filename(s)'] ?? ''].flat().join(',');
    const table = exportTables.find((t) => glob.includes(`${sep}${t.name}${sep}`))?.name;
    const read = Number(info['Total Files Read'] ?? 0);
    objects += read;
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
  return { objects, bytes: Number(root.total_bytes_read ?? 0), minObjects, minBytes };
}

/**
 * The proposal's second table, measured: the year's cost rows rewritten one object a month
 * (DuckDB's writer, ZSTD, row groups of 122,880), and the same question asked of both layouts.
 */
async function compact(
  db: AthenaLike,
  files: Map<string, FileInfo>,
  dir: string,
): Promise<ReadingFigures['compaction']> {
  const monthly = join(dir, 'monthly');
  await db.run(
    `COPY (SELECT * EXCLUDE (billed_date) FROM costs) TO '${monthly}' ` +
      `(FORMAT PARQUET, COMPRESSION ZSTD, PARTITION_BY (billed_month), PER_THREAD_OUTPUT false)`,
  );
  await db.connection.run(
    `CREATE VIEW costs_monthly AS SELECT * FROM read_parquet('${monthly}/*/*.parquet', hive_partitioning = true, hive_types_autocast = false)`,
  );
  const [{ a, b } = {}] = await db.run(
    'SELECT (SELECT count(*) FROM costs) AS a, (SELECT count(*) FROM costs_monthly) AS b',
  );
  if (Number(a) !== Number(b)) throw new Error(`reading: ${a} cost rows, ${b} once compacted`);
  const question = (table: string) =>
    `SELECT billed_month, provider, sum(cost) AS cost FROM ${table} GROUP BY 1, 2 ORDER BY 1, 2`;
  const daily = {
    query: 'year by month (daily objects)',
    ...(await profile(db, question('costs'), 'daily', files, dir)),
  };
  const monthlyRead = await profile(db, question('costs_monthly'), 'monthly', files, dir);
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
  return [
    `reading: ${s.dataSources} data sources × ${daysBetween(s.from, s.to) + 1} days (${s.from} to ${s.to}) × ` +
      `${s.rowsPerDay.toLocaleString('en-US')} rows = ${r.costRows.toLocaleString('en-US')} cost rows in ` +
      `${r.costObjects.toLocaleString('en-US')} objects (${(r.costBytes / MB).toFixed(1)} MB, ` +
      `${(r.costBytes / r.costObjects / 1024).toFixed(0)} KiB each); ${s.snapshotDays} daily inventory snapshots; ` +
      `${r.objects.toLocaleString('en-US')} Parquet objects, ${(r.bytes / MB).toFixed(1)} MB in all. ` +
      'DuckDB read (its profiler) against the least the question needs:',
    '',
    markdownTable([
      ['query or view', 'objects', 'MB read', 'least objects', 'least MB', '× least'],
      ...r.queries.map((q) => [
        q.query,
        q.objects.toLocaleString('en-US'),
        (q.bytes / MB).toFixed(2),
        q.minObjects.toLocaleString('en-US'),
        (q.minBytes / MB).toFixed(2),
        q.minBytes > 0 ? (q.bytes / q.minBytes).toFixed(1) : '–',
      ]),
    ]),
    '',
    `compaction (a proposal, docs/performance.md): the year's spend by month and provider reads ` +
      `${r.compaction.daily.objects.toLocaleString('en-US')} daily objects, ${(r.compaction.daily.bytes / MB).toFixed(2)} MB; ` +
      `rewritten one object a month (${r.compaction.monthlyObjects} objects, ${(r.compaction.monthlyBytes / MB).toFixed(1)} MB of column chunks) ` +
      `it reads ${r.compaction.monthly.objects} objects, ${(r.compaction.monthly.bytes / MB).toFixed(2)} MB.`,
  ].join('\n');
}

/** The reading figures for the JSON line. */
export function readingSummary(r: ReadingFigures): Record<string, unknown> {
  return {
    scale: r.scale,
    costRows: r.costRows,
    objects: r.objects,
    bytes: r.bytes,
    costObjects: r.costObjects,
    costBytes: r.costBytes,
    compaction: {
      dailyObjects: r.compaction.daily.objects,
      dailyBytes: r.compaction.daily.bytes,
      monthlyObjects: r.compaction.monthly.objects,
      monthlyBytes: r.compaction.monthly.bytes,
    },
    queries: Object.fromEntries(
      r.queries.map((q) => [
        q.query,
        { objects: q.objects, bytes: q.bytes, minObjects: q.minObjects, minBytes: q.minBytes },
      ]),
    ),
  };
}

// Standalone: tsx tools/bench/reading.ts [rowsPerDay] [snapshotDays]
if (process.argv[1]?.endsWith(`bench${sep}reading.ts`)) {
  const [rows, days] = process.argv.slice(2).map(Number);
  const figures = await measureReading({
    ...READING_SCALE,
    ...(process.env.READING_FROM ? { from: process.env.READING_FROM } : {}),
    ...(rows ? { rowsPerDay: rows } : {}),
    ...(days ? { snapshotDays: days } : {}),
  });
  console.log(describeReading(figures));
  console.log(JSON.stringify(readingSummary(figures)));
}
