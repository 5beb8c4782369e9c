// What the move's tests read and do to a destination, a directory or S3 alike: every object's
// SHA-256 read whole, an object made one S3 stored in parts, and the plain copy a move is not.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';
import type { S3Server } from '../../harness/s3-server.ts';

export type Store = Sink;

export const dirStore = (root: string): Store => dirSink(root);
export const s3Store = (s3: S3Server, bucket: string, prefix: string): Store =>
  s3Sink({ client: s3.client, bucket, prefix });

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What a move takes: not the tenants' folders, not Step Functions' own Map results or the tenants' run's lanes. */
const outsideMove = (key: string) => /^(tenants|_runs\/costs\/map-results|_runs\/costs\/lanes)\//.test(key);

/** key (relative to `under`) -> SHA-256 of its bytes, read whole. */
export async function checksums(store: Store, under: string): Promise<Map<string, string>> {
  const keys = (await store.list(under)).filter((k) => under !== '' || !outsideMove(k)).sort();
  const sums = new Map<string, string>();
  for (const key of keys) sums.set(key.slice(under.length), sha((await store.readBytes(key))!));
  return sums;
}

/** Also the revision each run keeps of the unified-cost month it replaces (unified_costs_revisions/). */
export const rewrittenByEveryRun = (key: string) =>
  /^(_destination|_ledger-rollup|_manifests\/cost-jobs\/|ledger\/|_runs\/|(_manifests\/)?unified_costs(_revisions)?\/)/.test(
    key,
  );

/**
 * Keys of the tables and their manifests whose bytes changed or went between two checksum maps
 * (keys new in `after`, a day not exported before, are the caller's to judge). Every run
 * rewrites the same things of an unchanged destination: its claim (renewed), job marks, the
 * ledger's rollup, and the unified costs of its window (each month read whole from Cloudforet).
 */
export function unchanged(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before.keys()].filter((k) => !rewrittenByEveryRun(k) && before.get(k) !== after.get(k)).sort();
}

/** S3's ETag of an object uploaded in two parts: the MD5 of the parts' MD5s, then "-2". */
function partedEtag(bytes: Uint8Array): string {
  const half = Math.ceil(bytes.length / 2);
  const md5s = [bytes.subarray(0, half), bytes.subarray(half)].map((p) =>
    createHash('md5').update(p).digest(),
  );
  return `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-2`;
}

/**
 * The first data source's costs and FOCUS objects of these days made as S3 keeps an object uploaded
 * in parts (s3rver gives every object its MD5): the ETag S3 would list, recorded in their manifests
 * as the export records it, and in the compacted months' record of those manifests. Returns the
 * keys a move must rewrite and which fields of each.
 */
export async function markUploadedInParts(
  s3: S3Server,
  store: Store,
  bucket: string,
  prefix: string,
  days: readonly string[],
): Promise<{ rewritten: string[]; fields: (key: string) => string[] }> {
  const manifests = (await store.list('_manifests/costs/')).sort();
  const ds = /\/([^/]+)\.json$/.exec(manifests[0]!)![1]!;
  const rewritten: string[] = [];
  const monthly: string[] = [];
  for (const day of days) {
    const [month, dd] = [day.slice(0, 7), day.slice(8, 10)];
    for (const [manifest, compacted] of [
      [
        `_manifests/costs/billed_date=${day}/${ds}.json`,
        `_manifests/costs_monthly/billed_month=${month}/${ds}.json`,
      ],
      [
        `_manifests/focus/x_billing_period=${month}/x_charge_day=${dd}/${ds}.json`,
        `_manifests/focus_monthly/x_billing_period=${month}/${ds}.json`,
      ],
    ] as const) {
      const m = JSON.parse((await store.read(manifest))!);
      const etag = partedEtag((await store.readBytes(m.key))!);
      await writeFile(join(s3.dir, bucket, `${prefix}/${m.key}._S3rver_object.md5`), etag);
      await store.put(manifest, `${JSON.stringify({ ...m, etag }, null, 2)}\n`, 'application/json');
      rewritten.push(manifest);
      const record = await store.read(compacted);
      if (record === undefined) continue;
      const listed = (await store.listObjects(manifest)).get(manifest)!;
      const c = JSON.parse(record);
      c.sources = c.sources.map((s: { manifest?: { key: string } }) =>
        s.manifest?.key === manifest
          ? { ...s, manifest: { ...s.manifest, size: listed.size, etag: listed.etag } }
          : s,
      );
      await store.put(compacted, `${JSON.stringify(c, null, 2)}\n`, 'application/json');
      monthly.push(compacted);
    }
  }
  return {
    rewritten: [...rewritten, ...new Set(monthly)].sort(),
    fields: (key) => (monthly.includes(key) ? ['sources'] : ['etag']),
  };
}

/** What `aws s3 cp --recursive` makes of the destination: every object copied, nothing rewritten. */
export async function copyPlainly(store: Store, into: string): Promise<void> {
  for (const key of (await store.list('')).filter((k) => !outsideMove(k))) {
    const upload = store.begin(`${into}${key}`, 'application/octet-stream');
    await upload.write((await store.readBytes(key))!);
    await upload.commit();
  }
}
