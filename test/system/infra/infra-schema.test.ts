// The Glue tables must describe exactly what the functions write: every column of each Parquet
// schema, with the Glue type Athena needs to read its physical and logical type.
import type { SchemaElement } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { parquetSchema } from '../../../functions/lib/parquet/columns.ts';
import { exportTables } from '../../../functions/lib/tables/all-tables.ts';
import { compactionStateTable } from '../../../functions/lib/tables/compacted.ts';
import { ledgerTables } from '../../../functions/lib/tables/ledger.ts';
import { synth } from '../../support/synth-stack.ts';

interface GlueColumn {
  readonly Name: string;
  readonly Type: string;
}

/** What Athena's Parquet reader maps each written type to; independent of glueType. */
function athenaTypeOf(element: SchemaElement): string {
  const logical = element.logical_type?.type;
  if (element.type === 'BYTE_ARRAY' && (element.converted_type === 'UTF8' || logical === 'STRING'))
    return 'string';
  if (element.type === 'DOUBLE' && logical === undefined) return 'double';
  if (element.type === 'INT64' && logical === 'INTEGER') return 'bigint';
  if (element.type === 'INT64' && logical === 'TIMESTAMP') return 'timestamp';
  throw new Error(`no Athena type for ${element.name}: ${element.type} ${element.converted_type} ${logical}`);
}

/**
 * The root's fields with their Athena types: a leaf as above; a three-level MAP group (MAP, then a
 * REPEATED key_value of a REQUIRED key and a value) as map<key type,value type>.
 */
function topLevelFields(schema: SchemaElement[]): GlueColumn[] {
  const fields: GlueColumn[] = [];
  let at = 1;
  while (at < schema.length) {
    const element = schema[at]!;
    if (!element.num_children) {
      fields.push({ Name: element.name, Type: athenaTypeOf(element) });
      at += 1;
      continue;
    }
    const [group, key, value] = [schema[at + 1]!, schema[at + 2]!, schema[at + 3]!];
    const isMap =
      element.converted_type === 'MAP' &&
      element.num_children === 1 &&
      group.repetition_type === 'REPEATED' &&
      group.num_children === 2 &&
      key.repetition_type === 'REQUIRED';
    if (!isMap) throw new Error(`no Athena type for the group ${element.name}`);
    fields.push({ Name: element.name, Type: `map<${athenaTypeOf(key)},${athenaTypeOf(value)}>` });
    at += 4;
  }
  return fields;
}

const byName = (a: GlueColumn, b: GlueColumn) => a.Name.localeCompare(b.Name);

describe('Glue columns against the Parquet schema the functions write', () => {
  let glue: Map<string, { columns: GlueColumn[]; partitionKeys: GlueColumn[] }>;
  beforeAll(() => {
    const tables = Object.values(synth().findResources('AWS::Glue::Table'));
    glue = new Map(
      tables.map((r) => {
        const input = r.Properties.TableInput;
        return [input.Name, { columns: input.StorageDescriptor.Columns, partitionKeys: input.PartitionKeys }];
      }),
    );
  });

  it('has a Glue table for every exported table and ledger table, and no other', () => {
    const names = [...exportTables, ...ledgerTables, compactionStateTable].map((t) => t.name);
    expect([...glue.keys()].sort()).toEqual(names.sort());
  });

  it.each(exportTables.map((table) => [table.name, table] as const))(
    '%s: same column names and types as its Parquet schema',
    (name, table) => {
      const schema = parquetSchema(table);
      const fromParquet = topLevelFields(schema);

      const fromGlue = glue.get(name)!.columns.map((c) => ({ Name: c.Name, Type: c.Type }));

      expect(schema[0]?.num_children).toBe(fromParquet.length);
      expect([...fromGlue].sort(byName)).toEqual([...fromParquet].sort(byName));
      expect(new Set(fromGlue.map((c) => c.Name)).size).toBe(fromGlue.length);
    },
  );

  it.each(exportTables.map((table) => [table.name, [table.partitionKey, table.dayKey]] as const))(
    '%s: partitioned by %s as strings that are not also data columns',
    (name, keys) => {
      const { columns, partitionKeys } = glue.get(name)!;
      const expected = keys.filter((k) => k !== undefined);

      expect(partitionKeys.map((k) => ({ Name: k.Name, Type: k.Type }))).toEqual(
        expected.map((k) => ({ Name: k, Type: 'string' })),
      );
      for (const key of expected) expect(columns.map((c) => c.Name)).not.toContain(key);
    },
  );

  it('maps each written physical and logical type as Athena reads it', () => {
    const element = (e: Partial<SchemaElement>) => ({ name: 'x', ...e }) as SchemaElement;

    expect(athenaTypeOf(element({ type: 'BYTE_ARRAY', converted_type: 'UTF8' }))).toBe('string');
    expect(athenaTypeOf(element({ type: 'DOUBLE' }))).toBe('double');
    expect(
      athenaTypeOf(
        element({ type: 'INT64', logical_type: { type: 'INTEGER', bitWidth: 64, isSigned: true } }),
      ),
    ).toBe('bigint');
    expect(
      athenaTypeOf(
        element({
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        }),
      ),
    ).toBe('timestamp');
    expect(() => athenaTypeOf(element({ type: 'INT96' }))).toThrow(/no Athena type/);
  });
});
