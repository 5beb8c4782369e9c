// Where the bytes of a cost file go: one unit exported by the real pipeline, its column chunks
// measured by DuckDB, and the same rows rewritten by DuckDB's own writer (GZIP, and ZSTD at
// level 19) as a yardstick for what any writer gets out of this data.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudforetClient, createDispatcher } from '../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { listDataSources } from '../../functions/lib/costs/data-sources.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB } from '../../test/support/parquet-readers.ts';

export interface SizeProfile {
  readonly rows: number;
  /** Bytes per row of the whole file: ours, then DuckDB's writer on the same rows. */
  readonly ours: number;
  readonly duckdbGzip: number;
  readonly duckdbZstd19: number;
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
      { client, sink: dirSink(dir), unifiedCosts: false },
      { from: date, to: date, dataSourceIds: [first.id], force: true },
    );
    const file = join(dir, 'costs', `billed_date=${date}`, `${first.id}.parquet`);
    const perRow = (bytes: unknown) => Number(bytes) / summary.rows;
    const { rows: columns } = await queryDuckDB(
      `SELECT path_in_schema AS c, sum(total_compressed_size) AS z, any_value(encodings) AS e
       FROM parquet_metadata('${file}') GROUP BY 1 ORDER BY 2 DESC`,
    );
    const rewrite = async (options: string) => {
      const out = join(dir, `duckdb-${options.replace(/\W+/g, '-')}.parquet`);
      await queryDuckDB(
        `COPY (SELECT * FROM read_parquet('${file}')) TO '${out}' (FORMAT PARQUET, ${options})`,
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
