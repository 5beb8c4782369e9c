// Reads back what an export published, through both independent readers, per object.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { queryDuckDB, type Row, readWithArrow } from '../../harness/parquet-readers.ts';
import { getObjectBytes, listKeys } from '../../harness/s3-server.ts';

export interface PublishedObject {
  readonly key: string;
  readonly rows: Row[];
  readonly costSum: number;
}

/** Download every object under prefix into a temp dir (same relative layout); returns the dir. */
export async function downloadPrefix(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<{ dir: string; keys: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'published-'));
  const keys = await listKeys(client, bucket, prefix);
  for (const key of keys) {
    const path = join(dir, key.slice(prefix.length));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, await getObjectBytes(client, bucket, key));
  }
  return { dir, keys: keys.map((k) => k.slice(prefix.length)) };
}

/** Rows and cost sum of one Parquet file, by arrow-rs; DuckDB must agree or this throws. */
export async function readBothWays(
  path: string,
  bytes: Uint8Array,
): Promise<{ rows: Row[]; count: number; costSum: number }> {
  const arrow = readWithArrow(bytes);
  const duck = await queryDuckDB(
    `SELECT count(*) AS n, coalesce(sum(cost), 0) AS s FROM read_parquet('${path}')`,
  );
  const arrowSum = arrow.rows.reduce((s, r) => s + Number(r.cost ?? 0), 0);
  const duckCount = Number(duck.rows[0]!.n);
  const duckSum = Number(duck.rows[0]!.s);
  if (
    duckCount !== arrow.rows.length ||
    Math.abs(duckSum - arrowSum) > 1e-6 * Math.max(1, Math.abs(arrowSum))
  ) {
    throw new Error(
      `readers disagree on ${path}: duckdb ${duckCount}/${duckSum}, arrow ${arrow.rows.length}/${arrowSum}`,
    );
  }
  return { rows: arrow.rows, count: duckCount, costSum: duckSum };
}
