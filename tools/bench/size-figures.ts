// The figures of the export that do not depend on the machine: bytes per million rows, row
// groups and pages of each table the cost run writes from one seeded simulator world. The guard
// (test/system/parquet/size-guard.test.ts) compares them with the committed baseline; `npm run size-baseline`
// rewrites it, a deliberate commit that says why.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { CloudforetClient, createDispatcher } from '../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { startSimulator } from '../../harness/simulator/index.ts';

export const SIZE_BASELINE_FILE = fileURLToPath(new URL('../../docs/size-baseline.json', import.meta.url));

/**
 * The bench's world (seed 7, its four data sources, one of them Azure-shaped), smaller: one day of
 * 26,000 rows each, so every cost object has two row groups (25,000 and 1,000 rows) at the default.
 */
export const SEEDED_WORLD = {
  seed: 7,
  dataSources: 4,
  from: '2026-01-01',
  to: '2026-01-01',
  rowsPerDay: 26_000,
  exactRowsPerDay: true,
} as const;

export interface TableFigures {
  readonly objects: number;
  readonly rows: number;
  readonly bytes: number;
  readonly bytesPerMillionRows: number;
  readonly rowGroups: number;
  readonly dataPages: number;
  readonly dictionaryPages: number;
}

export type SizeFigures = Record<string, TableFigures>;

/** The cost run as a user runs it (unified costs, FOCUS pass, compaction) over the seeded world. */
export async function measureSeededWorld(): Promise<SizeFigures> {
  const simulator = await startSimulator(SEEDED_WORLD);
  const dir = await mkdtemp(join(tmpdir(), 'size-figures-'));
  try {
    const client = new CloudforetClient({
      endpoint: simulator.url,
      token: simulator.issueToken(),
      dispatcher: createDispatcher(),
    });
    const summary = await runCostExport(
      // Fixed days stay exportable whatever the clock says: never past retention.
      { client, sink: dirSink(dir), archiveAfterDays: 100_000 },
      { from: SEEDED_WORLD.from, to: SEEDED_WORLD.to, force: true },
    );
    if (summary.failed > 0)
      throw new Error(`size figures: the export failed (${JSON.stringify(summary.failures[0])})`);
    return await tableFigures(dir);
  } finally {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every Parquet object under `dir`, by table (its first folder). */
export async function tableFigures(dir: string): Promise<SizeFigures> {
  const figures: Record<string, Omit<TableFigures, 'bytesPerMillionRows'>> = {};
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.parquet')).sort();
  for (const file of files) {
    const table = relative(dir, join(dir, file)).split(sep)[0]!;
    const bytes = new Uint8Array(await readFile(join(dir, file)));
    const f = fileFigures(bytes);
    const t = figures[table] ?? {
      objects: 0,
      rows: 0,
      bytes: 0,
      rowGroups: 0,
      dataPages: 0,
      dictionaryPages: 0,
    };
    figures[table] = {
      objects: t.objects + 1,
      rows: t.rows + f.rows,
      bytes: t.bytes + bytes.length,
      rowGroups: t.rowGroups + f.rowGroups,
      dataPages: t.dataPages + f.dataPages,
      dictionaryPages: t.dictionaryPages + f.dictionaryPages,
    };
  }
  return Object.fromEntries(
    Object.entries(figures).map(([table, t]) => [
      table,
      { ...t, bytesPerMillionRows: Math.round((t.bytes / t.rows) * 1e6) },
    ]),
  );
}

function fileFigures(bytes: Uint8Array) {
  const meta = parquetMetadata(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let dataPages = 0;
  let dictionaryPages = 0;
  for (const chunk of meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!))) {
    let at = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
    const end = at + Number(chunk.total_compressed_size);
    while (at < end) {
      const reader = { view, offset: at };
      const header = parquetHeader(reader);
      if (header.type === 'DICTIONARY_PAGE') dictionaryPages++;
      else dataPages++;
      at = reader.offset + header.compressed_page_size;
    }
  }
  return { rows: Number(meta.num_rows), rowGroups: meta.row_groups.length, dataPages, dictionaryPages };
}

/** Bytes per million rows may grow by this many percent before the guard fails. */
export const BYTES_TOLERANCE_PERCENT = 2;

/**
 * What grew beyond the baseline: bytes per million rows by more than the tolerance, row groups
 * or pages at all, a table new or gone. Empty when nothing did.
 */
export function growthBeyond(
  baseline: SizeFigures,
  now: SizeFigures,
  tolerancePercent = BYTES_TOLERANCE_PERCENT,
): string[] {
  const problems: string[] = [];
  for (const table of new Set([...Object.keys(baseline), ...Object.keys(now)])) {
    const was = baseline[table];
    const is = now[table];
    if (!was || !is) {
      problems.push(`${table}: ${was ? 'no longer written' : 'not in the baseline'}`);
      continue;
    }
    const change = is.bytesPerMillionRows / was.bytesPerMillionRows - 1;
    // In whole numbers: exactly 2 % more is still within the tolerance.
    if (is.bytesPerMillionRows * 100 > was.bytesPerMillionRows * (100 + tolerancePercent))
      problems.push(
        `${table}: ${is.bytesPerMillionRows.toLocaleString('en-US')} bytes per million rows, ` +
          `${(change * 100).toFixed(1)} % over the baseline's ${was.bytesPerMillionRows.toLocaleString('en-US')}`,
      );
    for (const key of ['rowGroups', 'dataPages', 'dictionaryPages', 'objects'] as const) {
      if (is[key] > was[key]) problems.push(`${table}: ${key} ${is[key]}, the baseline ${was[key]}`);
    }
  }
  return problems;
}

/** Each table's figures beside the baseline's, one line each. */
export function describeAgainst(baseline: SizeFigures, now: SizeFigures): string[] {
  return Object.entries(now).map(([table, t]) => {
    const was = baseline[table];
    const change = was
      ? ` (baseline ${was.bytesPerMillionRows.toLocaleString('en-US')}, ${signedPercent(t.bytesPerMillionRows / was.bytesPerMillionRows - 1)})`
      : ' (not in the baseline)';
    return `${table}: ${t.bytesPerMillionRows.toLocaleString('en-US')} bytes per million rows${change}; ${t.objects} objects, ${t.rowGroups} row groups, ${t.dataPages} data pages, ${t.dictionaryPages} dictionary pages`;
  });
}

export const signedPercent = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)} %`;
