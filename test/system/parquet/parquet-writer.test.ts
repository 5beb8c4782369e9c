import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type CostContext, costTable } from '../../../functions/lib/tables/costs.ts';
import { duckSchema, queryDuckDB, readWithArrow } from '../../../harness/parquet-readers.ts';

const context: CostContext = {
  currency: 'USD',
  workspaceOfVirtual: new Map([['v-workspace-0000000000aa', 'workspace-0000000000bb']]),
  exportedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
};

const rows = [
  {
    cost_id: 'cost-000000000001',
    cost: 1.25,
    usage_quantity: 3,
    provider: 'aws',
    tags: { 'team:cost-center': 'a/b', 'Owner Name': '팀' },
    workspace_id: 'v-workspace-0000000000aa',
    billed_month: '2026-01',
  },
  { cost_id: 'cost-000000000002', provider: 'azure', workspace_id: 'workspace-0000000000cc' },
];

async function writeFile(dir: string, records: Record<string, unknown>[], rowGroupRows?: number) {
  const sink = dirSink(dir);
  const upload = sink.begin('t/a.parquet', 'application/vnd.apache.parquet');
  const writer = new ParquetRowWriter(costTable, upload, context, { rowGroupRows });
  await writer.append(records);
  const result = await writer.close();
  await upload.commit();
  return { path: join(dir, 't', 'a.parquet'), ...result };
}

describe('ParquetRowWriter with the cost table', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pw-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes types DuckDB reads as declared', async () => {
    const { path } = await writeFile(dir, rows);

    const schema = await duckSchema(path);

    expect(schema.cost).toBe('DOUBLE');
    expect(schema.usage_quantity).toBe('DOUBLE');
    expect(schema.cost_id).toBe('VARCHAR');
    expect(schema.tags).toBe('VARCHAR');
    expect(schema.exported_at).toBe('TIMESTAMP WITH TIME ZONE');
    expect(Object.keys(schema)).toEqual(costTable.columns.map((c) => c.name));
    expect(Object.keys(schema)).not.toContain('billed_date');
  });

  it('maps omitted zeros to 0, omitted strings to null, objects to JSON, virtual workspaces to real ones', async () => {
    const { path } = await writeFile(dir, rows);

    const { rows: read } = readWithArrow(new Uint8Array(await readFile(path)));

    expect(read[1]).toMatchObject({
      cost: 0,
      usage_quantity: 0,
      usage_unit: null,
      tags: null,
      v_workspace_id: null,
    });
    expect(read[0]).toMatchObject({
      workspace_id: 'workspace-0000000000bb',
      v_workspace_id: 'v-workspace-0000000000aa',
    });
    expect(JSON.parse(String(read[0]!.tags))).toEqual({ 'team:cost-center': 'a/b', 'Owner Name': '팀' });
    expect(read[0]!.currency).toBe('USD');
  });

  it('stores exported_at as UTC milliseconds', async () => {
    const { path } = await writeFile(dir, rows);

    const { rows: read } = await queryDuckDB(
      `SELECT epoch_ms(exported_at) AS ms FROM read_parquet('${path}')`,
    );

    expect(read.map((r) => Number(r.ms))).toEqual([context.exportedAtMs, context.exportedAtMs]);
  });

  it('streams several row groups that both readers count the same', async () => {
    const many = Array.from({ length: 2_500 }, (_, i) => ({
      cost_id: `cost-${String(i).padStart(12, '0')}`,
      cost: i / 100,
    }));

    const { path, rows: written } = await writeFile(dir, many, 1_000);
    const counts = await queryDuckDB(`SELECT count(*) AS n, sum(cost) AS s FROM read_parquet('${path}')`);
    const groups = await queryDuckDB(
      `SELECT count(DISTINCT row_group_id) AS g FROM parquet_metadata('${path}')`,
    );
    const arrow = readWithArrow(new Uint8Array(await readFile(path)));

    expect(written).toBe(2_500);
    expect(arrow.rows).toHaveLength(2_500);
    expect(Number(counts.rows[0]!.n)).toBe(2_500);
    expect(Number(counts.rows[0]!.s)).toBeCloseTo(31_237.5, 6);
    expect(Number(groups.rows[0]!.g)).toBe(3);
  });
});
