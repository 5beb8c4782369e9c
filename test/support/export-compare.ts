// Two exports of one domain compared as data: what names the run (when, by which run) left out,
// lines in one order. Used by test/system/tenants/tenants-e2e.test.ts (a tenant's export beside a lone one).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getObjectBytes, listKeys, type S3Server } from '../../harness/s3-server.ts';

/**
 * What names the export rather than the data: when and by which run a row was written (or a report's
 * status observed), and in the ledger the object's size and checksum, which follow those timestamps
 * (also a kept revision's).
 */
export const RUN_COLUMNS = [
  'exported_at',
  'x_exported_at',
  'observed_at',
  'run_id',
  'bytes',
  'change_check',
  // A kept revision is named by its bytes, which carry its export time; the revisions ledger says when.
  'revision_key',
  'revision_sha256',
  'revision_bytes',
  'current_since',
  'superseded_at',
];

/**
 * A saved query's answer but its columns saying when or by which run a row was exported, its lines
 * in one order (a query's ties, equal totals, come in either order).
 */
export const withoutRun = (answer: { rows: Record<string, unknown>[] }) =>
  answer.rows
    .map((row) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => !/exported_at|observed_at|run_id/.test(k))),
    )
    .sort((x, y) => signature(x).localeCompare(signature(y)));
/**
 * Rows with the run named in object names (a cost-report status object is named for the run that saw
 * it: `<yyyymmddhhmmss>-<run id>`) as `<run>`, in one order.
 */
export const runNamed = (rows: Record<string, unknown>[]) =>
  rows
    .map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          typeof v === 'string' ? v.replace(/\d{14}-(?:daily|solo)-[\w-]*/g, '<run>') : v,
        ]),
      ),
    )
    .sort((x, y) => signature(x).localeCompare(signature(y)));

/**
 * A `LIMIT n` query ordered by `total_cost` may cut through lines of one total, either of them kept:
 * its lines above the last total kept, and every total.
 */
export function topLines(sql: string, rows: Record<string, unknown>[]) {
  if (!/\bLIMIT \d+\s*$/.test(sql)) return rows;
  const totals = rows.map((r) => Number(r.total_cost)).sort((x, y) => x - y);
  return { totals, above: rows.filter((r) => Number(r.total_cost) > (totals[0] ?? 0)) };
}
const signature = (row: Record<string, unknown>) =>
  JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v));

/** Every object under `prefix` copied to `dir`, keys below the prefix kept as paths. */
export async function download(s3: S3Server, bucket: string, prefix: string, dir: string): Promise<void> {
  for (const key of await listKeys(s3.client, bucket, `${prefix}/`)) {
    const path = join(dir, key.slice(prefix.length + 1));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, await getObjectBytes(s3.client, bucket, key));
  }
}
