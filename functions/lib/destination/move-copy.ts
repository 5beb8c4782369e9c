// One object of a move into a tenant's folder (destination/tenant-move.ts): read whole, written under
// the tenant's folder, read back and its SHA-256 compared. A manifest whose object's copy is
// described otherwise by the store (move-rewrite.ts) is written rewritten, through the gate, with
// the proof that every copy it now describes read back as meant. A copy already there that reads
// back as meant (a run killed halfway) is kept as it is.
import { createHash } from 'node:crypto';
import { ExportError } from '../errors.ts';
import type { Sink } from '../storage/sink.ts';
import { proveCopied, rewriteManifestForCopy } from './gate.ts';
import { MANIFESTS_DIR } from './layout.ts';
import { type Listing, rewriteForCopy } from './move-rewrite.ts';

export class MoveError extends ExportError {}

/** What one object's move came to. */
export interface Copied {
  readonly key: string;
  readonly bytes: number;
  /** The source's SHA-256, read whole. */
  readonly sourceSha256: string;
  /** What the copy must hold: the source's bytes, or the rewritten manifest's. */
  readonly expectedSha256: string;
  /** What the copy read back as. */
  readonly readBackSha256: string;
  readonly rewritten: boolean;
  /** Found already copied (a run killed halfway), not written again. */
  readonly wasThere: boolean;
}

export interface CopyContext {
  readonly sink: Sink;
  /** The tenant's folder, relative to the sink, with its trailing slash. */
  readonly target: string;
  /** The source as listed when the move began. */
  readonly source: Listing;
  /** The copy as listed when this phase began (keys relative to the tenant's folder). */
  readonly copy: Listing;
  /** Every object copied so far and read back as meant. */
  readonly verified: ReadonlyMap<string, Copied>;
  readonly signal?: AbortSignal;
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const CONTENT_TYPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^ledger\/.*\.json$/, 'application/x-ndjson'],
  [/\.json$/, 'application/json'],
  [/\.parquet$/, 'application/vnd.apache.parquet'],
  [/\.csv$/, 'text/csv'],
  [/\.html$/, 'text/html'],
  [/\.txt$/, 'text/plain'],
];

function contentType(key: string): string {
  return CONTENT_TYPES.find(([pattern]) => pattern.test(key))?.[1] ?? 'application/octet-stream';
}

/** The bytes' SHA-256 as stored under `key`, read whole (undefined: nothing there). */
async function storedSha256(sink: Sink, key: string, signal?: AbortSignal): Promise<string | undefined> {
  if (sink.sha256) return sink.sha256(key, signal ? { signal } : {});
  const bytes = await sink.readBytes(key);
  return bytes === undefined ? undefined : sha256(bytes);
}

export async function copyObject(ctx: CopyContext, key: string): Promise<Copied> {
  const { sink, target, signal } = ctx;
  signal?.throwIfAborted();
  const bytes = await sink.readBytes(key);
  if (bytes === undefined) {
    throw new MoveError(
      'MOVE_SOURCE_CHANGED',
      `${key} left ${sink.location} during the move: a run is writing there; let it end (or stop the stack's schedules) and run the move again`,
    );
  }
  const sourceSha256 = sha256(bytes);
  const rewrite = key.startsWith(`${MANIFESTS_DIR}/`)
    ? rewriteForCopy(Buffer.from(bytes).toString('utf8'), ctx.source, ctx.copy)
    : undefined;
  const body = rewrite ? Buffer.from(rewrite.text) : bytes;
  const expectedSha256 = rewrite ? sha256(body) : sourceSha256;
  const to = `${target}${key}`;
  const done = { key, bytes: bytes.length, sourceSha256, expectedSha256, rewritten: rewrite !== undefined };
  const there = ctx.copy.get(key);
  if (there?.size === body.length && (await storedSha256(sink, to, signal)) === expectedSha256) {
    if (there.mtimeMs !== ctx.source.get(key)?.mtimeMs) await keepModified(ctx, key);
    return { ...done, readBackSha256: expectedSha256, wasThere: true };
  }
  if (rewrite) {
    const proofs = rewrite.copies.map((k) => {
      const copied = ctx.verified.get(k);
      return proveCopied(k, copied?.expectedSha256, copied?.readBackSha256);
    });
    await rewriteManifestForCopy(sink, to, rewrite.text, proofs);
  } else await upload(sink, to, bytes);
  await keepModified(ctx, key);
  const readBack = await storedSha256(sink, to, signal);
  if (readBack !== expectedSha256) {
    throw new MoveError(
      'MOVE_COPY_MISMATCH',
      `${to} reads back SHA-256 ${readBack ?? '(nothing)'} where ${expectedSha256} was written: the source is kept; run the move again`,
    );
  }
  return { ...done, readBackSha256: readBack, wasThere: false };
}

/**
 * A directory's copy keeps its source's mtime, which manifests record and which orders a unit's
 * writes (a FOCUS unit is looked at again when its costs manifest is newer): nothing to rewrite.
 * S3 sets LastModified itself; copying in phases keeps that order there.
 */
async function keepModified(ctx: CopyContext, key: string): Promise<void> {
  const mtimeMs = ctx.source.get(key)?.mtimeMs;
  if (mtimeMs === undefined || !ctx.sink.setModified) return;
  const now = await ctx.sink.setModified(`${ctx.target}${key}`, mtimeMs);
  if (now.mtimeMs !== mtimeMs)
    throw new MoveError(
      'MOVE_COPY_MISMATCH',
      `${ctx.target}${key} keeps mtime ${now.mtimeMs}, not its source's ${mtimeMs}: this file system cannot keep a file's time; the source is kept`,
    );
}

/** Written whole or not at all, as every export writes (multipart on S3, a renamed temporary locally). */
async function upload(sink: Sink, key: string, bytes: Uint8Array): Promise<void> {
  const out = sink.begin(key, contentType(key));
  try {
    await out.write(bytes);
    await out.commit();
  } catch (error) {
    await out.abort().catch(() => undefined);
    throw error;
  }
}
