// String min/max statistics in Parquet's order (unsigned UTF-8 bytes) where JavaScript's order
// differs: lone surrogates (written as U+FFFD), surrogate pairs and characters around U+FFFF.
// DuckDB skips a row group whose min/max exclude the value asked for, so wrong statistics lose rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';

const table: TableDef<{ s: string }, undefined> = {
  name: 'probe',
  partitionKey: 'snapshot_date',
  schemaVersion: 1,
  description: 'statistics probe',
  columns: [{ name: 's', type: 'string', description: '', value: (r) => r.s }],
};

/** Pairs that JS orders one way and UTF-8 bytes (after U+FFFD for lone surrogates) the other. */
const GROUPS: ReadonlyArray<readonly [string, string]> = [
  ['\udc00', '\uffff'], // lone low surrogate (EF BF BD) below U+FFFF (EF BF BF)
  ['\ud800', '\ufffe'], // lone high surrogate below U+FFFE
  ['\udc00', '\u{1F600}'], // lone surrogate (3 bytes) below a pair (4 bytes F0 ...)
  ['\ud83d', '\u{10000}'], // a high half alone below the first supplementary character
  ['\ud800x', '\udc00a'], // both halves alone, then the next character decides
  ['\ue000', '\ud800'], // private use U+E000 below a lone surrogate
  ['\uffff', '\u{10FFFF}'], // around U+FFFF without surrogates of their own
];

/** What the encoder writes for a value: the bytes Node's UTF-8 gives. */
const utf8 = (s: string) => Buffer.from(s, 'utf8');

let dir: string;
let path: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'utf8-stats-'));
  const upload = dirSink(dir).begin('probe.parquet', 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table, upload, undefined, { rowGroupRows: 2 });
  await writer.append(GROUPS.flatMap(([a, b]) => [{ s: a }, { s: b }]));
  await writer.close();
  await upload.commit();
  path = join(dir, 'probe.parquet');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('string statistics in UTF-8 byte order', () => {
  it('gives every row group the byte-wise smallest and largest value as min and max', async () => {
    const { rows } = await queryDuckDB(
      `SELECT row_group_id AS g, stats_min_value AS lo, stats_max_value AS hi
       FROM parquet_metadata('${path}') ORDER BY g`,
    );

    const actual = rows.map((r) => [utf8(String(r.lo)).toString('hex'), utf8(String(r.hi)).toString('hex')]);
    const expected = GROUPS.map((pair) => {
      const [lo, hi] = pair.map(utf8).sort(Buffer.compare);
      return [lo!.toString('hex'), hi!.toString('hex')];
    });
    expect(actual).toEqual(expected);
  });

  it.each(GROUPS.flat().map((value) => [utf8(value).toString('hex'), value]))(
    'keeps the row group holding %s when DuckDB filters on it',
    async (_hex, value) => {
      const stored = utf8(value).toString();
      const expected = GROUPS.flat().filter((v) => utf8(v).toString() === stored).length;

      const { rows } = await queryDuckDB(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path}') WHERE s = '${stored}'`,
      );

      expect(rows[0]!.n).toBe(expected);
    },
  );
});
