// What a move into a tenant's folder rewrites (destination/tenant-move.ts): no object's data. A
// manifest records what the store said of its object when it was written (S3: its ETag; a
// directory: its mtime), and a compacted month's manifest what a listing said of each daily
// manifest it was built from. A copy gets a new ETag when S3 copies an object uploaded in parts,
// and a new mtime always; those fields alone are rewritten to describe the copy, and only where
// they described the source as it stands: a description already stale stays stale, for the
// tenant's runs to find as the single-domain runs would have.
import type { StoredObject } from '../storage/sink.ts';

/** key -> what a listing said of it, keys relative to the destination (the source's or the copy's). */
export type Listing = ReadonlyMap<string, StoredObject>;

export interface ManifestRewrite {
  /** The manifest as the copy's runs must read it. */
  readonly text: string;
  /** The objects (data objects, daily manifests) whose copies it now describes. */
  readonly copies: readonly string[];
}

const FIELDS = ['etag', 'mtimeMs'] as const;

type Described = { readonly etag?: unknown; readonly mtimeMs?: unknown };

/**
 * The fields of `record` to replace by the copy's, or undefined: every field it records agreed with
 * the source's listing (it described the source truly) and at least one differs for the copy.
 */
function copyFields(record: Described, was: StoredObject | undefined, now: StoredObject | undefined) {
  if (!was || !now) return undefined;
  const recorded = FIELDS.filter((f) => record[f] !== undefined);
  if (recorded.length === 0 || recorded.some((f) => record[f] !== was[f])) return undefined;
  const moved = recorded.filter((f) => now[f] !== undefined && now[f] !== record[f]);
  if (moved.length === 0) return undefined;
  return Object.fromEntries(moved.map((f) => [f, now[f]])) as Partial<StoredObject>;
}

/** A daily manifest as a compacted month recorded its listing (compaction/compact.ts ListedManifest). */
type Listed = Described & { readonly key?: unknown; readonly size?: unknown };

/** The record says what the listing says: the same size, and each ETag or mtime it holds (one at least). */
function describes(record: Listed, listed: StoredObject | undefined): boolean {
  if (!listed || record.size !== listed.size) return false;
  const recorded = FIELDS.filter((f) => record[f] !== undefined);
  return recorded.length > 0 && recorded.every((f) => record[f] === listed[f]);
}

/** The manifest describing the copies of what it names, or undefined when it needs no rewrite. */
export function rewriteForCopy(text: string, source: Listing, copy: Listing): ManifestRewrite | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  let out = parsed as Record<string, unknown>;
  const copies: string[] = [];
  if (typeof out.key === 'string') {
    const fields = copyFields(out, source.get(out.key), copy.get(out.key));
    if (fields) {
      out = { ...out, ...fields };
      copies.push(out.key as string);
    }
  }
  if (Array.isArray(out.sources)) {
    let changed = false;
    const sources = (out.sources as unknown[]).map((s) => {
      const listed = (s as { manifest?: Listed } | null)?.manifest;
      const now = listed && typeof listed.key === 'string' ? copy.get(listed.key) : undefined;
      if (!listed || !now || !describes(listed, source.get(listed.key as string))) return s;
      if (describes(listed, now)) return s;
      changed = true;
      copies.push(listed.key as string);
      const fields = FIELDS.filter((f) => listed[f] !== undefined).map((f) => [f, now[f]]);
      return { ...(s as object), manifest: { ...listed, size: now.size, ...Object.fromEntries(fields) } };
    });
    if (changed) out = { ...out, sources };
  }
  return copies.length > 0 ? { text: `${JSON.stringify(out, null, 2)}\n`, copies } : undefined;
}
