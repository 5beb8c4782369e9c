// The Parquet encoder's round trip, in the unit tier: random rows of every column type the tables
// use (text, JSON text, double, timestamp, map), with nulls, long and non-ASCII text, repeats that
// make dictionaries and values that overflow them, over several row groups and pages, in both
// codecs, written by our row writer into memory and read back by hyparquet alone, value for value.
// (The system tier reads every table's files back with DuckDB and arrow-rs too.)
import fc from 'fast-check';
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { TableDef } from '../../functions/lib/parquet/columns.ts';
import type { Compression } from '../../functions/lib/parquet/compression.ts';
import { ParquetRowWriter } from '../../functions/lib/parquet/row-writer.ts';
import { readWithHyparquet } from '../../harness/hyparquet-reader.ts';

interface Probe {
  readonly text: string | null;
  readonly doc: string | null;
  readonly amount: number | null;
  readonly at: number | null;
  readonly tags: Record<string, string | null> | null;
}

const table: TableDef<Probe, undefined> = {
  name: 'probe',
  partitionKey: 'billed_date',
  schemaVersion: 1,
  description: 'round-trip probe',
  columns: [
    { name: 'text', type: 'string', description: '', value: (r) => r.text },
    { name: 'doc', type: 'json', description: '', value: (r) => r.doc },
    { name: 'amount', type: 'double', description: '', value: (r) => r.amount },
    { name: 'at', type: 'timestamp', description: '', value: (r) => r.at },
    { name: 'tags', type: 'map', description: '', value: (r) => r.tags },
  ],
  clusterBy: ['text'],
};

/** Our writer into memory: the bytes of one file. */
async function encode(
  rows: readonly Probe[],
  compression: Compression,
  rowGroupRows: number,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const writer = new ParquetRowWriter(
    table,
    { write: async (chunk) => void parts.push(new Uint8Array(chunk)) },
    undefined,
    { rowGroupRows, compression },
  );
  for (let i = 0; i < rows.length; i += 257) await writer.append(rows.slice(i, i + 257));
  await writer.close();
  return Buffer.concat(parts);
}

/** A value as hyparquet gives it, in the probe's own terms. */
function asProbe(r: Record<string, unknown>): Probe {
  const at = r.at;
  const tags = r.tags as Record<string, string | null> | null | undefined;
  return {
    text: (r.text as string | null | undefined) ?? null,
    doc: (r.doc as string | null | undefined) ?? null,
    amount: (r.amount as number | null | undefined) ?? null,
    at:
      at instanceof Date
        ? at.getTime()
        : typeof at === 'bigint'
          ? Number(at)
          : ((at as number | null | undefined) ?? null),
    tags: tags ?? null,
  };
}

const text = fc.oneof(
  fc.constantFrom('aws', 'azure', 'google_cloud', 'Seoul 서울', ''),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ minLength: 200, maxLength: 600 }),
);
const row: fc.Arbitrary<Probe> = fc.record({
  text: fc.option(text, { nil: null }),
  doc: fc.option(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    { nil: null },
  ),
  amount: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  at: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
  tags: fc.option(
    // Not "__proto__": hyparquet builds a map by assignment, which drops that key (ours keeps it:
    // DuckDB and arrow-rs read it back, test/system/parquet/parquet-map.test.ts).
    fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== '__proto__'),
      fc.option(text, { nil: null }),
      { maxKeys: 4 },
    ),
    {
      nil: null,
    },
  ),
});

describe('the Parquet encoder, read back by hyparquet', () => {
  it.each<Compression>(['ZSTD', 'GZIP'])('keeps every value of random rows (%s)', async (compression) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 1500 }),
        fc.integer({ min: 50, max: 2000 }),
        async (rows, groupRows) => {
          const back = (await readWithHyparquet(await encode(rows, compression, groupRows))).map(asProbe);
          // Rows are clustered within a row group (clusterBy): compared as multisets.
          const key = (p: Probe) => JSON.stringify(p, (_k, v) => (Object.is(v, -0) ? '-0' : v));
          expect(back.map(key).sort()).toEqual(rows.map(key).sort());
        },
      ),
      { numRuns: 25 },
    );
  });

  it('writes a column whose dictionary would overflow in plain pages, every value kept', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({
      text: `distinct value number ${i} ${'x'.repeat(i % 50)}`,
      doc: null,
      amount: i / 7,
      at: i * 86_400_000,
      tags: i % 3 === 0 ? { project: `p${i % 11}` } : null,
    }));
    const bytes = await encode(rows, 'ZSTD', 100_000);
    const back = (await readWithHyparquet(bytes)).map(asProbe);
    expect(back.map((r) => r.text).sort()).toEqual(rows.map((r) => r.text).sort());
    // 40,000 distinct texts overflow the dictionary: the chunk is written plain, no dictionary.
    const stats = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    ).row_groups[0]!.columns[0]!.meta_data!.encoding_stats!.filter((s) => s.page_type === 'DATA_PAGE');
    expect(new Set(stats.map((s) => s.encoding))).toEqual(new Set(['PLAIN']));
    expect(back.reduce((n, r) => n + (r.amount ?? 0), 0)).toBeCloseTo(
      rows.reduce((n, r) => n + r.amount, 0),
      6,
    );
  });
});
