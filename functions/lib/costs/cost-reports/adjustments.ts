// The adjustments and their policies, as a daily snapshot beside the reports they shape.
import { createHash } from 'node:crypto';
import type { ApiRecord } from '../../cloudforet/pager.ts';
import { utcDay } from '../../dates.ts';
import { manifestKey, objectKey } from '../../destination/layout.ts';
import { CloudforetApiError } from '../../errors.ts';
import { exportListing } from '../../export/listing-export.ts';
import { reportAdjustmentTable } from '../../tables/cost-reports.ts';
import { listAll, type ReportArchiveDeps } from './deps.ts';

/** The adjustments snapshot: written, unchanged (same listing as the day's object), or why skipped. */
export type AdjustmentsOutcome = 'written' | 'unchanged' | 'empty' | { readonly skipped: string };

/**
 * Today's snapshot of the adjustments with their policies (report_adjustment_policy_service.py and
 * report_adjustment_service.py list: DOMAIN_ADMIN only; a workspace app is refused and skips it).
 * Written again only when the listing differs from what the day's object holds.
 */
export async function snapshotAdjustments(deps: ReportArchiveDeps, now: Date): Promise<AdjustmentsOutcome> {
  let records: ApiRecord[];
  try {
    const policies = await listAll(deps, {
      path: '/cost-analysis/report-adjustment-policy/list',
      idKey: 'report_adjustment_policy_id',
    });
    const byId = new Map(policies.map((p) => [p.report_adjustment_policy_id, p]));
    records = (
      await listAll(deps, { path: '/cost-analysis/report-adjustment/list', idKey: 'report_adjustment_id' })
    ).map((a) => ({ ...a, policy: byId.get(a.report_adjustment_policy_id) }));
  } catch (error) {
    if (error instanceof CloudforetApiError && error.status === 403)
      return { skipped: 'report adjustments are listed to DOMAIN_ADMIN only (403)' };
    throw error;
  }
  if (records.length === 0) return 'empty';
  const day = utcDay(now);
  const digest = createHash('sha256').update(JSON.stringify(records)).digest('hex');
  const key = manifestKey(reportAdjustmentTable, day, 'domain');
  const objectAt = objectKey(reportAdjustmentTable, day, 'domain');
  const previous = JSON.parse((await deps.sink.read(key)) ?? '{}') as {
    listingSha256?: string;
    sha256?: string;
  };
  if (previous.listingSha256 === digest) {
    // The same listing is no change only if the day's object is still what its manifest says: one
    // missing, cut short or replaced is taken again, not declared unchanged.
    if (await objectAsRecorded(deps, objectAt, previous.sha256)) return 'unchanged';
    deps.log.warn('report adjustments snapshot unlike its manifest: taken again', { key: objectAt });
  }
  await exportListing(deps, {
    list: { path: '/cost-analysis/report-adjustment/list', idKey: 'report_adjustment_id' },
    pages: async function* () {
      yield records;
    },
    table: reportAdjustmentTable,
    context: { exportedAtMs: now.getTime() },
    key: objectAt,
    manifestKey: key,
    kvMetadata: { snapshot_date: day, run_id: deps.runId },
    manifest: (published) => ({
      table: reportAdjustmentTable.name,
      partition: day,
      ...published,
      totalCount: published.rows,
      listingSha256: digest,
      schemaVersion: reportAdjustmentTable.schemaVersion,
      runId: deps.runId,
      exportedAt: now.toISOString(),
    }),
  });
  return 'written';
}

/** The object is there and its SHA-256 is the manifest's (a manifest without one proves nothing). */
async function objectAsRecorded(
  deps: ReportArchiveDeps,
  key: string,
  sha256: string | undefined,
): Promise<boolean> {
  if (sha256 === undefined) return false;
  const bytes = await deps.sink.readBytes(key);
  return bytes !== undefined && createHash('sha256').update(bytes).digest('hex') === sha256;
}
