// The Parquet encoder against independent readers: every value, null, row group boundary,
// dictionary decision and statistic it writes is read back by DuckDB and by arrow-rs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB, readWithArrow } from '../../../harness/parquet-readers.ts';

interface Probe {
  s?: string | null;
  d?: number | null;
  t?: number | null;
  b?: bigint | null;
}

const table: TableDef<Probe, undefined> = {
  name: 'probe',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: 'encoder probe',
  columns: [
    { name: 's', type: 'string', description: '', value: (r) => r.s },
    { name: 'd', type: 'double', description: '', value: (r) => r.d },
    { name: 't', type: 'timestamp', description: '', value: (r) => r.t },
    { name: 'b', type: 'bigint', description: '', value: (r) => r.b },
  ],
};

let dir: string;
let files = 0;

function open(rowGroupRows?: number) {
  const key = `probe/${++files}.parquet`;
  const upload = dirSink(dir).begin(key, 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table, upload, undefined, { rowGroupRows });
  return {
    path: join(dir, key),
    append: (rows: Probe[]) => writer.append(rows),
    close: async () => {
      await writer.close();
      await upload.commit();
    },
  };
}

async function write(rows: Probe[], rowGroupRows?: number, appendSize = rows.length): Promise<string> {
  const file = open(rowGroupRows);
  for (let i = 0; i < rows.length; i += appendSize) await file.append(rows.slice(i, i + appendSize));
  await file.close();
  return file.path;
}

/** Both readers' rows, normalised: timestamps and int64 as bigint, absent as null. */
async function readBoth(path: string) {
  const norm = (r: Record<string, unknown>) => ({
    s: r.s ?? null,
    d: r.d ?? null,
    t:
      r.t === null || r.t === undefined
        ? null
        : BigInt(r.t instanceof Date ? r.t.getTime() : (r.t as number)),
    b: r.b === null || r.b === undefined ? null : BigInt(r.b as bigint),
  });
  const arrow = readWithArrow(new Uint8Array(await readFile(path))).rows.map(norm);
  const duck = (await queryDuckDB(`SELECT s, d, epoch_ms(t) AS t, b FROM read_parquet('${path}')`)).rows.map(
    norm,
  );
  return { arrow, duck };
}

const expected = (rows: Probe[]) =>
  rows.map((r) => ({
    s: r.s ?? null,
    d: r.d ?? null,
    t: r.t === null || r.t === undefined ? null : BigInt(r.t),
    b: r.b ?? null,
  }));

async function columnChunks(path: string) {
  const { rows } = await queryDuckDB(
    `SELECT row_group_id AS g, path_in_schema AS c, encodings AS e, stats_min_value AS lo,
            stats_max_value AS hi, stats_null_count AS nulls
     FROM parquet_metadata('${path}') ORDER BY g, c`,
  );
  return rows.map((r) => ({
    group: Number(r.g),
    column: String(r.c),
    encodings: String(r.e),
    min: r.lo,
    max: r.hi,
    nulls: Number(r.nulls),
  }));
}

const AWKWARD = ['', 'a', 'Z', 'team:cost-center', '팀', 'Ａ', '\u{1F600}', 'é', 'a'.repeat(300)];

