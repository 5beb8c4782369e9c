// MAP<string, string> columns (map-column.ts), read back by three readers that share nothing with
// the writer: hyparquet (pure JS), DuckDB (C++) and arrow-rs (parquet-wasm).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { PAGE_BYTES } from '../../../functions/lib/parquet/data-pages.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import {
  queryDuckDB,
  readMapWithArrow,
  readWithArrow,
  readWithHyparquet,
} from '../../../harness/parquet-readers.ts';

type Row = { id: string; group?: string; tags?: unknown };

const table = (clusterBy?: string[]): TableDef<Row, null> => ({
  name: 'maps',
  partitionKey: 'billed_date',
  schemaVersion: 1,
  description: 'test',
  columns: [
    { name: 'id', type: 'string', description: '', value: (r) => r.id },
    { name: 'tags', type: 'map', description: '', value: (r) => r.tags ?? null },
    { name: 'group', type: 'string', description: '', value: (r) => r.group ?? null },
  ],
  ...(clusterBy && { clusterBy }),
});

const rows: Row[] = [
  { id: 'a', tags: { env: 'prod', team: 'finops' } },
  { id: 'b', tags: null },
  { id: 'c', tags: {} },
  { id: 'd', tags: { owner: null, 팀: '비용' } },
  { id: 'e', tags: [['only', 'pairs']] },
];

async function write(
  dir: string,
  records: Row[],
  opts: { rowGroupRows?: number; clusterBy?: string[] } = {},
) {
  const sink = dirSink(dir);
  const upload = sink.begin('t/m.parquet', 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(table(opts.clusterBy), upload, null, {
    rowGroupRows: opts.rowGroupRows,
  });
  await writer.append(records);
  await writer.close();
  await upload.commit();
  const path = join(dir, 't', 'm.parquet');
  return { path, bytes: new Uint8Array(await readFile(path)) };
}

describe('ParquetRowWriter with a map column', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pm-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the three-level MAP schema Trino and Hive read', async () => {
    const { bytes } = await write(dir, rows);

    const schema = parquetMetadata(bytes.buffer as ArrayBuffer).schema.map((e) => [
      e.name,
      e.repetition_type,
      e.converted_type,
    ]);

    expect(schema.slice(2, 6)).toEqual([
      ['tags', 'OPTIONAL', 'MAP'],
      ['key_value', 'REPEATED', undefined],
      ['key', 'REQUIRED', 'UTF8'],
      ['value', 'OPTIONAL', 'UTF8'],
    ]);
  });

  it('is read back alike by hyparquet, DuckDB and arrow-rs: NULL, empty, NULL values, non-ASCII', async () => {
    const { path, bytes } = await write(dir, rows);

    const hyparquet = await readWithHyparquet(bytes);
    const duck = await queryDuckDB(
      `SELECT id, to_json(tags)::VARCHAR AS tags, typeof(tags) AS type FROM read_parquet('${path}')`,
    );
    const arrow = readWithArrow(bytes);

    const expected = [
      { env: 'prod', team: 'finops' },
      null,
      {},
      { owner: null, 팀: '비용' },
      { only: 'pairs' },
    ];
    // hyparquet gives a NULL map as undefined.
    expect(hyparquet.map((r) => r.tags ?? null)).toEqual(expected);
    expect(duck.rows.map((r) => (r.tags === null ? null : JSON.parse(String(r.tags))))).toEqual(expected);
    expect(duck.rows[0]!.type).toBe('MAP(VARCHAR, VARCHAR)');
    expect(arrow.rows.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(arrow.schema.find((f) => f.name === 'tags')?.type).toMatch(/^Map/);
    expect(hyparquet.map((r) => r.group)).toEqual([null, null, null, null, null]);
  });

  it('keeps a tag key named __proto__ (a valid AWS tag key), as DuckDB and arrow-rs read it', async () => {
    // JSON.parse makes "__proto__" an own key, as Cloudforet's tags come; hyparquet's reader builds
    // a map by assignment, which sets the prototype instead, so it is not asked here.
    const { path, bytes } = await write(dir, [
      { id: 'p', tags: JSON.parse('{"__proto__": "x", "constructor": "y"}') },
    ]);

    const duck = await queryDuckDB(
      `SELECT map_keys(tags) AS keys, map_values(tags) AS vals FROM read_parquet('${path}')`,
    );
    expect(duck.rows).toEqual([{ keys: ['__proto__', 'constructor'], vals: ['x', 'y'] }]);
    expect(readMapWithArrow(bytes, 'tags')).toEqual([
      [
        ['__proto__', 'x'],
        ['constructor', 'y'],
      ],
    ]);
  });

  it('answers map subscripts and key lists in DuckDB, as CID asks Athena', async () => {
    const { path } = await write(dir, rows);

    const { rows: read } = await queryDuckDB(
      `SELECT id, tags['env'] AS env, cardinality(tags) AS n, map_keys(tags) AS keys FROM read_parquet('${path}') ORDER BY id`,
    );

    expect(read.map((r) => [r.id, r.env, r.n === null ? null : Number(r.n), r.keys])).toEqual([
      ['a', 'prod', 2, ['env', 'team']],
      ['b', null, null, null],
      ['c', null, 0, []],
      ['d', null, 2, ['owner', '팀']],
      ['e', null, 1, ['only']],
    ]);
  });

  it('keeps each row its own map across row groups, pages and clustering', async () => {
    const big = 'x'.repeat(PAGE_BYTES / 4);
    const many: Row[] = Array.from({ length: 3_000 }, (_, i) => ({
      id: `r${String(i).padStart(5, '0')}`,
      group: `g${i % 7}`,
      tags:
        i % 5 === 0 ? null : i % 500 === 1 ? { big, n: String(i) } : { n: String(i), parity: String(i % 2) },
    }));

    const { path, bytes } = await write(dir, many, { rowGroupRows: 1_000, clusterBy: ['group'] });
    const hyparquet = await readWithHyparquet(bytes);
    const duck = await queryDuckDB(
      `SELECT count(*) AS n, count(tags) AS tagged, count(*) FILTER (WHERE tags['n'] = substr(id, 2)::INT::VARCHAR) AS own
       FROM read_parquet('${path}')`,
    );
    const pages = await queryDuckDB(
      `SELECT count(*) AS chunks FROM parquet_metadata('${path}') WHERE path_in_schema = 'tags, key_value, key'`,
    );

    const byId = new Map(hyparquet.map((r) => [r.id, r.tags ?? null]));
    for (const row of many) expect(byId.get(row.id)).toEqual(row.tags);
    expect(Number(duck.rows[0]!.n)).toBe(3_000);
    expect(Number(duck.rows[0]!.tagged)).toBe(2_400);
    expect(Number(duck.rows[0]!.own)).toBe(2_400);
    expect(Number(pages.rows[0]!.chunks)).toBe(3);
  });

  it('refuses a value that is not a string or NULL', async () => {
    await expect(write(dir, [{ id: 'x', tags: { n: 3 } }])).rejects.toThrow(/string or null values/);
  });
});
