// Codecs, bounded data pages and encoding_stats, against three independent readers: DuckDB,
// arrow-rs and hyparquet read every file back, and the page headers are walked one by one.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileMetaData, type PageHeader, parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import type { Compression } from '../../../functions/lib/parquet/compression.ts';
import { PAGE_BYTES } from '../../../functions/lib/parquet/data-pages.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB, readWithArrow, readWithHyparquet } from '../../../harness/parquet-readers.ts';

interface Probe {
  s?: string | null;
  d?: number | null;
}

const table: TableDef<Probe, undefined> = {
  name: 'probe',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: 'page probe',
  columns: [
    { name: 's', type: 'string', description: '', value: (r) => r.s },
    { name: 'd', type: 'double', description: '', value: (r) => r.d },
  ],
};

let dir: string;
let files = 0;

async function write(rows: Probe[], compression?: Compression): Promise<Uint8Array> {
  const key = `probe/${++files}.parquet`;
  const upload = dirSink(dir).begin(key, 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table, upload, undefined, { rowGroupRows: 100_000, compression });
  for (let i = 0; i < rows.length; i += 1000) await writer.append(rows.slice(i, i + 1000));
  await writer.close();
  await upload.commit();
  return new Uint8Array(await readFile(join(dir, key)));
}

/** Every reader's rows, as { s, d } with absent values as null. */
async function readAll(bytes: Uint8Array) {
  const norm = (r: Record<string, unknown>) => ({ s: r.s ?? null, d: r.d ?? null });
  const path = join(dir, `read-${++files}.parquet`);
  await writeFile(path, bytes);
  return {
    duck: (await queryDuckDB(`SELECT s, d FROM read_parquet('${path}')`)).rows.map(norm),
    arrow: readWithArrow(bytes).rows.map(norm),
    hyparquet: (await readWithHyparquet(bytes)).map(norm),
  };
}

/** The page headers of column `c` of row group `g`, walked from the chunk's first page. */
function pageHeaders(bytes: Uint8Array, meta: FileMetaData, g: number, c: number): PageHeader[] {
  const chunk = meta.row_groups[g]!.columns[c]!.meta_data!;
  let at = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
  const end = at + Number(chunk.total_compressed_size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headers: PageHeader[] = [];
  while (at < end) {
    const reader = { view, offset: at };
    const header = parquetHeader(reader);
    headers.push(header);
    at = reader.offset + header.compressed_page_size;
  }
  return headers;
}

const metadataOf = (bytes: Uint8Array) =>
  parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);

/** Distinct strings of about `size` characters (so the column stays PLAIN). */
const bigText = (i: number, size: number) => `${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26)));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pages-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('page codecs', () => {
  const rows: Probe[] = Array.from({ length: 3000 }, (_, i) => ({
    s: i % 7 === 0 ? null : `name-${i % 40}`,
    d: i % 5 === 0 ? null : i * 0.25,
  }));

  it.each([
    ['ZSTD', undefined],
    ['ZSTD', 'ZSTD'],
    ['GZIP', 'GZIP'],
  ] as const)('writes %s (asked for %s) and every reader gets the same rows', async (codec, asked) => {
    const bytes = await write(rows, asked);

    const meta = metadataOf(bytes);
    const read = await readAll(bytes);

    expect(meta.row_groups[0]!.columns.map((c) => c.meta_data?.codec)).toEqual([codec, codec]);
    const expected = rows.map((r) => ({ s: r.s ?? null, d: r.d ?? null }));
    expect(read.duck).toEqual(expected);
    expect(read.arrow).toEqual(expected);
    expect(read.hyparquet).toEqual(expected);
  });
});

describe('bounded data pages', () => {
  it('cuts a PLAIN column of large values into pages of about 1 MiB, read back by every reader', async () => {
    const rows: Probe[] = Array.from({ length: 600 }, (_, i) => ({
      s: i % 9 === 0 ? null : bigText(i, 10_000),
      d: i,
    }));
    const bytes = await write(rows);

    const meta = metadataOf(bytes);
    const pages = pageHeaders(bytes, meta, 0, 0);
    const read = await readAll(bytes);

    expect(meta.row_groups).toHaveLength(1);
    expect(pages.length).toBeGreaterThanOrEqual(5);
    expect(pages.every((p) => p.type === 'DATA_PAGE' && p.data_page_header?.encoding === 'PLAIN')).toBe(true);
    expect(Math.max(...pages.map((p) => p.uncompressed_page_size))).toBeLessThanOrEqual(PAGE_BYTES + 10_100);
    expect(pages.reduce((n, p) => n + p.data_page_header!.num_values, 0)).toBe(600);
    const expected = rows.map((r) => ({ s: r.s ?? null, d: r.d ?? null }));
    expect(read.duck).toEqual(expected);
    expect(read.arrow).toEqual(expected);
    expect(read.hyparquet).toEqual(expected);
  });

  it('cuts a dictionary-encoded column too, every page behind the one dictionary', async () => {
    const values = Array.from({ length: 8 }, (_, i) => bigText(i, 40_000));
    const rows: Probe[] = Array.from({ length: 400 }, (_, i) => ({ s: values[(i * 3) % 8], d: null }));
    const bytes = await write(rows);

    const meta = metadataOf(bytes);
    const pages = pageHeaders(bytes, meta, 0, 0);
    const read = await readAll(bytes);

    expect(pages[0]!.type).toBe('DICTIONARY_PAGE');
    expect(pages.slice(1).length).toBeGreaterThanOrEqual(10);
    expect(pages.slice(1).every((p) => p.data_page_header?.encoding === 'RLE_DICTIONARY')).toBe(true);
    expect(read.duck.map((r) => r.s)).toEqual(rows.map((r) => r.s));
    expect(read.arrow.map((r) => r.s)).toEqual(rows.map((r) => r.s));
    expect(read.hyparquet.map((r) => r.s)).toEqual(rows.map((r) => r.s));
  });

  it('keeps a small column chunk in one data page', async () => {
    const bytes = await write(Array.from({ length: 2000 }, (_, i) => ({ s: `v${i % 3}`, d: i })));

    const meta = metadataOf(bytes);

    expect(pageHeaders(bytes, meta, 0, 1).map((p) => p.type)).toEqual(['DATA_PAGE']);
  });
});

describe('encoding_stats', () => {
  it('counts the dictionary page and the data pages of each chunk by encoding', async () => {
    const values = Array.from({ length: 4 }, (_, i) => bigText(i, 100_000));
    const rows: Probe[] = Array.from({ length: 60 }, (_, i) => ({ s: values[i % 4], d: i + 0.5 }));
    const bytes = await write(rows);

    const meta = metadataOf(bytes);
    const [s, d] = meta.row_groups[0]!.columns.map((c) => c.meta_data!.encoding_stats);
    const dataPages = pageHeaders(bytes, meta, 0, 0).filter((p) => p.type === 'DATA_PAGE').length;

    expect(s).toEqual([
      { page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 },
      { page_type: 'DATA_PAGE', encoding: 'RLE_DICTIONARY', count: dataPages },
    ]);
    expect(dataPages).toBeGreaterThan(1);
    expect(d).toEqual([{ page_type: 'DATA_PAGE', encoding: 'PLAIN', count: 1 }]);
  });
});
