// The archive's invariants, checked after every step against the simulator's truth. A violation
// names its invariant and a tag saying which case of it (the test may list tags known to be open).
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
  | 'tmp-debris';

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
