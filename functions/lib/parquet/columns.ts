// A table is one list of typed columns: it drives the Parquet schema, the row mapping,
// the Glue table in the CDK stack and the docs, so they cannot disagree.
import type { SchemaElement } from 'hyparquet';
import { mapElements } from './map-column.ts';

/** `map`: MAP<string, string>, written as Parquet's MAP (map-column.ts); its value is an object of strings. */
export type ColumnType = 'string' | 'json' | 'double' | 'bigint' | 'timestamp' | 'map';

export interface Column<R, C> {
  readonly name: string;
  readonly type: ColumnType;
  readonly description: string;
  readonly value: (record: R, context: C) => unknown;
}

export interface TableDef<R = Record<string, unknown>, C = unknown> {
  /** Folder and Glue table name, e.g. "costs". */
  readonly name: string;
  /** The Hive partition key; never a column inside the files. */
  readonly partitionKey: 'billed_date' | 'snapshot_date' | 'billed_month' | 'x_billing_period';
  /** A second key under a monthly one: the day of the month, two digits (the focus table). */
  readonly dayKey?: 'x_charge_day';
  /** Bumped whenever a column changes; written into every manifest. */
  readonly schemaVersion: number;
  readonly description: string;
  readonly columns: ReadonlyArray<Column<R, C>>;
  /**
   * Columns the rows of each row group are ordered by before they are encoded (the order of rows
   * inside one object is free): rows alike sit together, so dictionary indexes run long and the
   * codec finds repeats. Compared by dictionary index (first appearance), not by value; a column
   * that is not dictionary-encoded when its row group ends takes no part.
   */
  readonly clusterBy?: readonly string[];
}

/** The partition value's format: a day, or a month for billed_month. */
export function partitionFormat(key: TableDef<never, never>['partitionKey']): 'YYYY-MM' | 'YYYY-MM-DD' {
  return key === 'billed_month' || key === 'x_billing_period' ? 'YYYY-MM' : 'YYYY-MM-DD';
}

/** Athena / Glue type of each column type. */
export const glueType: Record<ColumnType, string> = {
  string: 'string',
  json: 'string',
  double: 'double',
  bigint: 'bigint',
  timestamp: 'timestamp',
  map: 'map<string,string>',
};

export function parquetSchema(table: TableDef<never, never>): SchemaElement[] {
  return [
    { name: 'schema', num_children: table.columns.length },
    ...table.columns.flatMap((c) =>
      c.type === 'map' ? mapElements(c.name) : [parquetElement(c.name, c.type)],
    ),
  ];
}

function parquetElement(name: string, type: Exclude<ColumnType, 'map'>): SchemaElement {
  const repetition_type = 'OPTIONAL';
  switch (type) {
    case 'string':
    case 'json':
      return {
        name,
        repetition_type,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        logical_type: { type: 'STRING' },
      };
    case 'double':
      return { name, repetition_type, type: 'DOUBLE' };
    case 'bigint':
      // Plain INT64 is a signed 64-bit integer; hyparquet-writer 0.17 writes the INTEGER logical
      // type's bit width with the wrong Thrift type, which arrow-rs rejects.
      return { name, repetition_type, type: 'INT64' };
    case 'timestamp':
      return {
        name,
        repetition_type,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
  }
}

// Value helpers shared by the tables' column lists. The API omits '', 0, false, null and [].

export function str(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : String(value);
}

/** A number the API omits when it is 0. */
export function zeroIfOmitted(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

export function num(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

/** Free-form objects as a JSON string; absent stays null. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Epoch milliseconds, UTC, of an ISO timestamp. A timestamp with no zone is taken as UTC. */
export function timestampMs(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value);
  const ms = Date.parse(hasZone || !value.includes('T') ? value : `${value}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** A reader for a field or a dotted path into nested objects, split once, not per row. */
export function getter(path: string): (record: Record<string, unknown>) => unknown {
  const parts = path.split('.');
  if (parts.length === 1) return (record) => record[path];
  return (record) => {
    let current: unknown = record;
    for (const part of parts) {
      if (current === null || typeof current !== 'object') return undefined;
      current = (current as Record<string, unknown>)[part];
    }
    return current;
  };
}

type Row = Record<string, unknown>;

/** Column constructors for Cloudforet fields, by their own names (or a dotted path). */
export function textColumn<C>(name: string, description: string, path = name): Column<Row, C> {
  const get = getter(path);
  return { name, type: 'string', description, value: (r) => str(get(r)) };
}

export function jsonColumn<C>(name: string, description: string, path = name): Column<Row, C> {
  const get = getter(path);
  return { name, type: 'json', description, value: (r) => json(get(r)) };
}

export function timestampColumn<C>(name: string, description: string, path = name): Column<Row, C> {
  const get = getter(path);
  return { name, type: 'timestamp', description, value: (r) => timestampMs(get(r)) };
}

export function doubleColumn<C>(name: string, description: string, path = name): Column<Row, C> {
  const get = getter(path);
  return { name, type: 'double', description, value: (r) => num(get(r)) };
}

export function exportedAtColumn<C extends { readonly exportedAtMs: number }>(): Column<Row, C> {
  return {
    name: 'exported_at',
    type: 'timestamp',
    description: 'When this exporter wrote the row (UTC)',
    value: (_r, c) => c.exportedAtMs,
  };
}
