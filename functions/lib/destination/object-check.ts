// Whether a stored object is still the one its manifest describes. The cheap checks come from a
// listing (missing, another size, another ETag, a modification time that moved); the checksum is
// read only when a directory's file moved, or for every object under --verify. A size that
// matches is never taken as proof alone. Every table's objects are checked here: cost days
// (planning), FOCUS units (the focus pass) and the whole-destination verifier.
import type { Sink, StoredObject } from '../storage/sink.ts';

/** What a manifest says of its object. */
export interface DescribedObject {
  readonly bytes: number;
  readonly sha256?: string;
  readonly etag?: string;
  readonly mtimeMs?: number;
}

/** 'missing', 'size', 'etag' or 'checksum'; undefined when the object is as described. */
export async function objectDifference(
  sink: Sink,
  m: DescribedObject,
  key: string,
  object: StoredObject | undefined,
  verify: boolean,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (!object) return 'missing';
  if (object.size !== m.bytes) return 'size';
  if (m.etag !== undefined && object.etag !== undefined && object.etag !== m.etag) return 'etag';
  const moved = m.mtimeMs !== undefined && object.mtimeMs !== undefined && object.mtimeMs !== m.mtimeMs;
  if (m.sha256 === undefined || !sink.sha256 || !(verify || moved)) return undefined;
  return (await sink.sha256(key, { signal })) === m.sha256 ? undefined : 'checksum';
}
