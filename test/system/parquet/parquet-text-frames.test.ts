// Text pages (a string column's PLAIN pages and dictionary page) are compressed twice, at ZSTD
// level 8 with 6-byte matches and at level 1, and the smaller frame is kept; every other page is
// level 8 as before. Each page of a written file is checked against the two candidates made again
// from its own bytes, and three independent readers (DuckDB, arrow-rs, hyparquet) read the file
// back row for row.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { compressParts, compressSmall, zstdOptions } from '../../../functions/lib/parquet/compression.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB, readWithArrow, readWithHyparquet } from '../../../harness/parquet-readers.ts';

interface Probe {
  id: string;
  resource: string | null;
  data: string | null;
  amount: number | null;
  kind: string;
}

const columns: TableDef<Probe, undefined>['columns'] = [
  { name: 'id', type: 'string', description: '', value: (r) => r.id },
  { name: 'resource', type: 'string', description: '', value: (r) => r.resource },
  { name: 'data', type: 'string', description: '', value: (r) => r.data },
  { name: 'amount', type: 'double', description: '', value: (r) => r.amount },
  { name: 'kind', type: 'string', description: '', value: (r) => r.kind },
];
const table: TableDef<Probe, undefined> = {
  name: 'text_frames',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: 'text frames probe',
  columns,
};

/** A 32-bit number drawn from i and salt, the same every run. */
const draw = (i: number, salt: number) => Math.imul(i + salt, 2654435761) >>> 0;
const hex = (i: number, salt: number) =>
  draw(i, salt).toString(16).padStart(8, '0') +
  draw(i, salt + 7)
    .toString(16)
    .padStart(8, '0')
    .slice(0, 4);

/** Random ids (as Cloudforet's cost ids), resource ids repeated a few times, JSON text, doubles. */
function rows(n: number): Probe[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `cost-${hex(i, 1)}`,
    resource: i % 13 === 0 ? null : `res-${hex(i >> 2, 3)}`,
    data:
      i % 7 === 0
        ? null
        : JSON.stringify({ 'Actual Cost': (draw(i, 5) % 100_000) / 1000, meter: `m-${draw(i, 6) % 40}` }),
    amount: i % 11 === 0 ? null : draw(i, 9) / 7919,
    kind: ['compute', 'storage', 'network'][draw(i, 10) % 3]!,
  }));
}

let dir: string;
let files = 0;

async function write(input: Probe[], rowGroupRows: number): Promise<Uint8Array> {
  const key = `probe/${++files}.parquet`;
  const upload = dirSink(dir).begin(key, 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table, upload, undefined, { rowGroupRows });
  for (let i = 0; i < input.length; i += 1000) await writer.append(input.slice(i, i + 1000));
  await writer.close();
  await upload.commit();
  return new Uint8Array(await readFile(join(dir, key)));
}

interface PageFrame {
  column: string;
  kind: 'dictionary' | 'plain' | 'indexes';
  type: string;
  body: Buffer;
  raw: Buffer;
  codec: string;
}

/** Every page of the file: its bytes as written and as decompressed. */
function pages(bytes: Uint8Array): PageFrame[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const meta = parquetMetadata(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: PageFrame[] = [];
  for (const chunk of meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!))) {
    let at = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
    const end = at + Number(chunk.total_compressed_size);
    while (at < end) {
      const reader = { view, offset: at };
      const header = parquetHeader(reader);
      const body = buffer.subarray(reader.offset, reader.offset + header.compressed_page_size);
      const dictionaryEncoded = chunk.encodings.includes('RLE_DICTIONARY');
      out.push({
        column: chunk.path_in_schema.join('.'),
        kind: header.type === 'DICTIONARY_PAGE' ? 'dictionary' : dictionaryEncoded ? 'indexes' : 'plain',
        type: chunk.type,
        body,
        raw: chunk.codec === 'ZSTD' ? zstdDecompressSync(body) : body,
        codec: chunk.codec,
      });
      at = reader.offset + header.compressed_page_size;
    }
  }
  return out;
}

