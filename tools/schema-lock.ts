// The schema lock: every published table's columns, types and order, committed in
// docs/schema-lock.json. A published column is a contract with archived Parquet, the Glue tables
// and saved queries, so test/unit/schema-lock.test.ts fails on a rename, a retype, a reorder or a
// removal, and lets an appended column (or a new table) through. `npm run schema-lock` rewrites the
// file from the column lists, after the change is in CHANGELOG.md with its migration note.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { exportTables } from '../functions/lib/tables/all-tables.ts';
import { ledgerTables } from '../functions/lib/tables/ledger.ts';

/** The lock file, from the repository root. */
export const SCHEMA_LOCK_FILE = 'docs/schema-lock.json';

/** One table as locked: its partition keys and its columns as "name type", in order. */
export interface LockedTable {
  readonly partition: readonly string[];
  readonly columns: readonly string[];
}

export type SchemaLock = Readonly<Record<string, LockedTable>>;

/** The schema of every published table (the Parquet tables, then the ledger's JSON tables). */
export function currentSchema(): SchemaLock {
  const parquet = exportTables.map((t) => [
    t.name,
    {
      partition: [t.partitionKey, ...(t.dayKey ? [t.dayKey] : [])],
      columns: t.columns.map((c) => `${c.name} ${c.type}`),
    },
  ]);
  const ledger = ledgerTables.map((t) => [
    t.name,
    { partition: [t.partitionKey], columns: t.columns.map((c) => `${c.name} ${c.type}`) },
  ]);
  return Object.fromEntries([...parquet, ...ledger]);
}

export interface LockComparison {
  /** Changes that break readers of what is published: each says what changed and where. */
  readonly breaking: readonly string[];
  /** Columns appended and tables added: allowed, and the lock should be rewritten to hold them. */
  readonly added: readonly string[];
}

/** What `current` changed against `lock`. */
export function compareToLock(lock: SchemaLock, current: SchemaLock): LockComparison {
  const breaking: string[] = [];
  const added: string[] = [];
  for (const [name, locked] of Object.entries(lock)) {
    const now = current[name];
    if (!now) {
      breaking.push(`table ${name} was removed`);
      continue;
    }
    if (now.partition.join(',') !== locked.partition.join(','))
      breaking.push(
        `${name}: partition keys were ${locked.partition.join(', ')}, now ${now.partition.join(', ')}`,
      );
    locked.columns.forEach((column, i) => {
      if (now.columns[i] !== column)
        breaking.push(`${name}: column ${i + 1} was "${column}", now ${describe(now.columns, column, i)}`);
    });
    for (const column of now.columns.slice(locked.columns.length)) {
      if (!locked.columns.includes(column)) added.push(`${name}: column "${column}" appended`);
    }
  }
  for (const name of Object.keys(current).filter((n) => !(n in lock))) added.push(`table ${name} added`);
  return { breaking, added };
}

/** What stands at `i` now: a rename, a retype, a move or a removal of the locked `column`. */
function describe(columns: readonly string[], column: string, i: number): string {
  const [name] = column.split(' ');
  const moved = columns.indexOf(column);
  if (moved >= 0) return `at column ${moved + 1} (a reorder)`;
  const retyped = columns.find((c) => c.split(' ')[0] === name);
  if (retyped) return `"${retyped}" (a retype)`;
  if (columns[i] === undefined) return 'gone (a removal)';
  return `"${columns[i]}" (a rename or a removal)`;
}

/** The lock as written: one column per line, so a change reads as a one-line diff. */
export function lockText(lock: SchemaLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

export async function readLock(root: URL): Promise<SchemaLock> {
  return JSON.parse(await readFile(new URL(SCHEMA_LOCK_FILE, root), 'utf8')) as SchemaLock;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('..', import.meta.url);
  const current = currentSchema();
  const before = await readLock(root).catch(() => ({}) as SchemaLock);
  const { breaking, added } = compareToLock(before, current);
  for (const line of breaking) process.stdout.write(`schema-lock: accepting a breaking change: ${line}\n`);
  for (const line of added) process.stdout.write(`schema-lock: ${line}\n`);
  await writeFile(new URL(SCHEMA_LOCK_FILE, root), lockText(current));
  process.stdout.write(`schema-lock: wrote ${SCHEMA_LOCK_FILE} (${Object.keys(current).length} tables)\n`);
}
