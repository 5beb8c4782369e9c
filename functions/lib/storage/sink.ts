// Where exported objects go. Every object appears whole or not at all: data is written to a
// pending upload (multipart, or a temporary file) that becomes visible only on commit.
import { resolve } from 'node:path';
import { SinkError } from '../errors.ts';

/** Where a file's bytes go, in order; a slow consumer holds the writer back. */
export interface ByteOut {
  write(chunk: Uint8Array): Promise<void>;
}

/**
 * What the store says of an object, cheaply (from a listing): enough to tell whether it is still
 * the one a manifest describes. S3 gives its ETag; a directory its modification time.
 */
export interface StoredObject {
  readonly size: number;
  readonly etag?: string;
  readonly mtimeMs?: number;
  /**
   * When the object was last written (S3: LastModified, to the second; a directory: mtime):
   * what tells, from listings alone, that a source changed after what was derived from it, or
   * that an object changed after its manifest (a manifest is always written after its object).
   */
  readonly modifiedMs?: number;
}

export interface ObjectUpload extends ByteOut {
  /** Make the object visible under its key, replacing any previous one; says what was stored. */
  commit(): Promise<Omit<StoredObject, 'size'>>;
  /** Drop everything written; the previous object, if any, stays as it was. */
  abort(): Promise<void>;
}

export interface Sink {
  /** e.g. s3://bucket/prefix or /abs/dir, for messages and summaries. */
  readonly location: string;
  begin(key: string, contentType: string): ObjectUpload;
  /** Write a small object whole (manifests). */
  put(key: string, body: string, contentType: string): Promise<void>;
  /**
   * Write a small object whole unless one exists, atomically: of writers racing for one key,
   * exactly one creates it (S3: If-None-Match: *; a directory: a hard link). True when this one did.
   */
  createIfAbsent(key: string, body: string, contentType: string): Promise<boolean>;
  /** A small object's text, or undefined when there is none. */
  read(key: string): Promise<string | undefined>;
  /** An object's bytes, read whole (a data object of one unit), or undefined when there is none. */
  readBytes(key: string): Promise<Uint8Array | undefined>;
  remove(key: string): Promise<void>;
  /** Keys under a prefix (relative to the sink's root), in any order. */
  list(prefix: string): Promise<string[]>;
  /** Data objects under a prefix with their size and ETag or mtime, from one listing (no request per object). */
  listObjects(prefix: string): Promise<ReadonlyMap<string, StoredObject>>;
  /**
   * The object's SHA-256, hex, read whole (streamed from a file; S3: the object's bytes read back).
   * `signal` ends the read (the verifier's, on SIGINT): it rejects with the signal's reason.
   */
  sha256?(key: string, opts?: { readonly signal?: AbortSignal }): Promise<string | undefined>;
  /**
   * Proves, without writing, that the destination can be reached and written to as far as can be
   * told (S3: bucket, credentials and endpoint answer a listing; a directory: no file in the way,
   * write permission); throws a SinkError with the cause and a remedy otherwise.
   */
  checkWritable(): Promise<void>;
  /**
   * Removes the folders under these keys if they are empty (a directory; S3 has no folders), e.g.
   * what a probe's one object left: an empty folder is no data.
   */
  removeEmptyFolders?(prefixes: readonly string[]): Promise<void>;
  /**
   * Sets a file's modification time (a directory; S3 sets LastModified itself): a moved file keeps
   * the time its manifest recorded (destination/tenant-move.ts). Returns what a listing now says of it.
   */
  setModified?(key: string, mtimeMs: number): Promise<StoredObject>;
  /** Removes what killed runs left (temporary files older than startedAt); returns how many. */
  removeStaleTemporaries?(startedAt: Date): Promise<number>;
}

export type Destination = { kind: 's3'; bucket: string; prefix: string } | { kind: 'dir'; path: string };

/**
 * `s3://bucket/prefix` (the scheme in any case) or a local directory. Anything else that looks
 * like a URL (`s3:/x`, `s3://`, `https://…`) is refused: taken as a folder name, it would write
 * the data to a local folder while the user believes it is in S3.
 */
export function parseDestination(value: string): Destination {
  const s3 = /^s3:\/\/(.*)$/i.exec(value);
  if (s3) {
    const [bucket = '', ...rest] = s3[1]!.split('/');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new SinkError(
        'DESTINATION_INVALID',
        `'${value}' names no S3 bucket: give s3://bucket or s3://bucket/prefix (got bucket '${bucket}')`,
      );
    }
    return { kind: 's3', bucket, prefix: rest.join('/').replace(/^\/+|\/+$/g, '') };
  }
  // A scheme, but not a Windows drive letter (C:\ or C:/).
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !/^[A-Za-z]:[\\/]/.test(value)) {
    throw new SinkError(
      'DESTINATION_INVALID',
      `'${value}' is neither s3://bucket/prefix nor a local directory: write S3 destinations as s3://bucket/prefix`,
    );
  }
  if (value.trim() === '')
    throw new SinkError(
      'DESTINATION_INVALID',
      'the destination is empty: give a directory or s3://bucket/prefix',
    );
  refusePseudoFileSystem(value);
  return { kind: 'dir', path: value };
}

/** Kernel and device trees, never a place for an export; /dev/shm is ordinary memory-backed storage. */
const PSEUDO = /^\/(proc|sys|dev)(\/|$)/;
const PSEUDO_WHAT: Readonly<Record<string, string>> = {
  proc: "the kernel's view of processes",
  sys: "the kernel's view of devices and drivers",
  dev: 'device files',
};

/**
 * A folder under /proc, /sys or /dev is refused before any request: writing there fails late
 * (after Cloudforet answered), or on a container's /dev, writes where nothing is kept.
 */
function refusePseudoFileSystem(value: string): void {
  if (process.platform === 'win32') return;
  const path = resolve(value);
  const tree = PSEUDO.exec(path)?.[1];
  if (tree === undefined || /^\/dev\/shm(\/|$)/.test(path)) return;
  throw new SinkError(
    'DESTINATION_INVALID',
    `'${value}' is under /${tree} (${PSEUDO_WHAT[tree]}), where no export can be kept: choose another --out (a folder on a disk, or s3://bucket/prefix)`,
  );
}

export function joinKey(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}/${key}`;
}
