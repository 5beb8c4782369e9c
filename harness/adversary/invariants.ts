// The archive's invariants, checked after every step against the simulator's truth. A violation
// names its invariant and a tag saying which case of it (the test may list tags known to be open).
import { createHash } from 'node:crypto';
import { revisedTables } from '../../functions/lib/tables/revisions.ts';
import { storedFiles } from '../stored-files.ts';

export type InvariantName =
  /** (a) A reader sees rows that are neither Cloudforet's now nor the unit's last archived ones. */
  | 'reader-diverged'
  /** (b) A run exited 0 while a unit it answers for differs from Cloudforet. */
  | 'success-but-stale'
  /** (c) After a healthy run, --verify still found something, or a unit differs. */
  | 'healthy-not-clean'
  /** (d) The client secret in an output or a stored byte. */
  | 'secret-leaked'
  /** (d) Temporary files left after a run. */
  | 'tmp-debris'
  /** (e) An object a reader could read after a run is gone, neither current nor kept as a revision. */
  | 'revision-lost';

export class InvariantViolation extends Error {
  constructor(
    readonly invariant: InvariantName,
    readonly tag: string,
    detail: string,
  ) {
    super(`${invariant}[${tag}]: ${detail}`);
    this.name = 'InvariantViolation';
  }
  /** What the known-open list names: invariant[tag]. */
  get signature(): string {
    return `${this.invariant}[${this.tag}]`;
  }
}

/** (d): the secret nowhere in the texts nor in the stored bytes; no temporary file after a run. */
export async function checkHygiene(
  out: string,
  texts: readonly string[],
  secret: string,
  opts: { readonly debris?: boolean } = {},
): Promise<number> {
  const files = await storedFiles(out);
  for (const text of texts)
    if (text.includes(secret))
      throw new InvariantViolation('secret-leaked', 'output', `in: ${text.slice(0, 200)}`);
  const needle = Buffer.from(secret);
  for (const [key, bytes] of files) {
    if (bytes.includes(needle)) throw new InvariantViolation('secret-leaked', 'stored', key);
  }
  const debris = [...files.keys()].filter((k) => k.startsWith('_tmp/') || k.includes('.tmp-'));
  if (debris.length > 0 && opts.debris !== false)
    throw new InvariantViolation('tmp-debris', 'after-run', debris.join(', '));
  return files.size;
}

/** The objects of the tables a restatement replaces (by checksum) and the checksums their revisions carry. */
async function versionsStored(out: string): Promise<{ current: Map<string, string>; kept: Set<string> }> {
  const current = new Map<string, string>();
  const kept = new Set<string>();
  const tables = new Set(revisedTables.map((t) => t.name));
  for (const [key, bytes] of await storedFiles(out)) {
    const folder = key.slice(0, key.indexOf('/'));
    if (!key.endsWith('.parquet')) continue;
    if (tables.has(folder)) current.set(createHash('sha256').update(bytes).digest('hex').slice(0, 16), key);
    const revision = /~([0-9a-f]{16})\.parquet$/.exec(key);
    // A revision, or bytes not the manifest's (damage) kept whole under _damaged/.
    const table = key.replace(/^_damaged\//, '').split('/')[0] ?? '';
    if (table.endsWith('_revisions') && tables.has(table.slice(0, -'_revisions'.length)) && revision) {
      kept.add(revision[1]!);
    }
  }
  return { current, kept };
}

/**
 * (e): every object a reader could read after an earlier run (`readable`: checksum -> key) is still
 * there, current or kept as a revision; a damage in between forgets what it destroyed (the export
 * never had the chance to keep it). Returns what a reader can read now, for the next check.
 */
export async function checkRevisionsKept(
  out: string,
  readable: ReadonlyMap<string, string>,
  opts: { readonly afterDamage?: boolean } = {},
): Promise<Map<string, string>> {
  const { current, kept } = await versionsStored(out);
  const lost = [...readable].filter(([sha]) => !current.has(sha) && !kept.has(sha));
  if (opts.afterDamage)
    return new Map([...current, ...[...readable].filter(([sha]) => !lost.some(([l]) => l === sha))]);
  if (lost.length > 0) {
    throw new InvariantViolation(
      'revision-lost',
      lost[0]![1].slice(0, lost[0]![1].indexOf('/')),
      `${lost.length} object(s) a reader could read are neither current nor kept: ${lost.map(([s, k]) => `${k} (${s})`).join(', ')}`,
    );
  }
  return new Map([...readable, ...current]);
}
