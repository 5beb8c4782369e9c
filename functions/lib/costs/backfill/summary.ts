// A backfill's summary, from the manifests its units wrote. Apart from backfill.ts so that the
// summary function's bundle carries the S3 sink only: no Cloudforet client, no encoder.
import { forEachLimit } from '../../pool.ts';
import { parseManifest } from '../../storage/manifest.ts';
import type { Sink } from '../../storage/sink.ts';
import type {
  BackfillCostReports,
  BackfillFocus,
  BackfillItem,
  BackfillPlan,
  BackfillUnifiedCosts,
} from './backfill.ts';
import { writeJobMarks } from '../planning/job-marks.ts';
import { costManifestKey, costManifestPrefix } from '../sources/day-keys.ts';

export interface BackfillSummary {
  readonly runId: string;
  readonly from: string;
  readonly to: string;
  readonly units: number;
  readonly exported: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly skippedSyncInProgress: readonly string[];
  readonly perDataSource: ReadonlyArray<{ dataSourceId: string; exported: number; failed: number }>;
  readonly failures: ReadonlyArray<{ dataSourceId: string; date: string }>;
  /** From the plan step; its failures are counted in `failed`. */
  readonly unifiedCosts?: BackfillUnifiedCosts;
  /** The plan step's cost-report pass; its failure counts as one in `failed`. */
  readonly costReports?: BackfillCostReports;
  /** As the plan step reported them. */
  readonly beyondRetention?: number;
  readonly retainedFrom?: string;
  /** Job-history marks written (default-window backfills): data sources whose units all exported. */
  readonly jobMarksWritten?: number;
  /** The Focus state's pass; its failures (or its own error, as one) are counted in `failed`. */
  readonly focus?: BackfillFocus & { readonly error?: string };
}

/** A unit counts as exported when its manifest carries this run's id. */
export async function summarizeBackfill(sink: Sink, plan: BackfillPlan): Promise<BackfillSummary> {
  const items = JSON.parse((await sink.read(plan.unitsKey)) ?? '[]') as BackfillItem[];
  const done = new Set<BackfillItem>();
  const existing = new Set(await sink.list(costManifestPrefix));
  const written = items.filter((i) => existing.has(costManifestKey(i.dataSourceId, i.date)));
  await forEachLimit(written, 16, async (item) => {
    const manifest = parseManifest(await sink.read(costManifestKey(item.dataSourceId, item.date)));
    if (manifest?.runId === plan.runId) done.add(item);
  });
  const failures = items
    .filter((i) => !done.has(i))
    .map(({ dataSourceId, date }) => ({ dataSourceId, date }));
  const ids = [...new Set(items.map((i) => i.dataSourceId))].sort();
  const jobMarksWritten = plan.jobMarks ? await writeJobMarks(sink, plan.jobMarks, failures) : undefined;
  const focus = focusOf(plan);
  return {
    runId: plan.runId,
    from: plan.from,
    to: plan.to,
    units: items.length,
    exported: done.size,
    unchanged: plan.unchanged,
    failed:
      failures.length +
      (plan.unifiedCosts?.failures.length ?? 0) +
      (focus ? focus.failures.length + (focus.error ? 1 : 0) : 0) +
      (plan.costReports ? ('error' in plan.costReports ? 1 : plan.costReports.dataUnanswered) : 0),
    skippedSyncInProgress: plan.skippedSyncInProgress,
    perDataSource: ids.map((dataSourceId) => ({
      dataSourceId,
      exported: [...done].filter((i) => i.dataSourceId === dataSourceId).length,
      failed: failures.filter((f) => f.dataSourceId === dataSourceId).length,
    })),
    failures,
    unifiedCosts: plan.unifiedCosts,
    ...(plan.costReports && { costReports: plan.costReports }),
    ...(plan.beyondRetention && { beyondRetention: plan.beyondRetention, retainedFrom: plan.retainedFrom }),
    ...(jobMarksWritten !== undefined && { jobMarksWritten }),
    ...(focus && { focus }),
  };
}

function focusOf(plan: BackfillPlan): BackfillSummary['focus'] {
  if (plan.focusError) {
    const error = `${plan.focusError.Error ?? 'Error'}: ${plan.focusError.Cause ?? ''}`.slice(0, 1000);
    return { written: 0, removed: 0, notStarted: 0, failures: [], error };
  }
  return plan.focus;
}
