// A cost export run in one process (the CLI and the cost-export Lambda): every step of the cost
// job (job/steps.ts) in order, on a job kept in memory, then its summary. The scheduled state
// machine runs the same steps in slices (functions/backfill-*.ts); a failed unit never stops the others.
import { randomUUID } from 'node:crypto';
import type { DestinationOwner } from '../destination/destination-claim.ts';
import type { ExportRunDeps } from '../export/run-deps.ts';
import { silentLogger } from '../log.ts';
import { type CostJobEnv, type CostJobOptions, jobOptions, newJob } from './job/job.ts';
import { runSteps } from './job/steps.ts';
import { type CostRunSummary, costRunSummary } from './job/summary.ts';
import type { CostRunRequest } from './planning/plan-export.ts';

export type { CostRunSummary, UnitFailure } from './job/summary.ts';
export type { CostRunRequest } from './planning/plan-export.ts';

export interface CostRunDeps extends ExportRunDeps, Partial<CostJobOptions> {
  /**
   * The app's domain and workspace: names the unified-cost objects ('domain' or the workspace id)
   * and claims the destination for this scope (destination/destination-claim.ts).
   */
  readonly credential?: DestinationOwner;
  /** Days older than this are past Cloudforet's retention (days/export-day.ts DEFAULT_ARCHIVE_AFTER_DAYS). */
  readonly archiveAfterDays?: number;
  /** The focus table's Glue partitions, moved after compaction (compaction/focus-catalog.ts). */
  readonly focusCatalog?: CostJobEnv['focusCatalog'];
}

export async function runCostExport(deps: CostRunDeps, req: CostRunRequest): Promise<CostRunSummary> {
  const started = Date.now();
  const runId = deps.runId ?? randomUUID();
  const log = (deps.log ?? silentLogger).child({ runId });
  const job = newJob(runId, req, jobOptions(req, deps), deps.sink.location, started);
  await runSteps({ ...deps, runId, log }, job);
  const summary = costRunSummary(job, {
    requestRetries: deps.client.retries,
    durationMs: Date.now() - started,
  });
  log.info('cost export finished', {
    ...summary,
    perDataSource: undefined,
    failures: summary.failures.slice(0, 20),
  });
  return summary;
}
