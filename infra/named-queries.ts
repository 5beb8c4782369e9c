// The saved Athena queries, one file each in infra/queries/: the file name is the query name,
// its leading `--` lines the description, the rest the SQL.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const QUERY_DIR = fileURLToPath(new URL('./queries/', import.meta.url));

export interface NamedQuerySql {
  readonly name: string;
  readonly description: string;
  readonly sql: string;
}

export function loadNamedQueries(dir: string = QUERY_DIR): NamedQuerySql[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => parseNamedQuery(file.slice(0, -'.sql'.length), readFileSync(`${dir}${file}`, 'utf8')));
}

export function parseNamedQuery(name: string, text: string): NamedQuerySql {
  const lines = text.split('\n');
  const firstSql = lines.findIndex((line) => !line.startsWith('--'));
  const description = lines
    .slice(0, firstSql)
    .map((line) => line.replace(/^--\s?/, ''))
    .join(' ')
    .trim();
  return { name, description: description.slice(0, 1024), sql: lines.slice(firstSql).join('\n').trim() };
}