describe('Parquet encoder read back by DuckDB and arrow-rs', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parquet-encoding-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips strings, doubles, timestamps and int64 with nulls across uneven appends and row groups', async () => {
    const rows: Probe[] = Array.from({ length: 2_345 }, (_, i) => ({
      s: i % 7 === 0 ? null : `${AWKWARD[i % AWKWARD.length]}-${i % 50}`,
      d: i % 11 === 0 ? null : i % 13 === 0 ? -0 : (i - 1_000) / 8,
      t: i % 17 === 0 ? null : Date.UTC(2026, 0, 1) + i * 3_600_000,
      b: i % 19 === 0 ? null : BigInt(i) * 4_000_000_000_000n - 2n ** 62n,
    }));

    const path = await write(rows, 500, 333);
    const { arrow, duck } = await readBoth(path);
    const chunks = await columnChunks(path);

    expect(arrow).toEqual(expected(rows));
    expect(duck).toEqual(expected(rows));
    expect(Object.is(arrow[13]!.d, -0)).toBe(true);
    expect(new Set(chunks.map((c) => c.group)).size).toBe(5);
  });

  it('keeps a repetitive column in a dictionary and writes a mostly distinct one PLAIN', async () => {
    const rows: Probe[] = Array.from({ length: 10_000 }, (_, i) => ({
      s: `cost-${i.toString(16).padStart(12, '0')}`,
      d: i % 4,
    }));

    const path = await write(rows, 10_000);
    const chunks = await columnChunks(path);
    const { duck } = await readBoth(path);

    expect(chunks.find((c) => c.column === 's')!.encodings).not.toContain('RLE_DICTIONARY');
    expect(chunks.find((c) => c.column === 'd')!.encodings).toContain('RLE_DICTIONARY');
    expect(duck).toEqual(expected(rows));
  });

  it('keeps the dictionary right when values ascend for a while and then repeat', async () => {
    // Ascending values need no lookup while they ascend; the first one that does not ascend
    // (a repeat, or -0 after 0) must find what came before, or get its own entry.
    const rows: Probe[] = Array.from({ length: 10_000 }, (_, i) => ({
      s: `id-${String(i % 3_000).padStart(6, '0')}`,
      d: i < 3_000 ? i % 100 : i % 7 === 0 ? -0 : (i % 100) / 2,
    }));

    const path = await write(rows, 10_000, 1_000);
    const chunks = await columnChunks(path);
    const { arrow, duck } = await readBoth(path);
    const { rows: counts } = await queryDuckDB(
      `SELECT count(DISTINCT s) AS ids, sum(CASE WHEN s = 'id-000000' THEN 1 ELSE 0 END) AS first
       FROM read_parquet('${path}')`,
    );

    expect(chunks.find((c) => c.column === 's')!.encodings).toContain('RLE_DICTIONARY');
    expect(counts[0]).toMatchObject({ ids: 3_000n, first: 4n });
    expect(arrow).toEqual(expected(rows));
    expect(duck).toEqual(expected(rows));
    expect(Object.is(arrow[3_003]!.d, -0)).toBe(true);
    expect(Object.is(arrow[3_000]!.d, 0)).toBe(true);
  });

  it('widens dictionary indexes past 8 and 16 bits (70,000 entries in one row group)', async () => {
    const rows: Probe[] = Array.from({ length: 210_000 }, (_, i) => ({
      s: `value-${String(Math.floor(i / 3)).padStart(14, '0')}`,
    }));

    const path = await write(rows, 210_000, 1_000);
    const chunks = await columnChunks(path);
    const { rows: counts } = await queryDuckDB(
      `SELECT count(*) AS n, count(DISTINCT s) AS distinct_s, min(s) AS lo, max(s) AS hi,
              sum(CASE WHEN s = 'value-00000000065537' THEN 1 ELSE 0 END) AS probe
       FROM read_parquet('${path}')`,
    );
    const arrow = readWithArrow(new Uint8Array(await readFile(path))).rows;

    expect(chunks.find((c) => c.column === 's')!.encodings).toContain('RLE_DICTIONARY');
    expect(counts[0]).toMatchObject({
      n: 210_000n,
      distinct_s: 70_000n,
      lo: 'value-00000000000000',
      hi: 'value-00000000069999',
      probe: 3n,
    });
    expect(arrow.map((r) => r.s)).toEqual(rows.map((r) => r.s));
  });

  it('writes min, max and null counts in Parquet order, so row-group pruning finds every row', async () => {
    // U+1F600 sorts before U+FF21 in UTF-16 but after it in UTF-8 bytes, Parquet's order.
    const groups: Probe[][] = [
      [
        { s: 'Ａ', d: -5 },
        { s: '\u{1F600}', d: 3 },
        { s: null, d: null },
      ],
      [
        { s: 'b', d: Number.NaN },
        { s: 'é', d: -0 },
        { s: 'a', d: 2.5 },
      ],
      [
        { s: 'team:x', d: 0 },
        { s: null, d: 1e300 },
        { s: '', d: -1e-300 },
      ],
    ];

    const path = await write(groups.flat(), 3);
    const chunks = await columnChunks(path);
    const stringStats = chunks
      .filter((c) => c.column === 's')
      .map(({ min, max, nulls }) => [min, max, nulls]);
    const pruned = await Promise.all(
      groups.flat().map(async ({ s, d }) => {
        const where = [
          s === null || s === undefined ? 's IS NULL' : `s = '${s}'`,
          d === null || d === undefined ? 'd IS NULL' : Number.isNaN(d) ? 'isnan(d)' : `d = ${d}`,
        ];
        const { rows } = await queryDuckDB(
          `SELECT count(*) AS n FROM read_parquet('${path}') WHERE ${where.join(' AND ')}`,
        );
        return Number(rows[0]!.n);
      }),
    );

    expect(stringStats).toEqual([
      ['Ａ', '\u{1F600}', 1],
      ['a', 'é', 0],
      ['', 'team:x', 1],
    ]);
    expect(pruned).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('gives a file written after others, and one written alongside, none of their values', async () => {
    const long: Probe[] = Array.from({ length: 30_000 }, (_, i) => ({
      s: `long-${i}-${'x'.repeat(200)}`,
      d: i,
    }));
    const short: Probe[] = Array.from({ length: 1_234 }, (_, i) => ({ s: `s${i % 10}`, d: -i }));
    await write(long, 25_000);

    const first = open(25_000);
    const second = open(25_000);
    for (let i = 0; i < 30_000; i += 1_000) {
      await first.append(long.slice(i, i + 1_000));
      if (i < short.length) await second.append(short.slice(i, i + 1_000));
    }
    await Promise.all([first.close(), second.close()]);
    const afterLong = await write(short, 25_000);

    expect((await readBoth(first.path)).duck).toEqual(expected(long));
    expect((await readBoth(second.path)).arrow).toEqual(expected(short));
    expect((await readBoth(afterLong)).duck).toEqual(expected(short));
  });

  it('refuses to close a file with no rows (callers remove the object instead)', async () => {
    const file = open();

    const failure = await file.close().catch((e: unknown) => e);

    expect(String(failure)).toContain('parquet: no rows appended to the probe file');
  });
});
