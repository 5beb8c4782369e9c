// A second baseline: the same mapped cost rows written by hyparquet-writer's own writer (the
// package whose primitives our encoder builds on), same schema, GZIP and row groups. It takes
// whole columns, so a unit's rows are gathered first: what it measures is its encoding, not ours.
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { parquetSchema, type TableDef } from '../../functions/lib/parquet/columns.ts';
import { DEFAULT_ROW_GROUP_ROWS } from '../../functions/lib/parquet/row-writer.ts';
import type { BaselineWriter } from './baseline-writer.ts';

export function openHyparquetWriter<C>(
  table: TableDef<Record<string, unknown>, C>,
  context: C,
  path: string,
): BaselineWriter {
  const columns = table.columns.map(() => [] as unknown[]);
  let rows = 0;
  return {
    async append(records) {
      for (const record of records) {
        table.columns.forEach((c, i) => {
          const value = c.value(record, context) ?? null;
          columns[i]!.push(c.type === 'bigint' && typeof value === 'number' ? BigInt(value) : value);
        });
        rows++;
      }
    },
    async close() {
      const schema = parquetSchema(table as TableDef<never, never>);
      const bytes = parquetWriteBuffer({
        schema,
        columnData: table.columns.map((c, i) => ({ name: c.name, data: columns[i]! })),
        codec: 'GZIP',
        compressors: { GZIP: (input: Uint8Array) => gzipSync(input, { level: 6 }) },
        rowGroupSize: DEFAULT_ROW_GROUP_ROWS,
      });
      await writeFile(path, new Uint8Array(bytes));
      return rows;
    },
  };
}
