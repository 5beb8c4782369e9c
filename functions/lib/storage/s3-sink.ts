// S3 as a sink. Data objects stream through a multipart upload that becomes visible only
// when it completes; a failure aborts it, leaving no parts and the previous object intact.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SinkError } from '../errors.ts';
import { s3Cause } from './s3-errors.ts';
import { joinKey, type ObjectUpload, type Sink, type StoredObject } from './sink.ts';

export interface S3SinkOptions {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  /** Multipart part size in bytes (S3's minimum is 5 MiB, the default: see docs/performance.md). */
  readonly partSize?: number;
  readonly queueSize?: number;
}

/** Up to queueSize + 1 parts of each upload are in memory; the smallest part S3 takes costs least. */
export const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

export function s3Sink(opts: S3SinkOptions): Sink {
  const { client, bucket, prefix } = opts;
  const keyOf = (key: string) => joinKey(prefix, key);
  const fail = (action: string, key: string, error: unknown) => s3Error(action, bucket, keyOf(key), error);
  const readBytes = async (key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> => {
    try {
      const answer = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: keyOf(key) }),
        signal ? { abortSignal: signal } : {},
      );
      return await answer.Body?.transformToByteArray();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      // S3 answers 403, not 404, for a missing key to a role whose s3:ListBucket is limited to a
      // prefix (the stack's roles): only a listing tells "not there" from "not allowed".
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 403 && !(await listKeys(opts, keyOf(key))).has(key)) return undefined;
      throw fail('read', key, error);
    }
  };
  return {
    location: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
    begin: (key, contentType) => beginUpload(opts, keyOf(key), contentType),
    put: async (key, body, contentType) => {
      await client
        .send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(key), Body: body, ContentType: contentType }))
        .catch((e) => Promise.reject(fail('write', key, e)));
    },
    createIfAbsent: async (key, body, contentType) => {
      const put = { Bucket: bucket, Key: keyOf(key), Body: body, ContentType: contentType, IfNoneMatch: '*' };
      try {
        await client.send(new PutObjectCommand(put));
        return true;
      } catch (error) {
        // 412: the key exists. 409: a conditional write to it was in flight; the read after says who won.
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 412 || status === 409) return false;
        throw fail('write', key, error);
      }
    },
    read: async (key) => {
      const bytes = await readBytes(key);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
    },
    readBytes: (key) => readBytes(key),
    remove: async (key) => {
      await client
        .send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(key) }))
        .catch((e) => Promise.reject(fail('delete', key, e)));
    },
    list: async (under) => [...(await listKeys(opts, keyOf(under))).keys()],
    listObjects: (under) => listKeys(opts, keyOf(under)),
    // --verify only: every byte read back (an ETag of a multipart upload is no checksum of the bytes).
    sha256: async (key, { signal } = {}) => {
      const bytes = await readBytes(key, signal);
      return bytes === undefined ? undefined : createHash('sha256').update(bytes).digest('hex');
    },
    checkWritable: async () => {
      await client
        .send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyOf(''), MaxKeys: 1 }))
        .catch((e) => Promise.reject(fail('list', '', e)));
    },
  };
}

function beginUpload(opts: S3SinkOptions, key: string, contentType: string): ObjectUpload {
  const body = new PassThrough({ highWaterMark: 1 << 20 });
  const upload = new Upload({
    client: opts.client,
    // S3 checks each part's SHA-256 as it arrives; the manifest keeps the object's ETag.
    params: {
      Bucket: opts.bucket,
      Key: key,
      Body: body,
      ContentType: contentType,
      ChecksumAlgorithm: 'SHA256',
    },
    partSize: opts.partSize ?? DEFAULT_PART_SIZE,
    queueSize: opts.queueSize ?? 2,
    leavePartsOnError: false,
  });
  // lib-storage destroys the body when a part fails; the upload's own rejection is what we report.
  body.on('error', () => {});
  let failure: unknown;
  let etag: string | undefined;
  let committing = false;
  const done = upload.done();
  const settled = done.then(
    (result) => {
      etag = unquote(result.ETag);
    },
    (error) => {
      failure = error;
    },
  );
  return {
    write: async (chunk) => {
      if (failure !== undefined) throw s3Error('upload', opts.bucket, key, failure);
      if (!body.write(chunk)) await Promise.race([once(body, 'drain').catch(() => settled), settled]);
      if (failure !== undefined) throw s3Error('upload', opts.bucket, key, failure);
    },
    commit: async () => {
      committing = true;
      body.end();
      await settled;
      if (failure !== undefined) throw s3Error('upload', opts.bucket, key, failure);
      return { etag };
    },
    abort: async () => {
      // A body that fails makes lib-storage send AbortMultipartUpload before done() settles;
      // upload.abort() would settle at once and send it later, after a Lambda may be frozen.
      body.destroy(new Error('upload abandoned'));
      // Once the body has ended it fails nothing: the requests still out (a PutObject or the
      // last part, held by a slow S3) are aborted in flight, so done() settles now.
      if (committing) await upload.abort();
      await settled;
    },
  };
}

/** S3 quotes ETags; the manifest and the listing compare them bare. */
const unquote = (etag: string | undefined) => etag?.replace(/^"|"$/g, '');

/** key (relative to the sink's prefix) -> size and ETag, 1000 keys per request. */
async function listKeys(opts: S3SinkOptions, prefix: string): Promise<Map<string, StoredObject>> {
  const keys = new Map<string, StoredObject>();
  const strip = opts.prefix ? opts.prefix.length + 1 : 0;
  let token: string | undefined;
  do {
    const page = await opts.client
      .send(new ListObjectsV2Command({ Bucket: opts.bucket, Prefix: prefix, ContinuationToken: token }))
      .catch((e) => Promise.reject(s3Error('list', opts.bucket, prefix, e)));
    for (const o of page.Contents ?? []) {
      if (o.Key)
        keys.set(o.Key.slice(strip), {
          size: o.Size ?? 0,
          etag: unquote(o.ETag),
          ...(o.LastModified && { modifiedMs: o.LastModified.getTime() }),
        });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

function s3Error(action: string, bucket: string, key: string, error: unknown): SinkError {
  const { cause, remedy } = s3Cause(error, bucket);
  return new SinkError(
    'SINK_S3_FAILED',
    `s3: could not ${action} s3://${bucket}/${key}: ${cause}${remedy ? ` — ${remedy}` : ''}`,
    { cause: error },
  );
}
