// Gathers what planning needs (published manifests, Cloudforet's per-day stats, the sync job
// history and what earlier runs saw of it) and plans the units of a cost run.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import { daysBetween } from '../../dates.ts';
import { parseManifest } from '../../destination/manifest.ts';
import { forEachLimit } from '../../pool.ts';
import type { Sink } from '../../storage/sink.ts';
import { type AccountLinks, type DataSourceInfo, virtualWorkspaceMap } from '../sources/data-sources.ts';
import { costManifestKey, costManifestPrefix } from '../sources/day-keys.ts';
import { canonicalGroups, type WorkspaceOfVirtual } from '../sources/fingerprint.ts';
import { type DayStat, dayStats, listSyncJobs, type SyncJob } from '../sources/source-state.ts';
import { DEFAULT_STALE_JOB_AFTER_MS, retentionStart, type SourceJobs, sourceJobs } from './job-history.ts';
import { newJobsAfter, readJobMarks } from './job-marks.ts';
import { type CostPlan, type PlannedUnit, planCostUnits } from './plan-units.ts';
import {
  type DamagedUnit,
  damagedUnits,
  type ReadManifest,
  withoutKept,
  withRepairs,
} from './published-objects.ts';

/** What a cost run (inline, CLI or backfill) is asked to export. */
export interface CostRunRequest {
  readonly from: string;
  readonly to: string;
  readonly dataSourceIds?: readonly string[];
  /** Export every day, changed or not. */
  readonly force?: boolean;
  /**
   * Also re-examine the months that sync jobs replaced since the last such run, outside the
   * window (the default-window run sets it; an explicit range exports only that range).
   */
  readonly followJobs?: boolean;
  /** An IN_PROGRESS sync job older than this is stale (default 4 h): export anyway, and warn. */
  readonly staleJobAfterMs?: number;
  /** Read every published object of the range and compare its SHA-256 with its manifest's. */
  readonly verify?: boolean;
  /**
   * Archive Cloudforet's cost reports too (costs/cost-reports/archive.ts); absent: the scheduled run
   * (followJobs) does, an explicit range does not. The CLI's --cost-reports sets it.
   */
  readonly costReports?: boolean;
}

export interface CostPlanRequest {
  readonly from: string;
  readonly to: string;
  readonly force?: boolean;
  /** Re-examine the months sync jobs replaced since the last run that did (see CostRunRequest). */
  readonly followJobs?: boolean;
  /** An IN_PROGRESS job older than this is stale: export anyway and warn. */
  readonly staleJobAfterMs?: number;
  /** Compare every published object's SHA-256 with its manifest's, not only those that moved. */
  readonly verify?: boolean;
  readonly now?: Date;
}

export interface CostExportPlan extends CostPlan {
  /** When the job history was read: the next run looks at jobs finished from here on. */
  readonly jobsReadAt: string;
  /** The job history as read, for the marks. */
  readonly jobs: readonly SyncJob[];
  readonly staleJobs: readonly SyncJob[];
  /** dataSourceId -> months outside the window re-examined because a sync replaced them. */
  readonly reexamined: ReadonlyMap<string, readonly string[]>;
  /** Published objects that are not what their manifest describes: re-exported as repairs. */
  readonly damaged: readonly DamagedUnit[];
  /** The account links the plan keyed both sides through: the run's units map rows through them too. */
  readonly workspaceOf: AccountLinks;
}

export async function planCostExport(
  client: CloudforetClient,
  sink: Sink,
  dataSources: readonly DataSourceInfo[],
  req: CostPlanRequest,
): Promise<CostExportPlan> {
  const now = req.now ?? new Date();
  const [jobs, existing, marks, workspaceOf] = await Promise.all([
    listSyncJobs(client),
    listCostManifests(sink),
    readJobMarks(sink),
    virtualWorkspaceMap(client),
  ]);
  const staleAfterMs = req.staleJobAfterMs ?? DEFAULT_STALE_JOB_AFTER_MS;
  const history = new Map<string, SourceJobs>(
    dataSources.map((d) => [
      d.id,
      sourceJobs(jobs, d.id, { now, staleAfterMs, ...newJobsAfter(marks.get(d.id)) }),
    ]),
  );
  const syncing = new Set(dataSources.filter((d) => history.get(d.id)?.running).map((d) => d.id));
  const active = dataSources.filter((d) => !syncing.has(d.id) && d.type !== 'WAREHOUSE');
  const reexamine = new Map(
    active.map((d) => [d.id, jobDays(d.id, history.get(d.id)?.changedFrom, req, now, existing)]),
  );
  const manifests: ReadManifest[] = [];
  const [asPublished, asAnalyzed] = await Promise.all([
    readPublished(sink, active, req, reexamine, existing, manifests),
    readSourceStats(client, active, req, reexamine),
  ]);
  const published = keyedThrough(asPublished, workspaceOf);
  const source = keyedThrough(asAnalyzed, workspaceOf);
  const successes = new Map(active.map((d) => [d.id, history.get(d.id)?.successes ?? []]));
  const unsettled = new Map(active.map((d) => [d.id, history.get(d.id)?.unsettled ?? []]));
  const force = req.force ?? false;
  const planned = planCostUnits({
    ...req,
    force,
    dataSources,
    published,
    source,
    syncing,
    reexamine,
    successes,
    unsettled,
  });
  // --verify walks the whole destination, not the window: every cost day's manifest is read, and a
  // damaged day inside retention is re-exported; one past it is left to the verifier to name.
  if (req.verify) await readOtherManifests(sink, existing, manifests);
  const retained = retentionStart(now);
  const ids = new Set(active.map((d) => d.id));
  const damaged = (await damagedUnits(sink, manifests, { verify: req.verify })).filter(
    (d) => d.date >= retained && ids.has(d.dataSourceId),
  );
  const plan = withRepairs(withoutKept(planned, manifests, source), damaged);
  return {
    ...plan,
    damaged,
    workspaceOf,
    units: plan.units.map((u) => withAnalyzed(u, source)),
    jobsReadAt: now.toISOString(),
    jobs,
    staleJobs: active.flatMap((d) => history.get(d.id)?.stale ?? []),
    reexamined: new Map(
      [...reexamine].filter(([, days]) => days.length > 0).map(([id, days]) => [id, months(days)]),
    ),
  };
}

