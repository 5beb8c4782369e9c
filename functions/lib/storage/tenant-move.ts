// Moves a single-domain destination, `<dest>/…`, into one tenant's folder, `<dest>/tenants/<id>/…`,
// so that the tenant's runs take every unit as exported. Every object is copied and read back
// (move-copy.ts), in an order that keeps each object written before what describes it (data, then
// manifests, then what derives from them), and the move's record in the tenant's folder keeps
// every source object's SHA-256. Nothing of the source goes before the whole copy is verified, and
// then only with `deleteSource`, each object only while it still reads back as verified. Killed
// at any point, the same command finishes the move.
import { CLAIM_EXPIRY_MS, claimAge, isBacked, parseClaim } from './claim-records.ts';
import { DestinationClaimError } from './destination-claim.ts';
import { createOnce, proveCopied, removeProven } from './gate.ts';
import {
  CLAIM_KEY,
  COMPACTION_STATE_DIR,
  COST_CLAIM_KEY,
  MANIFESTS_DIR,
  MAP_RESULTS_PREFIX,
  MOVE_RECORD_KEY,
} from './layout.ts';
import { type Copied, copyObject, MoveError, sha256 } from './move-copy.ts';
import type { Listing } from './move-rewrite.ts';
import type { Sink, StoredObject } from './sink.ts';
import { forEachLimit } from '../pool.ts';
import { TENANTS_DIR, tenantPrefix } from '../tenant.ts';

export { MoveError };

export interface MoveOptions {
  readonly tenant: string;
  readonly deleteSource: boolean;
  /** Move although the source's latest run started within the claim's expiry. */
  readonly force: boolean;
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: MoveProgress) => void;
  readonly now?: () => Date;
}

export interface MoveProgress {
  readonly done: number;
  readonly total: number;
  readonly bytes: number;
  readonly phase: string;
}

export interface MoveReport {
  readonly from: string;
  readonly to: string;
  readonly domainId: string;
  /** 'moved' now, or found moved by an earlier run of the command. */
  readonly outcome: 'moved' | 'already moved';
  readonly objects: number;
  readonly bytes: number;
  /** Copies byte for byte the source's (SHA-256 read back). */
  readonly identical: number;
  /** Manifests rewritten to describe their object's copy (an ETag or mtime, nothing else). */
  readonly rewritten: number;
  /** Found copied by a run killed halfway, and checked. */
  readonly resumed: number;
  /** SHA-256 of every source object's key and SHA-256, one line each in key order. */
  readonly digest: string;
  readonly deleted: number;
  /** Source objects kept under --delete-source: changed or new since their copy was verified. */
  readonly kept: readonly string[];
  readonly elapsedMs: number;
}

/** What the tenant's folder keeps of the move: `_moved-in.json`. */
interface MoveRecord {
  readonly from: string;
  readonly domainId: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly objects?: number;
  readonly bytes?: number;
  readonly rewritten?: number;
  readonly digest?: string;
  /** Every source object's SHA-256 when its copy was verified: what a deletion compares. */
  readonly checksums?: Readonly<Record<string, string>>;
}

const recordText = (r: MoveRecord) => `${JSON.stringify(r, null, 2)}\n`;

function parseRecord(text: string | undefined): MoveRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as MoveRecord;
    return typeof r.domainId === 'string' && typeof r.startedAt === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The source's objects: everything but the tenants' folders and Step Functions' own Map results. */
async function listSource(sink: Sink): Promise<Map<string, StoredObject>> {
  const all = await sink.listObjects('');
  return new Map(
    [...all].filter(([k]) => !k.startsWith(`${TENANTS_DIR}/`) && !k.startsWith(MAP_RESULTS_PREFIX)),
  );
}

async function listCopy(sink: Sink, target: string): Promise<Map<string, StoredObject>> {
  const listed = await sink.listObjects(target);
  return new Map([...listed].map(([k, o]) => [k.slice(target.length), o]));
}

/**
 * Objects before what describes them: data and bookkeeping (0), manifests (1), the manifests of
 * what derives from those (2: FOCUS, statement records), compacted months and their state (3).
 */
export function movePhase(key: string): number {
  if (key.startsWith(`${COMPACTION_STATE_DIR}/`)) return 3;
  if (!key.startsWith(`${MANIFESTS_DIR}/`)) return 0;
  const table = key.split('/')[1] ?? '';
  if (table === 'costs_monthly' || table === 'focus_monthly') return 3;
  return table === 'focus' || table === 'statements' ? 2 : 1;
}

