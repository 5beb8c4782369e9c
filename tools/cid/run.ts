// Runs AWS CID's FOCUS code (test/fixtures/cid/, unmodified) through harness.py beside this file,
// answering its Athena calls from the synthesized template's Glue tables and from a DuckDB
// stand-in (harness/duckdb-athena.ts) over exported files.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Template } from 'aws-cdk-lib/assertions';
import { parse } from 'yaml';
import { type AthenaLike, trinoToDuckDb } from '../../harness/duckdb-athena.ts';

type Json = Record<string, unknown>;

export const CID_FIXTURES = fileURLToPath(new URL('../../test/fixtures/cid', import.meta.url));
const HARNESS = fileURLToPath(new URL('./harness.py', import.meta.url));

/** focus.yaml's `views` as CID reads them. */
export function cidViews(): Record<string, Json> {
  const yaml = parse(readFileSync(join(CID_FIXTURES, 'dashboards/focus/focus.yaml'), 'utf8')) as Json;
  return yaml.views as Record<string, Json>;
}

/**
 * The template's Glue tables as Athena's ListTableMetadata returns them, by database: column and
 * partition key names folded to lower case, as Glue stores them.
 */
export function listTableMetadata(template: Template): Record<string, Json[]> {
  const byDatabase: Record<string, Json[]> = {};
  for (const resource of Object.values(template.findResources('AWS::Glue::Table'))) {
    const props = resource.Properties as Json;
    const input = props.TableInput as Json;
    const lower = (columns: unknown) =>
      ((columns as Json[] | undefined) ?? []).map((c) => ({
        Name: String(c.Name).toLowerCase(),
        Type: c.Type,
        ...(c.Comment !== undefined && { Comment: c.Comment }),
      }));
    const descriptor = input.StorageDescriptor as Json;
    const database = String(props.DatabaseName);
    byDatabase[database] ??= [];
    byDatabase[database].push({
      Name: input.Name,
      TableType: input.TableType,
      Columns: lower(descriptor.Columns),
      PartitionKeys: lower(input.PartitionKeys),
      Parameters: input.Parameters,
    });
  }
  return byDatabase;
}

export interface Statement {
  readonly phase: string;
  readonly sql: string;
  readonly duckdb: string;
  readonly error?: string;
}

export interface CidRun {
  readonly discovered: Array<{ database: string; table_name: string; columns: Record<string, string> }>;
  readonly consolidationSql: string;
  readonly created: boolean;
  readonly rendered: Record<string, string>;
  readonly statements: Statement[];
  /** What `afterCreate` returned for each view CID created, by phase. */
  readonly snapshots: Record<string, Json[]>;
}

export interface CidRunOptions {
  readonly db: AthenaLike;
  readonly now: Date;
  readonly database: string;
  readonly databases: Record<string, Json[]>;
  /** The user's answer to CID's tag prompt, by parameter (e.g. resource_tags: ['tag_team']). */
  readonly tagAnswers: Record<string, string[]>;
  readonly workDir: string;
  /** Run after each view CID creates, before CID goes on (a later phase replaces the view). */
  readonly afterCreate: (view: string) => Promise<Json[]>;
}

/**
 * CID's discovery alone, across `databases` (as ListDatabases and ListTableMetadata answer them):
 * the FOCUS tables it would consolidate and the consolidation view's SQL, with no query run.
 */
export async function discoverCid(
  databases: Record<string, Json[]>,
  workDir: string,
): Promise<Pick<CidRun, 'discovered' | 'consolidationSql'>> {
  const init = join(workDir, 'cid-discover.json');
  await writeFile(
    init,
    JSON.stringify({
      fixtures: CID_FIXTURES,
      database: Object.keys(databases)[0],
      databases,
      views: cidViews(),
      discoverOnly: true,
    }),
  );
  const python = spawn('python3', [HARNESS, init], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  python.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number>((resolve) => python.on('close', (code) => resolve(code ?? -1)));
  let done: Json | undefined;
  for await (const line of createInterface({ input: python.stdout })) {
    const message = JSON.parse(line) as Json;
    if (message.type === 'done') done = message;
  }
  const code = await exited;
  if (!done || code !== 0) throw new Error(`CID's harness exited ${code}:\n${stderr}`);
  return done as unknown as Pick<CidRun, 'discovered' | 'consolidationSql'>;
}

const text = (v: unknown) =>
  v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v);

export async function runCid(options: CidRunOptions): Promise<CidRun> {
  const init = join(options.workDir, 'cid-init.json');
  await writeFile(
    init,
    JSON.stringify({
      fixtures: CID_FIXTURES,
      database: options.database,
      databases: options.databases,
      views: cidViews(),
      tagAnswers: options.tagAnswers,
    }),
  );
  const python = spawn('python3', [HARNESS, init], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  python.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number>((resolve) => python.on('close', (code) => resolve(code ?? -1)));
  const statements: Statement[] = [];
  const snapshots: Record<string, Json[]> = {};
  let done: Json | undefined;
  for await (const line of createInterface({ input: python.stdout })) {
    const message = JSON.parse(line) as Json;
    if (message.type === 'done') {
      done = message;
      break;
    }
    const sql = String(message.sql);
    const phase = String(message.phase);
    const duckdb = trinoToDuckDb(sql, options.now);
    try {
      const reader = await options.db.connection.runAndReadAll(duckdb);
      statements.push({ phase, sql, duckdb });
      const created = /^CREATE OR REPLACE VIEW "?(\w+)"?/i.exec(sql)?.[1];
      if (created) snapshots[phase] = await options.afterCreate(created);
      const rows = reader.getRowsJS().map((row) => row.map(text));
      python.stdin.write(`${JSON.stringify({ ok: true, columns: reader.columnNames(), rows })}\n`);
    } catch (error) {
      statements.push({ phase, sql, duckdb, error: (error as Error).message });
      python.stdin.write(`${JSON.stringify({ ok: false, error: (error as Error).message })}\n`);
    }
  }
  python.stdin.end();
  const code = await exited;
  if (!done || code !== 0) {
    const failed = statements.filter((s) => s.error).map((s) => `${s.phase}: ${s.error}\n${s.duckdb}`);
    throw new Error(`CID's harness exited ${code}:\n${stderr}\n${failed.join('\n\n')}`);
  }
  return { ...(done as unknown as Omit<CidRun, 'statements' | 'snapshots'>), statements, snapshots };
}
