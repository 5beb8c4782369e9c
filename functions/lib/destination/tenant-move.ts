// Moves a single-domain destination, `<dest>/…`, into one tenant's folder, `<dest>/tenants/<id>/…`,
// so that the tenant's runs take every unit as exported. Every object is copied and read back
// (move-copy.ts), in an order that keeps each object written before what describes it (data, then
// manifests, then what derives from them), and the move's record in the tenant's folder keeps
// every source object's SHA-256. Nothing of the source goes before the whole copy is verified, and
// then only with `deleteSource`, each object only while it still reads back as verified. Killed
// at any point, the same command finishes the move.

import { forEachLimit } from '../pool.ts';
import type { Sink } from '../storage/sink.ts';
import { tenantPrefix } from '../tenant.ts';
import { parseClaim } from './claim-records.ts';
import { createOnce } from './gate.ts';
import { CLAIM_KEY, COMPACTION_STATE_DIR, MANIFESTS_DIR, MOVE_RECORD_KEY } from './layout.ts';
import { type Copied, copyObject, MoveError, sha256 } from './move-copy.ts';
import { listCopy, listSource, type MoveRecord, parseRecord, recordText } from './move-record.ts';
import { deleteSource, refuseChangedSource, refuseUnlessMovable } from './move-source.ts';

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
  /** The same over the copies, read back: equal to `digest` when no manifest was rewritten. */
  readonly copyDigest: string;
  readonly deleted: number;
  /** Source objects kept under --delete-source: changed or new since their copy was verified. */
  readonly kept: readonly string[];
  readonly elapsedMs: number;
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
    copyDigest: record.copyDigest ?? '',
    ...removal,
    elapsedMs: Date.now() - started,
  };
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
      digest: digestOf(keys, (k) => checksums[k]!),
      copyDigest: digestOf(keys, (k) => verified.get(k)!.readBackSha256),
      checksums,
    },
    identical: all.length - rewritten,
    rewritten,
    resumed: all.filter((c) => c.wasThere).length,
  };
}

/** One SHA-256 over every key and its object's SHA-256, a line each in key order. */
function digestOf(keys: readonly string[], sha: (key: string) => string): string {
  return sha256(Buffer.from(keys.map((k) => `${k} ${sha(k)}\n`).join('')));
}