const norm = (r: Record<string, unknown>) =>
  JSON.stringify(['id', 'resource', 'data', 'amount', 'kind'].map((c) => r[c] ?? null));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'text-frames-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('text pages compressed twice, the smaller frame kept', () => {
  it('keeps the smaller of level 8 (6-byte matches) and level 1 for text, level 8 for the rest', async () => {
    const bytes = await write(rows(30_000), 12_000);
    const chosen = { fast: 0, text: 0, other: 0 };
    // A data page is compressed as a stream of its parts (levels, then values), whose frame may
    // differ from a one-shot frame of the same bytes by a block boundary: sizes within SLACK.
    const SLACK = 32;
    for (const page of pages(bytes).filter((p) => p.codec === 'ZSTD')) {
      const what = `${page.column} ${page.kind}`;
      const text = page.type === 'BYTE_ARRAY' && page.kind !== 'indexes';
      const level8 = zstdCompressSync(page.raw, zstdOptions(page.raw.length)).length;
      if (!text) {
        expect(Math.abs(page.body.length - level8), what).toBeLessThanOrEqual(SLACK);
        chosen.other++;
        continue;
      }
      const textFrame = zstdCompressSync(page.raw, zstdOptions(page.raw.length, 'text')).length;
      const fast = zstdCompressSync(page.raw, zstdOptions(page.raw.length, 'fast')).length;
      expect(page.body.length, what).toBeLessThanOrEqual(Math.min(textFrame, fast) + SLACK);
      if (fast + SLACK < textFrame) chosen.fast++;
      else if (textFrame + SLACK < fast) chosen.text++;
    }
    // Random ids take level 1; JSON text level 8; both paths and the plain one are in the file.
    expect(chosen.fast).toBeGreaterThan(0);
    expect(chosen.text).toBeGreaterThan(0);
    expect(chosen.other).toBeGreaterThan(0);
  });

  it('is read back row for row by DuckDB, arrow-rs and hyparquet', async () => {
    const input = rows(30_000);
    const bytes = await write(input, 12_000);
    const path = join(dir, 'read.parquet');
    await writeFile(path, bytes);
    const expected = input.map((r) => norm(r as unknown as Record<string, unknown>));
    const duck = (await queryDuckDB(`SELECT * FROM read_parquet('${path}')`)).rows.map(norm);
    const arrow = readWithArrow(bytes).rows.map(norm);
    const hyparquet = (await readWithHyparquet(bytes)).map(norm);
    for (const got of [duck, arrow, hyparquet]) expect(got).toEqual(expected);
  });

  it('gives the same frame on the thread pool as on this thread, and GZIP as before', async () => {
    const input = Buffer.from(
      rows(2_000)
        .map((r) => r.id)
        .join(''),
    );
    for (const content of ['text', 'other'] as const) {
      const pooled = Buffer.concat(await compressParts('ZSTD', [input], content));
      expect(pooled.equals(compressSmall('ZSTD', [input], content))).toBe(true);
      expect(zstdDecompressSync(pooled).equals(input)).toBe(true);
      const parts = [input.subarray(0, 1000), input.subarray(1000)];
      const split = Buffer.concat(await compressParts('ZSTD', parts, content));
      expect(zstdDecompressSync(split).equals(input)).toBe(true);
    }
    // The text frame is the smaller of the two candidates, never larger than level 8's here.
    const text = compressSmall('ZSTD', [input], 'text').length;
    expect(text).toBe(
      Math.min(
        zstdCompressSync(input, zstdOptions(input.length, 'text')).length,
        zstdCompressSync(input, zstdOptions(input.length, 'fast')).length,
      ),
    );
    expect(text).toBeLessThan(compressSmall('ZSTD', [input], 'other').length);
    const gzip = Buffer.concat(await compressParts('GZIP', [input], 'text'));
    expect(gzip.equals(Buffer.concat(await compressParts('GZIP', [input], 'other')))).toBe(true);
  });
});
