// Rows ordered inside each row group by the table's clustering columns, and column chunks left
// uncompressed where the codec would make them larger: three independent readers (DuckDB,
// arrow-rs, hyparquet) read back the same multiset of rows, each row whole.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { PAGE_BYTES } from '../../../functions/lib/parquet/data-pages.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB, readWithArrow, readWithHyparquet } from '../../../harness/parquet-readers.ts';
import { pageFigures } from '../../../tools/bench/profile.ts';

interface Probe {
  id: string;
  kind?: string | null;
  region?: string | null;
  amount?: number | null;
  big?: string | null;
  one?: string | null;
}

const columns: TableDef<Probe, undefined>['columns'] = [
  { name: 'id', type: 'string', description: '', value: (r) => r.id },
  { name: 'kind', type: 'string', description: '', value: (r) => r.kind },
  { name: 'region', type: 'string', description: '', value: (r) => r.region },
  { name: 'amount', type: 'double', description: '', value: (r) => r.amount },
  { name: 'big', type: 'string', description: '', value: (r) => r.big },
  { name: 'one', type: 'string', description: '', value: (r) => r.one },
];
const base = {
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: 'cluster probe',
  columns,
} as const;
const clustered: TableDef<Probe, undefined> = { ...base, name: 'clustered', clusterBy: ['kind', 'region'] };
const plain: TableDef<Probe, undefined> = { ...base, name: 'arrival' };

let dir: string;
let files = 0;

async function write(table: TableDef<Probe, undefined>, rows: Probe[], rowGroupRows: number) {
  const key = `probe/${++files}.parquet`;
  const upload = dirSink(dir).begin(key, 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table, upload, undefined, { rowGroupRows });
  for (let i = 0; i < rows.length; i += 700) await writer.append(rows.slice(i, i + 700));
  await writer.close();
  await upload.commit();
  return new Uint8Array(await readFile(join(dir, key)));
}

const norm = (r: Record<string, unknown>) =>
  JSON.stringify(['id', 'kind', 'region', 'amount', 'big', 'one'].map((c) => r[c] ?? null));

async function readAll(bytes: Uint8Array) {
  const path = join(dir, `read-${++files}.parquet`);
  await writeFile(path, bytes);
  return {
    duck: (await queryDuckDB(`SELECT * FROM read_parquet('${path}')`)).rows.map(norm),
    arrow: readWithArrow(bytes).rows.map(norm),
    hyparquet: (await readWithHyparquet(bytes)).map(norm),
  };
}

/** A number of 0..n-1 drawn from i, the same every run. */
const draw = (i: number, salt: number, n: number) => (Math.imul(i + salt, 2654435761) >>> 8) % n;

/** Rows in id order (as the API's keyset pages give them), a few columns of few values. */
function rows(n: number, bigEvery = 0): Probe[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `cost-${i.toString(16).padStart(8, '0')}`,
    kind: i % 11 === 0 ? null : ['compute', 'storage', 'network', 'database'][draw(i, 1, 4)],
    region: ['us-east-1', 'eu-west-1', 'ap-northeast-2'][draw(i, 2, 3)],
    amount: i % 17 === 0 ? null : ((i * 7919) % 1000) / 8,
    // Distinct, so PLAIN; large enough every `bigEvery` rows to cut pages.
    big: bigEvery && i % bigEvery === 0 ? `${i}:`.padEnd(300_000, 'x') : i % 5 === 0 ? null : `b-${i}`,
    one: 'same',
  }));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cluster-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('clustering rows inside a row group', () => {
  it('orders each row group by the clustering columns, and every reader gets the same rows', async () => {
    const input = rows(23_000);
    const bytes = await write(clustered, input, 10_000);
    const read = await readAll(bytes);
    const expected = input.map((r) => norm(r as unknown as Record<string, unknown>)).sort();
    for (const got of Object.values(read)) expect([...got].sort()).toEqual(expected);
    // Within each row group of 10,000, rows come grouped by kind then region.
    const { rows: order } = await queryDuckDB(
      `SELECT kind, region FROM read_parquet('${join(dir, `read-${files}.parquet`)}')`,
    );
    for (let g = 0; g < 3; g++) {
      const group = order.slice(g * 10_000, (g + 1) * 10_000).map((r) => `${r.kind}|${r.region}`);
      const runs = group.filter((k, i) => i === 0 || k !== group[i - 1]).length;
      expect(runs).toBe(new Set(group).size);
    }
  });

  it('cuts the pages of a large PLAIN column again in the new order', async () => {
    const input = rows(3_000, 97);
    const bytes = await write(clustered, input, 3_000);
    expect(pageFigures(bytes).largestPageBytes).toBeLessThanOrEqual(PAGE_BYTES + 300_100);
    const read = await readAll(bytes);
    const expected = input.map((r) => norm(r as unknown as Record<string, unknown>)).sort();
    for (const got of Object.values(read)) expect([...got].sort()).toEqual(expected);
  });

  it('makes the clustering columns smaller than in arrival order', async () => {
    const input = rows(20_000);
    const size = (bytes: Uint8Array) =>
      parquetMetadata(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      )
        .row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!))
        .filter((m) => m.path_in_schema[0] === 'kind' || m.path_in_schema[0] === 'region')
        .reduce((n, m) => n + Number(m.total_compressed_size), 0);
    const sorted = size(await write(clustered, input, 20_000));
    const arrival = size(await write(plain, input, 20_000));
    // (Whole files are the bench's to compare: an id column in arrival order loses its order.)
    expect(sorted).toBeLessThan(arrival / 4);
  });
});

describe('column chunks the codec would make larger', () => {
  it('are written UNCOMPRESSED, and no data page of such a file grows', async () => {
    const bytes = await write(plain, rows(5_000), 5_000);
    const meta = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    );
    const codecs = Object.fromEntries(
      meta.row_groups[0]!.columns.map((c) => [c.meta_data!.path_in_schema[0], c.meta_data!.codec]),
    );
    expect(codecs.one).toBe('UNCOMPRESSED');
    expect(codecs.id).toBe('ZSTD');
    for (const chunk of meta.row_groups[0]!.columns) {
      const m = chunk.meta_data!;
      if (m.codec === 'UNCOMPRESSED') expect(m.total_compressed_size).toBe(m.total_uncompressed_size);
    }
    const read = await readAll(bytes);
    expect(read.duck).toEqual(read.arrow);
    expect(read.hyparquet).toEqual(read.arrow);
    expect([...read.duck].sort()).toEqual(
      rows(5_000)
        .map((r) => norm(r as unknown as Record<string, unknown>))
        .sort(),
    );
  });
});
