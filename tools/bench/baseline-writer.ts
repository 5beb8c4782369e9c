// The baseline: the same mapped cost rows written with parquetjs-lite (the package the card
// named), its schema mirroring costTable: UTF8 strings, DOUBLE, TIMESTAMP_MILLIS, SNAPPY, V1 pages.
import parquet from 'parquetjs-lite';
import type { ColumnType, TableDef } from '../../functions/lib/parquet/columns.ts';

/** costTable's types; the baseline writes no map column. */
const fieldType: Record<Exclude<ColumnType, 'map'>, string> = {
  string: 'UTF8',
  json: 'UTF8',
  double: 'DOUBLE',
  bigint: 'INT64',
  timestamp: 'TIMESTAMP_MILLIS',
};

export interface BaselineWriter {
  append(records: readonly Record<string, unknown>[]): Promise<void>;
  close(): Promise<number>;
}

export async function openBaselineWriter<C>(
  table: TableDef<Record<string, unknown>, C>,
  context: C,
  path: string,
): Promise<BaselineWriter> {
  const schema = new parquet.ParquetSchema(
    Object.fromEntries(
      table.columns.map((c) => {
        if (c.type === 'map') throw new Error(`baseline writer: ${c.name} is a map column`);
        return [c.name, { type: fieldType[c.type], optional: true, compression: 'SNAPPY' }];
      }),
    ),
  );
  const writer = await parquet.ParquetWriter.openFile(schema, path, { useDataPageV2: false });
  let rows = 0;
  return {
    async append(records) {
      for (const record of records) {
        const row: Record<string, unknown> = {};
        for (const c of table.columns) {
          const value = c.value(record, context);
          if (value !== null && value !== undefined) row[c.name] = value;
        }
        await writer.appendRow(row);
        rows++;
      }
    },
    async close() {
      await writer.close();
      return rows;
    },
  };
}
