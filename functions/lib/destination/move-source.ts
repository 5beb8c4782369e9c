// The source's side of a move into a tenant's folder (destination/tenant-move.ts): the refusals made
// before any write, the check that no run wrote to it while it was copied, and its deletion, each
// object only while it reads back as the SHA-256 its verified copy was made from.

import { forEachLimit } from '../pool.ts';
import type { Sink, StoredObject } from '../storage/sink.ts';
import { TENANTS_DIR } from '../tenant.ts';
import { CLAIM_EXPIRY_MS, type Claim, claimAge, isBacked, parseClaim } from './claim-records.ts';
import { DestinationClaimError } from './destination-claim.ts';
import { proveCopied, removeProven } from './gate.ts';
import { CLAIM_KEY, COST_CLAIM_KEY } from './layout.ts';
import { MoveError, sha256 } from './move-copy.ts';
import { listCopy, listSource, type MoveRecord } from './move-record.ts';
import type { Listing } from './move-rewrite.ts';

export interface SourceOptions {
  readonly deleteSource: boolean;
  readonly force: boolean;
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { done: number; total: number; bytes: number; phase: string }) => void;
}

/** Refuses, before any write, a source that is no single-domain destination or a tenant folder in use. */
export async function refuseUnlessMovable(
  sink: Sink,
  opts: SourceOptions,
  s: {
    record: MoveRecord | undefined;
    claim: Claim | undefined;
    target: string;
    to: string;
    now: Date;
  },
): Promise<void> {
  const refuse = (why: string) => new DestinationClaimError('MOVE_REFUSED', why);
  const { record, claim } = s;
  if (record) {
    if (claim && claim.domainId !== record.domainId)
      throw refuse(
        `${sink.location} belongs to domain ${claim.domainId}, but ${s.to} holds the move of domain ${record.domainId}: nothing was moved`,
      );
    if (!claim && !record.finishedAt)
      throw refuse(
        `${sink.location} lost its _destination.json while its move into ${s.to} was under way: nothing more is moved; ` +
          'find what removed it (docs/tenants.md, switching to tenants)',
      );
    return;
  }
  const there = await listCopy(sink, s.target);
  if (there.size > 0) {
    const held = parseClaim(await sink.read(`${s.target}${CLAIM_KEY}`));
    const same = held !== undefined && held.domainId === claim?.domainId;
    throw refuse(
      `${s.to} already holds ${there.size} object(s)${held ? ` (a destination of domain ${held.domainId})` : ''}, ` +
        'and no move into it: a destination moves only into an empty tenant folder; ' +
        (same
          ? "the tenant's own runs wrote there before the move: remove that folder and move again (its days are in the source)"
          : 'choose another tenant id'),
    );
  }
  if (!claim) {
    const tenants = (await sink.list(`${TENANTS_DIR}/`)).length > 0;
    throw refuse(
      `${sink.location} is no single-domain destination: it has no _destination.json` +
        (tenants ? ' (it holds tenants/ already: a shared destination)' : '') +
        '; give the --out a single-domain stack or `costs` wrote to',
    );
  }
  if (!(await isBacked(sink, false)))
    throw refuse(
      `${sink.location} holds no export of domain ${claim.domainId} (only its claim): nothing to move`,
    );
  const age = claimAge(claim, s.now);
  if (!opts.force && (age === undefined || age < CLAIM_EXPIRY_MS)) {
    const when = age === undefined ? 'at an unknown time' : `${Math.round(age / 60_000)} min ago`;
    throw refuse(
      `the latest run into ${sink.location} started ${when} and may still be writing: stop the stack's schedules ` +
        `(or wait ${CLAIM_EXPIRY_MS / 60_000} min after its start) and run again; add --force only if no run is going`,
    );
  }
}

/** The source listed again after the copy: anything new, gone or changed means a run wrote there. */
export async function refuseChangedSource(sink: Sink, before: Listing): Promise<void> {
  const after = await listSource(sink);
  const same = (a: StoredObject, b: StoredObject | undefined) =>
    b !== undefined && a.size === b.size && a.etag === b.etag && a.mtimeMs === b.mtimeMs;
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
    (k) => !same(before.get(k) ?? { size: -1 }, after.get(k)),
  );
  if (changed.length === 0) return;
  throw new MoveError(
    'MOVE_SOURCE_CHANGED',
    `${changed.length} object(s) of ${sink.location} changed during the move (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''}): ` +
      "a run is writing there; stop the stack's schedules and run the move again (what is copied is kept and checked)",
  );
}

/**
 * The source removed, each object only while it reads back as the SHA-256 its verified copy was
 * made from; the claims last, so that a move killed while deleting is still found and finished.
 */
export async function deleteSource(
  sink: Sink,
  record: MoveRecord,
  opts: SourceOptions,
): Promise<{ deleted: number; kept: string[] }> {
  const checksums = record.checksums ?? {};
  const keys = [...(await listSource(sink)).keys()].sort();
  const claims = [COST_CLAIM_KEY, CLAIM_KEY].filter((k) => keys.includes(k));
  const rest = keys.filter((k) => !claims.includes(k));
  const kept: string[] = [];
  let deleted = 0;
  const remove = async (key: string) => {
    opts.signal?.throwIfAborted();
    const verified = checksums[key];
    const bytes = verified === undefined ? undefined : await sink.readBytes(key);
    if (!verified || !bytes || sha256(bytes) !== verified) {
      kept.push(key);
      return;
    }
    await removeProven(sink, key, proveCopied(key, verified, sha256(bytes)));
    deleted++;
    opts.onProgress?.({
      done: deleted + kept.length,
      total: keys.length,
      bytes: 0,
      phase: 'source deletion',
    });
  };
  await forEachLimit(rest, opts.concurrency ?? 8, remove);
  for (const key of claims) await remove(key);
  await sink.removeEmptyFolders?.(emptiedFolders(keys));
  return { deleted, kept: kept.sort() };
}

/** Every folder of these keys, deepest first (a directory's folders, emptied by the deletion). */
function emptiedFolders(keys: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const key of keys) {
    const parts = key.split('/');
    for (let i = parts.length - 1; i > 0; i--) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
}
