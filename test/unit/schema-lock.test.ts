// Published tables change only by appending: docs/schema-lock.json holds every table's columns,
// types and order, and a rename, a retype, a reorder or a removal fails here until the change is
// deliberate (CHANGELOG.md with a migration note, then `npm run schema-lock`).
import { describe, expect, it } from 'vitest';
import { compareToLock, currentSchema, readLock, type SchemaLock } from '../../tools/schema-lock.ts';

const root = new URL('../..', import.meta.url);

const REMEDY =
  'a published column is a contract with archived Parquet, the Glue tables and saved queries. ' +
  'If this change is meant, record it in CHANGELOG.md (Unreleased, under Changed or Removed) with a ' +
  'migration note saying what a reader of old objects and saved queries must do, bump the ' +
  "table's schemaVersion where it has one, then run `npm run schema-lock`.";

describe('the published tables against docs/schema-lock.json', () => {
  it('keep every locked column, its type and its place', async () => {
    const { breaking, added } = compareToLock(await readLock(root), currentSchema());
    if (added.length > 0)
      process.stderr.write(`schema lock: run \`npm run schema-lock\` to record: ${added.join('; ')}\n`);

    expect(breaking, `schema lock: ${REMEDY}`).toEqual([]);
  });
});

describe('the lock comparison', () => {
  const lock: SchemaLock = {
    costs: { partition: ['billed_date'], columns: ['cost_id string', 'cost double', 'tags json'] },
  };
  const costs = (...columns: string[]): SchemaLock => ({ costs: { partition: ['billed_date'], columns } });

  it('lets an appended column and a new table through, and names them', () => {
    const current = {
      ...costs('cost_id string', 'cost double', 'tags json', 'x_sku string'),
      budgets: costs().costs!,
    };

    expect(compareToLock(lock, current)).toEqual({
      breaking: [],
      added: ['costs: column "x_sku string" appended', 'table budgets added'],
    });
  });

  it('refuses a rename', () => {
    expect(compareToLock(lock, costs('cost_id string', 'cost_usd double', 'tags json')).breaking).toEqual([
      'costs: column 2 was "cost double", now "cost_usd double" (a rename or a removal)',
    ]);
  });

  it('refuses a retype', () => {
    expect(compareToLock(lock, costs('cost_id string', 'cost double', 'tags map')).breaking).toEqual([
      'costs: column 3 was "tags json", now "tags map" (a retype)',
    ]);
  });

  it('refuses a reorder', () => {
    expect(compareToLock(lock, costs('cost double', 'cost_id string', 'tags json')).breaking).toEqual([
      'costs: column 1 was "cost_id string", now at column 2 (a reorder)',
      'costs: column 2 was "cost double", now at column 1 (a reorder)',
    ]);
  });

  it('refuses a removed column, a removed table and a new partition key', () => {
    expect(compareToLock(lock, costs('cost_id string', 'cost double')).breaking).toEqual([
      'costs: column 3 was "tags json", now gone (a removal)',
    ]);
    expect(compareToLock(lock, {}).breaking).toEqual(['table costs was removed']);
    expect(compareToLock(lock, { costs: { ...lock.costs!, partition: ['billed_month'] } }).breaking).toEqual([
      'costs: partition keys were billed_date, now billed_month',
    ]);
  });
});