/**
 * The unit with the day's analyze totals, which the ledger records so `reconcile_cost_days` can
 * compare what was published with what Cloudforet said then: every planned day's month was
 * analyzed (readSourceStats), and a day analyze does not list has no rows.
 */
function withAnalyzed(
  unit: PlannedUnit,
  source: ReadonlyMap<string, ReadonlyMap<string, DayStat>>,
): PlannedUnit {
  const days = source.get(unit.dataSourceId);
  if (!days) return unit;
  const day = days.get(unit.date);
  return { ...unit, analyzed: { rows: day?.rows ?? 0, costSum: day?.costSum ?? 0 } };
}

/**
 * Days syncs replaced (from the first day of `changedFrom`), outside the window and inside
 * retention, that an export published; none unless the run follows the job history.
 */
function jobDays(
  dataSourceId: string,
  changedFrom: string | undefined,
  req: CostPlanRequest,
  now: Date,
  existing: ReadonlySet<string>,
): string[] {
  if (!changedFrom || !req.followJobs) return [];
  const from = `${changedFrom}-01`;
  const start = from > retentionStart(now) ? from : retentionStart(now);
  if (start > req.to) return [];
  return daysBetween(start, req.to).filter(
    (date) => (date < req.from || date > req.to) && existing.has(costManifestKey(dataSourceId, date)),
  );
}

/** Every day's groups keyed through the workspace mapping and merged (fingerprint.ts: like with like). */
function keyedThrough(
  stats: Map<string, Map<string, DayStat>>,
  workspaceOf: WorkspaceOfVirtual,
): Map<string, Map<string, DayStat>> {
  return new Map(
    [...stats].map(([id, days]) => [
      id,
      new Map(
        [...days].map(([date, d]) => [
          date,
          d.groups ? { ...d, groups: canonicalGroups(d.groups, workspaceOf) } : d,
        ]),
      ),
    ]),
  );
}

const months = (days: readonly string[]) => [...new Set(days.map((d) => d.slice(0, 7)))].sort();

/**
 * dataSourceId -> date -> what the manifests say was published. Lists first and reads only the
 * manifests that exist: one LIST per 1000 keys, and no GET of a missing key (which S3 answers
 * 403, not 404, to a role that may list only under the prefix).
 */
async function readPublished(
  sink: Sink,
  dataSources: readonly DataSourceInfo[],
  req: CostPlanRequest,
  reexamine: ReadonlyMap<string, readonly string[]>,
  existing: ReadonlySet<string>,
  read: ReadManifest[],
): Promise<Map<string, Map<string, DayStat>>> {
  const published = new Map<string, Map<string, DayStat>>(dataSources.map((d) => [d.id, new Map()]));
  const keys = dataSources.flatMap((d) =>
    [...daysBetween(req.from, req.to), ...(reexamine.get(d.id) ?? [])]
      .map((date) => ({ id: d.id, date, key: costManifestKey(d.id, date) }))
      .filter((k) => existing.has(k.key)),
  );
  await forEachLimit(keys, 16, async ({ id, date, key }) => {
    const m = parseManifest(await sink.read(key));
    if (!m) return;
    read.push({ dataSourceId: id, date, manifest: m });
    published.get(id)!.set(date, {
      rows: m.rows,
      costSum: m.costSum ?? 0,
      ...(m.groups && { groups: m.groups }),
      ...(m.jobId && { jobs: [m.jobId] }),
    });
  });
  return published;
}

/** Every cost manifest not read yet (outside the window), added to `read`. */
async function readOtherManifests(
  sink: Sink,
  existing: ReadonlySet<string>,
  read: ReadManifest[],
): Promise<void> {
  const seen = new Set(read.map((m) => costManifestKey(m.dataSourceId, m.date)));
  const pattern = /billed_date=(\d{4}-\d{2}-\d{2})\/([^/]+)\.json$/;
  const rest = [...existing].filter((k) => !seen.has(k) && pattern.test(k));
  await forEachLimit(rest, 16, async (key) => {
    const [, date = '', dataSourceId = ''] = pattern.exec(key)!;
    const manifest = parseManifest(await sink.read(key));
    if (manifest) read.push({ dataSourceId, date, manifest });
  });
}

/** Keys of every cost manifest written so far. */
export async function listCostManifests(sink: Sink): Promise<Set<string>> {
  return new Set(await sink.list(costManifestPrefix));
}

async function readSourceStats(
  client: CloudforetClient,
  dataSources: readonly DataSourceInfo[],
  req: CostPlanRequest,
  reexamine: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, Map<string, DayStat>>> {
  const stats = new Map<string, Map<string, DayStat>>();
  await forEachLimit(dataSources, 4, async (d) => {
    const days = [...daysBetween(req.from, req.to), ...(reexamine.get(d.id) ?? [])];
    stats.set(d.id, await dayStats(client, d.id, months(days)));
  });
  return stats;
}
