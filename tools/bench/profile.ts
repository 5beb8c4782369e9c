// Where the bytes of a cost file go: one unit exported by the real pipeline, its column chunks
// measured by DuckDB, and the same rows rewritten by DuckDB's own writer (GZIP, and ZSTD at
// level 19) as a yardstick for what any writer gets out of this data.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { CloudforetClient, createDispatcher } from '../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { listDataSources } from '../../functions/lib/costs/sources/data-sources.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB } from '../../harness/parquet-readers.ts';
import { markdownTable } from './markdown.ts';

export interface SizeProfile {
  readonly rows: number;
  /** Bytes per row of the whole file: ours, then DuckDB's writer on the same rows. */
  readonly ours: number;
  readonly duckdbGzip: number;
  readonly duckdbZstd19: number;
  /** DuckDB's default ZSTD level (3): the like-for-like setting beside ours (level 8). */
  readonly duckdbZstdDefault: number;
  /**
   * DuckDB's writer at ZSTD 19 on the rows in this writer's order (clustered), not the API's:
   * what ordering is worth to any writer. The yardsticks above take the API's order (cost_id).
   */
  readonly duckdbZstd19OurOrder: number;
  /** The largest data page of the file, uncompressed bytes. */
  readonly largestPageBytes: number;
  /** Data pages of the file, and how many of them came out larger after compression. */
  readonly dataPages: number;
  readonly dataPagesGrown: number;
  /** The columns that take the most, bytes per row and encodings. */
  readonly columns: ReadonlyArray<{ column: string; bytesPerRow: number; encodings: string }>;
}

export async function profileSizes(url: string, token: string, date: string): Promise<SizeProfile> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
  try {
    const client = new CloudforetClient({ endpoint: url, token, dispatcher: createDispatcher() });
    const [first] = await listDataSources(client);
    if (!first) throw new Error('bench profile: the page source has no data source');
    const summary = await runCostExport(
      { client, sink: dirSink(dir), unifiedCosts: false, focus: false },
      { from: date, to: date, dataSourceIds: [first.id], force: true },
    );
    const file = join(dir, 'costs', `billed_date=${date}`, `${first.id}.parquet`);
    const perRow = (bytes: unknown) => Number(bytes) / summary.rows;
    const { rows: columns } = await queryDuckDB(
      `SELECT path_in_schema AS c, sum(total_compressed_size) AS z, any_value(encodings) AS e
       FROM parquet_metadata('${file}') GROUP BY 1 ORDER BY 2 DESC`,
    );
    // DuckDB is handed the rows as the API gives them (keyset pages, in cost_id order).
    const rewrite = async (options: string, order = 'ORDER BY cost_id') => {
      const out = join(dir, `duckdb-${options.replace(/\W+/g, '-')}-${order.length}.parquet`);
      await queryDuckDB(
        `COPY (SELECT * FROM read_parquet('${file}') ${order}) TO '${out}' (FORMAT PARQUET, ${options})`,
      );
      const { rows } = await queryDuckDB(
        `SELECT sum(total_compressed_size) AS z FROM parquet_metadata('${out}')`,
      );
      return perRow(rows[0]!.z);
    };
    return {
      rows: summary.rows,
      ours: perRow(columns.reduce((n, r) => n + Number(r.z), 0)),
      duckdbGzip: await rewrite('COMPRESSION GZIP'),
      duckdbZstd19: await rewrite('COMPRESSION ZSTD, COMPRESSION_LEVEL 19'),
      duckdbZstdDefault: await rewrite('COMPRESSION ZSTD'),
      duckdbZstd19OurOrder: await rewrite('COMPRESSION ZSTD, COMPRESSION_LEVEL 19', ''),
      ...pageFigures(new Uint8Array(await readFile(file))),
      columns: columns.map((r) => ({
        column: String(r.c),
        bytesPerRow: perRow(r.z),
        encodings: String(r.e),
      })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Walks every page header of every column chunk: the largest data page, uncompressed, and how
 * many data pages the codec made larger than they were (a frame's cost on a page of a few bytes).
 */
export function pageFigures(
  bytes: Uint8Array,
): Pick<SizeProfile, 'largestPageBytes' | 'dataPages' | 'dataPagesGrown'> {
  const meta = parquetMetadata(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let largest = 0;
  let dataPages = 0;
  let dataPagesGrown = 0;
  for (const chunk of meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!))) {
    let at = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
    const end = at + Number(chunk.total_compressed_size);
    while (at < end) {
      const reader = { view, offset: at };
      const header = parquetHeader(reader);
      if (header.type === 'DATA_PAGE') {
        largest = Math.max(largest, header.uncompressed_page_size);
        dataPages++;
        if (header.compressed_page_size > header.uncompressed_page_size) dataPagesGrown++;
      }
      at = reader.offset + header.compressed_page_size;
    }
  }
  return { largestPageBytes: largest, dataPages, dataPagesGrown };
}

const MB = 1024 * 1024;

/** Where the bytes go, beside what DuckDB's writer makes of the same rows. */
export function describeSizes(p: SizeProfile): string {
  const perMillion = (bytesPerRow: number) => `${((bytesPerRow * 1e6) / MB).toFixed(1)} MB`;
  const top = p.columns.slice(0, 6);
  const rest = p.columns.slice(6).reduce((n, c) => n + c.bytesPerRow, 0);
  return [
    `where the bytes go (one unit of ${p.rows.toLocaleString('en-US')} rows; per million rows):`,
    '',
    markdownTable([
      ['column', 'bytes/row', 'per M rows', 'encodings'],
      ...top.map((c) => [c.column, c.bytesPerRow.toFixed(2), perMillion(c.bytesPerRow), c.encodings]),
      [`${p.columns.length - top.length} other columns`, rest.toFixed(2), perMillion(rest), ''],
      ['whole file, this writer', p.ours.toFixed(2), perMillion(p.ours), 'ZSTD level 8'],
      ['same rows, DuckDB writer', p.duckdbGzip.toFixed(2), perMillion(p.duckdbGzip), 'GZIP'],
      [
        'same rows, DuckDB writer',
        p.duckdbZstdDefault.toFixed(2),
        perMillion(p.duckdbZstdDefault),
        'ZSTD (its default, level 3)',
      ],
      ['same rows, DuckDB writer', p.duckdbZstd19.toFixed(2), perMillion(p.duckdbZstd19), 'ZSTD level 19'],
      [
        'same rows in our order, DuckDB writer',
        p.duckdbZstd19OurOrder.toFixed(2),
        perMillion(p.duckdbZstd19OurOrder),
        'ZSTD level 19',
      ],
    ]),
    '',
    `DuckDB is handed the rows in the API's order (cost_id, keyset pages); this writer orders each row group by product, region, account, resource, usage type and details first. ${p.dataPagesGrown} of ${p.dataPages} data pages (${((100 * p.dataPagesGrown) / p.dataPages).toFixed(0)} %) are larger compressed than not (chunks that would grow are written UNCOMPRESSED).`,
  ].join('\n');
}
