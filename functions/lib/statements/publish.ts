// Writing statements under statements/billed_month=M/ without ever replacing an archived one.
// A month's statement is archived once Cloudforet confirmed the month (the statements function):
// its record `_manifests/statements/…/<name>.r1.json` first, created only if absent (the commit
// point), then its files `<name>.r1.csv` / `.html`, each created only if absent (destination/gate.ts
// createOnce), with their SHA-256 in the record. Once archived, a statement whose figures change
// (Cloudforet restated the month) gets a revision beside the original, `<name>.r2.csv` / `.html`
// with a note `<name>.r2.txt` saying what changed; nothing archived is rewritten. The CLI's files
// for a month not archived yet are working copies under the plain name (`<name>.csv`), which no
// archived version uses, so a CLI run racing the function never touches an archived byte.
import { createHash } from 'node:crypto';
import { ArchiveRaceError, createOnce } from '../destination/gate.ts';
import {
  partitionManifestPrefix,
  STATEMENTS,
  statementKey,
  statementManifestKey,
} from '../destination/layout.ts';
import { EventError } from '../errors.ts';
import type { Sink } from '../storage/sink.ts';
import type { Reconciliation } from './reconcile.ts';
import { plainDecimal, type Statement, statementCsv, statementHtml } from './render.ts';

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
  /** file -> SHA-256 of what was archived (records before 0.9 have none): what --verify checks. */
  readonly sha256?: Readonly<Record<string, string>>;
  /** The cost report this version reconciles to, or the difference it names. */
  readonly reconciliation?: Reconciliation;
}

export interface PublishedStatement {
  readonly name: string;
  /** draft: a working copy (not archived); archived: the original; revised: a new revision. */
  readonly outcome: 'draft' | 'archived' | 'revised' | 'unchanged';
  readonly revision?: number;
  readonly files: readonly string[];
  readonly total: number;
  /** Against the month's DONE cost report (statements/reconcile.ts), when one is archived. */
  readonly reconciliation?: Reconciliation;
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
  const figures = figuresDigest(s);
  for (let attempt = 0; ; attempt++) {
    const latest = await latestRecord(sink, s.month, s.name);
    if (latest === undefined && !opts.archive) {
      // A working copy under the statement's plain name: archived versions never live there.
      const files = [`${s.name}.csv`, `${s.name}.html`];
      await writeFiles(sink, s, files, [statementCsv(s), statementHtml(s)]);
      return { name: s.name, outcome: 'draft', files, total: s.total };
    }
    if (latest && latest.currency !== s.currency) {
      throw new EventError(
        'STATEMENT_CURRENCY',
        `the statements of ${s.month} are archived in ${latest.currency}: give --currency ${latest.currency} (the function's "currency"), or write ${s.currency} statements to another destination`,
      );
    }
    if (latest?.figures === figures) {
      await completeFiles(sink, s, latest);
      return { name: s.name, outcome: 'unchanged', revision: latest.revision, files: [], total: s.total };
    }
    const revision = (latest?.revision ?? 0) + 1;
    const archived = await archiveVersion(sink, s, latest, revision, figures, opts.now);
    if (archived) return archived;
    // Another run archived this revision first: look again (the same figures are then unchanged).
    if (attempt >= 2)
      throw new ArchiveRaceError(statementManifestKey(s.month, s.name, revision), 'runs racing');
  }
}

/**
 * One archived version, written once: its record first, created only if absent (the commit point:
 * of two runs racing for a revision one wins, the other looks again), then its files, each
 * created only if absent, their SHA-256 in the record. Nothing archived is ever rewritten.
 */
async function archiveVersion(
  sink: Sink,
  s: Statement,
  latest: StatementRecord | undefined,
  revision: number,
  figures: string,
  now: Date,
): Promise<PublishedStatement | undefined> {
  const base = `${s.name}.r${revision}`;
  const bodies = new Map<string, string>([
    [`${base}.csv`, statementCsv(s)],
    [`${base}.html`, statementHtml(s)],
    ...(latest ? ([[`${base}.txt`, revisionNote(s, latest, revision)]] as const) : []),
  ]);
  const files = [...bodies.keys()];
  const sha256 = Object.fromEntries([...bodies].map(([f, b]) => [f, sha(b)]));
  const body = JSON.stringify({ ...record(s, revision, figures, files, now), sha256 }, null, 2);
  const key = statementManifestKey(s.month, s.name, revision);
  if ((await createOnce(sink, key, body, 'application/json')) === 'other') return undefined;
  for (const [file, text] of bodies)
    await createOnce(sink, statementKey(s.month, file), text, contentType(file));
  return { name: s.name, outcome: latest ? 'revised' : 'archived', revision, files, total: s.total };
}

/**
 * A run stopped between an archived record and its files: the files the record names and the
 * store lacks are created now, from the same figures; one that exists is never touched.
 */
async function completeFiles(sink: Sink, s: Statement, latest: StatementRecord): Promise<void> {
  const have = new Set(await sink.list(statementKey(s.month, '')));
  const missing = latest.files.filter((f) => !have.has(statementKey(s.month, f)));
  if (missing.length === 0) return;
  const byExt = { csv: () => statementCsv(s), html: () => statementHtml(s) } as const;
  for (const file of missing) {
    const make = byExt[file.slice(file.lastIndexOf('.') + 1) as keyof typeof byExt];
    if (make) await createOnce(sink, statementKey(s.month, file), make(), contentType(file));
  }
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function contentType(file: string): string {
  const type = file.endsWith('.csv') ? 'text/csv' : file.endsWith('.html') ? 'text/html' : 'text/plain';
  return `${type}; charset=utf-8`;
}

async function writeFiles(sink: Sink, s: Statement, files: readonly string[], bodies: readonly string[]) {
  for (const [i, file] of files.entries())
    await sink.put(statementKey(s.month, file), bodies[i]!, contentType(file));
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
    ...(s.reconciliation && { reconciliation: s.reconciliation }),
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
