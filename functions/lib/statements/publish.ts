// Writing statements under statements/billed_month=M/ without ever replacing an archived one.
// A month's statement is archived once Cloudforet confirmed the month (the statements function):
// its files, then its record `_manifests/statements/…/<name>.r1.json`, created only if absent: the
// record is the commit point. Once archived, a statement whose figures change (Cloudforet restated
// the month) gets a revision beside the original, `<name>.r2.csv` / `.html` with a note
// `<name>.r2.txt` saying what changed, and its own record; nothing archived is rewritten. Before
// that, the CLI's files are working copies it replaces at each run.
import { createHash } from 'node:crypto';
import { EventError, ExportError } from '../errors.ts';
import {
  partitionManifestPrefix,
  STATEMENTS,
  statementKey,
  statementManifestKey,
} from '../storage/layout.ts';
import type { Sink } from '../storage/sink.ts';
import { plainDecimal, type Statement, statementCsv, statementHtml } from './statements.ts';

export interface StatementRecord {
  readonly month: string;
  readonly name: string;
  readonly revision: number;
  readonly currency: string;
  readonly total: number;
  readonly lines: number;
  /** SHA-256 of the line items' figures (not the names): what a restatement changes. */
  readonly figures: string;
  /** project id -> cost, for the next revision's note. */
  readonly projects: Readonly<Record<string, number>>;
  readonly files: readonly string[];
  readonly writtenAt: string;
}

export interface PublishedStatement {
  readonly name: string;
  /** draft: a working copy (not archived); archived: the original; revised: a new revision. */
  readonly outcome: 'draft' | 'archived' | 'revised' | 'unchanged';
  readonly revision?: number;
  readonly files: readonly string[];
  readonly total: number;
}

export interface PublishOptions {
  /** True for a confirmed month (the statements function): a statement not archived yet is. */
  readonly archive: boolean;
  readonly now: Date;
}

export async function publishStatement(
  sink: Sink,
  s: Statement,
  opts: PublishOptions,
): Promise<PublishedStatement> {
  const latest = await latestRecord(sink, s.month, s.name);
  const figures = figuresDigest(s);
  if (latest === undefined) {
    const files = [`${s.name}.csv`, `${s.name}.html`];
    await writeFiles(sink, s, files, [statementCsv(s), statementHtml(s)]);
    if (!opts.archive) return { name: s.name, outcome: 'draft', files, total: s.total };
    await sink.createIfAbsent(
      statementManifestKey(s.month, s.name, 1),
      JSON.stringify(record(s, 1, figures, files, opts.now), null, 2),
      'application/json',
    );
    return { name: s.name, outcome: 'archived', revision: 1, files, total: s.total };
  }
  if (latest.currency !== s.currency) {
    throw new EventError(
      'STATEMENT_CURRENCY',
      `the statements of ${s.month} are archived in ${latest.currency}: give --currency ${latest.currency} (the function's "currency"), or write ${s.currency} statements to another destination`,
    );
  }
  if (latest.figures === figures) {
    return { name: s.name, outcome: 'unchanged', revision: latest.revision, files: [], total: s.total };
  }
  const revision = latest.revision + 1;
  const base = `${s.name}.r${revision}`;
  const files = [`${base}.csv`, `${base}.html`, `${base}.txt`];
  // Not archived until the record exists: files a stopped run left under this revision are replaced.
  await writeFiles(sink, s, files, [statementCsv(s), statementHtml(s), revisionNote(s, latest, revision)]);
  const created = await sink.createIfAbsent(
    statementManifestKey(s.month, s.name, revision),
    JSON.stringify(record(s, revision, figures, files, opts.now), null, 2),
    'application/json',
  );
  if (!created) throw new ExportError('STATEMENT_RACE', `another run archived ${base} first: run again`);
  return { name: s.name, outcome: 'revised', revision, files, total: s.total };
}

async function writeFiles(sink: Sink, s: Statement, files: readonly string[], bodies: readonly string[]) {
  for (const [i, file] of files.entries()) {
    const type = file.endsWith('.csv') ? 'text/csv' : file.endsWith('.html') ? 'text/html' : 'text/plain';
    await sink.put(statementKey(s.month, file), bodies[i]!, `${type}; charset=utf-8`);
  }
}

/** The archived record of the statement's newest version, if it has one. */
async function latestRecord(sink: Sink, month: string, name: string): Promise<StatementRecord | undefined> {
  const prefix = partitionManifestPrefix(STATEMENTS, month);
  const pattern = /\.r(\d+)\.json$/;
  const revisions = (await sink.list(prefix))
    .filter((k) => k.startsWith(`${prefix}${name}.r`) && pattern.test(k.slice(prefix.length + name.length)))
    .map((k) => Number(pattern.exec(k)![1]))
    .sort((a, b) => b - a);
  const newest = revisions[0];
  if (newest === undefined) return undefined;
  const text = await sink.read(statementManifestKey(month, name, newest));
  return text === undefined ? undefined : (JSON.parse(text) as StatementRecord);
}

function figuresDigest(s: Statement): string {
  const lines = s.lines
    .map((l) =>
      [
        l.workspace_id,
        l.project_id,
        l.provider,
        l.product,
        l.data_source_id,
        l.service_account_id,
        l.origin_currency,
        plainDecimal(l.cost),
      ].join('\u0000'),
    )
    .sort();
  return createHash('sha256')
    .update(`${s.currency}\n${lines.join('\n')}`)
    .digest('hex');
}

function projectCosts(s: Statement): Record<string, number> {
  const costs: Record<string, number> = {};
  for (const l of s.lines) costs[l.project_id || '(none)'] = (costs[l.project_id || '(none)'] ?? 0) + l.cost;
  return costs;
}

function record(
  s: Statement,
  revision: number,
  figures: string,
  files: readonly string[],
  now: Date,
): StatementRecord {
  return {
    month: s.month,
    name: s.name,
    revision,
    currency: s.currency,
    total: s.total,
    lines: s.lines.length,
    figures,
    projects: projectCosts(s),
    files,
    writtenAt: now.toISOString(),
  };
}

const amount = (n: number) => n.toFixed(2);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;

/** What the revision changes against the version before it: the total, the line count, the projects. */
export function revisionNote(s: Statement, previous: StatementRecord, revision: number): string {
  const now = projectCosts(s);
  const ids = [...new Set([...Object.keys(now), ...Object.keys(previous.projects)])];
  const moved = ids
    .map((id) => ({ id, before: previous.projects[id] ?? 0, after: now[id] ?? 0 }))
    .filter((p) => Math.abs(p.after - p.before) >= 0.005)
    .sort((a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before));
  const lines = [
    `Statement ${s.name} for ${s.month}, revision ${revision}`,
    `Cloudforet restated the month after it was confirmed. This revision sits beside the version it`,
    `revises (${previous.files[0]}), which is kept unchanged.`,
    '',
    `Total: ${amount(previous.total)} -> ${amount(s.total)} ${s.currency} (${signed(s.total - previous.total)})`,
    `Line items: ${previous.lines} -> ${s.lines.length}`,
    ...(moved.length > 0 ? ['', 'Projects whose cost changed:'] : []),
    ...moved
      .slice(0, 20)
      .map((p) => `  ${p.id}: ${amount(p.before)} -> ${amount(p.after)} (${signed(p.after - p.before)})`),
    ...(moved.length > 20 ? [`  … and ${moved.length - 20} more`] : []),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