const PHASES = ['data', 'manifests', 'derived manifests', 'compacted months'];

export async function moveIntoTenant(sink: Sink, opts: MoveOptions): Promise<MoveReport> {
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  const target = `${tenantPrefix(opts.tenant)}/`;
  const to = `${sink.location.replace(/\/+$/, '')}/${tenantPrefix(opts.tenant)}`;
  const recordKey = `${target}${MOVE_RECORD_KEY}`;
  let record = parseRecord(await sink.read(recordKey));
  const claim = parseClaim(await sink.read(CLAIM_KEY));
  await refuseUnlessMovable(sink, opts, { record, claim, target, to, now: now() });
  const domainId = (record?.domainId ?? claim?.domainId) as string;
  let copied: Pick<MoveReport, 'outcome' | 'identical' | 'rewritten' | 'resumed'>;
  if (record?.finishedAt) {
    const rewritten = record.rewritten ?? 0;
    copied = {
      outcome: 'already moved',
      identical: (record.objects ?? 0) - rewritten,
      rewritten,
      resumed: 0,
    };
  } else {
    if (!record) {
      record = { from: sink.location, domainId, startedAt: now().toISOString() };
      await createOnce(sink, recordKey, recordText(record), 'application/json');
    }
    const run = await copyAll(sink, opts, target, record, now);
    record = run.record;
    await sink.put(recordKey, recordText(record), 'application/json');
    copied = { outcome: 'moved', identical: run.identical, rewritten: run.rewritten, resumed: run.resumed };
  }
  const removal = opts.deleteSource ? await deleteSource(sink, record, opts) : { deleted: 0, kept: [] };
  return {
    from: sink.location,
    to,
    domainId,
    ...copied,
    objects: record.objects ?? 0,
    bytes: record.bytes ?? 0,
    digest: record.digest ?? '',
    ...removal,
    elapsedMs: Date.now() - started,
  };
}

/** Refuses, before any write, a source that is no single-domain destination or a tenant folder in use. */
async function refuseUnlessMovable(
  sink: Sink,
  opts: MoveOptions,
  s: {
    record: MoveRecord | undefined;
    claim: ReturnType<typeof parseClaim>;
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
    throw refuse(
      `${s.to} already holds ${there.size} object(s)${held ? ` (a destination of domain ${held.domainId})` : ''}, ` +
        'and no move into it: a destination moves only into an empty tenant folder; choose another tenant id',
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

interface CopyRun {
  readonly record: MoveRecord;
  readonly identical: number;
  readonly rewritten: number;
  readonly resumed: number;
}

/** Every source object copied and read back, phase after phase; the source listed again at the end. */
async function copyAll(
  sink: Sink,
  opts: MoveOptions,
  target: string,
  record: MoveRecord,
  now: () => Date,
): Promise<CopyRun> {
  const source = await listSource(sink);
  const keys = [...source.keys()].sort();
  const verified = new Map<string, Copied>();
  let bytes = 0;
  for (const [phase, name] of PHASES.entries()) {
    const copy = await listCopy(sink, target);
    const ctx = { sink, target, source, copy, verified, signal: opts.signal };
    await forEachLimit(
      keys.filter((k) => movePhase(k) === phase),
      opts.concurrency ?? 8,
      async (key) => {
        const done = await copyObject(ctx, key);
        verified.set(key, done);
        bytes += done.bytes;
        opts.onProgress?.({ done: verified.size, total: keys.length, bytes, phase: name });
      },
    );
  }
  await refuseChangedSource(sink, source);
  const all = [...verified.values()];
  const checksums = Object.fromEntries(keys.map((k) => [k, verified.get(k)!.sourceSha256]));
  const rewritten = all.filter((c) => c.rewritten).length;
  return {
    record: {
      ...record,
      finishedAt: now().toISOString(),
      objects: keys.length,
      bytes,
      rewritten,
      digest: sha256(Buffer.from(keys.map((k) => `${k} ${checksums[k]}\n`).join(''))),
      checksums,
    },
    identical: all.length - rewritten,
    rewritten,
    resumed: all.filter((c) => c.wasThere).length,
  };
}

/** The source listed again after the copy: anything new, gone or changed means a run wrote there. */
async function refuseChangedSource(sink: Sink, before: Listing): Promise<void> {
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
async function deleteSource(
  sink: Sink,
  record: MoveRecord,
  opts: MoveOptions,
): Promise<Pick<MoveReport, 'deleted' | 'kept'>> {
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
