// The cost job, declared once: its steps in order, each with what it does, when it is left out
// (and whether that leaves work for the next run), and how it runs. The CLI and the cost-export
// Lambda run them all in one process (run.ts); the scheduled state machine runs slices of the
// same list in its states (states.ts, functions/backfill-*.ts). Nothing composes the job elsewhere.
import { DAY_MISSING } from '../../compaction/absence.ts';
import { type CompactionSummary, compactConfirmedMonths } from '../../compaction/compact.ts';
import { syncFocusCatalog } from '../../compaction/focus-catalog.ts';
import { type DamagedDailyUnit, leaveCompactionFor } from '../../destination/compaction-state.ts';
import { type VerifyReport, verifyDestination } from '../../destination/verify-destination.ts';
import { errorCode, errorMessage } from '../../errors.ts';
import { isLedgerLine, repairLedgerLines } from '../../export/ledger-repair.ts';
import { isRollupObject, resetDamagedRollups, rewindRollup, rollUp } from '../../export/ledger-rollup.ts';
import { prepareDestination } from '../../export/prepare-destination.ts';
import { UNIT_INTERRUPTED } from '../../export/unit-attempts.ts';
import { exportFocus, type FocusPassSummary } from '../../focus/pass.ts';
import { forEachLimit, Gate } from '../../pool.ts';
import { costsMonthlyTable } from '../../tables/compacted.ts';
import { costTable } from '../../tables/costs.ts';
import { archiveCostReports } from '../cost-reports/archive.ts';
import { unitExecutor } from '../days/day-runner.ts';
import { retentionStart } from '../planning/job-history.ts';
import { writeJobMarks } from '../planning/job-marks.ts';
import { planCostExport } from '../planning/plan-export.ts';
import { jobMarksOf, warnAboutSources } from '../planning/plan-notes.ts';
import type { PlannedUnit } from '../planning/plan-units.ts';
import { clampToRetention } from '../planning/retention.ts';
import {
  type AccountLinks,
  checkNoneListed,
  listDataSources,
  selectDataSources,
} from '../sources/data-sources.ts';
import {
  changedDaysByMonth,
  exportUnifiedMonths,
  retainedMonths,
  scopeObjectName,
} from '../unified/export-months.ts';
import { type CostJob, type CostJobEnv, plannedUnits, type SkippedStep, unitRecord } from './job.ts';
import type { CostStepName } from './states.ts';

export interface CostJobStep {
  readonly name: Exclude<CostStepName, 'summary'>;
  /** What the CLI's progress line says while it runs, if anything. */
  readonly phase?: string;
  /** Why the step is left out of this job, if it is; undefined: it runs. */
  skip(env: CostJobEnv, job: CostJob): Omit<SkippedStep, 'step'> | undefined;
  run(env: CostJobEnv, job: CostJob): Promise<void>;
}

/**
 * The account links the plan read, for the units this process runs after it (the inline form):
 * units map rows through the links their plan compared with, and data-source-account/list is read
 * once a run. Not in the job's JSON: a state of the state machine, loading the job, reads them.
 */
const linksOfPlan = new WeakMap<CostJob, AccountLinks>();

/** The run was stopped by its signal (SIGINT, SIGTERM, the deadline). */
const stopped = (env: CostJobEnv) => env.signal?.aborted === true;

/** Work the next run must finish before the steps that read it: units or FOCUS units not started. */
function waiting(env: CostJobEnv, job: CostJob, focusToo: boolean): Omit<SkippedStep, 'step'> | undefined {
  if (stopped(env)) return { why: `the run was stopped (${errorMessage(env.signal?.reason)})`, left: true };
  if (job.notStarted.length > 0)
    return { why: `${job.notStarted.length} units were not started for lack of time`, left: true };
  if (focusToo && (job.focus?.notStarted ?? 0) > 0)
    return { why: `${job.focus!.notStarted} FOCUS units were not started for lack of time`, left: true };
  return undefined;
}

const notAsked = (why: string) => ({ why, left: false });

export const COST_JOB: readonly CostJobStep[] = [
  {
    name: 'prepare',
    skip: () => undefined,
    // Sweep, check writable and refuse another scope's destination first; claimed once Cloudforet
    // has answered and before planning: of two scopes racing, one plans.
    run: async (env, job) => {
      const destination = await prepareDestination(env.sink, {
        startedAt: new Date(job.startedAt),
        owner: env.credential,
        costs: true,
      });
      job.staleTemporariesRemoved = destination.staleTemporariesRemoved;
      const listed = await listDataSources(env.client);
      if (listed.length === 0) await checkNoneListed(env.sink);
      job.dataSources = selectDataSources(listed, job.request.dataSourceIds);
      await destination.claim();
    },
  },
  {
    name: 'plan',
    skip: () => undefined,
    run: async (env, job) => {
      const now = env.now?.() ?? new Date();
      const window = clampToRetention(job.request, now);
      const plan = await planCostExport(env.client, env.sink, job.dataSources, {
        ...job.request,
        ...window,
        now,
      });
      env.log.info('cost run planned', {
        units: plan.units.length,
        skippedSyncInProgress: plan.skippedSyncing,
      });
      warnAboutSources(env.log, plan);
      linksOfPlan.set(job, plan.workspaceOf);
      job.window = window;
      job.plan = {
        units: plan.units,
        unchanged: Object.fromEntries(plan.unchanged),
        skippedSyncing: plan.skippedSyncing,
        skippedWarehouse: plan.skippedWarehouse,
        mixed: plan.mixed,
        notSynced: plan.notSynced,
        staleJobs: plan.staleJobs,
        reexamined: [...plan.reexamined].map(([dataSourceId, months]) => ({ dataSourceId, months })),
        jobMarks: job.request.followJobs ? jobMarksOf(plan, job.dataSources) : [],
      };
      // Before any unit: views read the months the plan changes from their days until the
      // compaction step compacts them again (one writer; units only mark, destination/compaction-state.ts).
      // Not for a repair: its daily object is missing or damaged while the monthly object still
      // holds its rows, so the views keep reading the month compacted (the unit marks it, and the
      // compaction step rebuilds it) rather than lose the day until the repair is done.
      const changing = plan.units.filter((u) => u.reason !== 'repair');
      const damaged: DamagedDailyUnit[] = [];
      job.compactionStateAtStart = Object.fromEntries(
        await leaveCompaction(env, changing, (units) => damaged.push(...units)),
      );
      // A damaged day of a month the views keep reading compacted for it: this run repairs it too.
      const repairs = compactedRepairs(job, damaged, retentionStart(env.now?.() ?? new Date()));
      if (repairs.length > 0) job.plan = { ...job.plan, units: [...job.plan.units, ...repairs] };
    },
  },
  {
    name: 'units',
    skip: () => undefined,
    // The inline form; the state machine runs the same executor once per item (units.ts).
    run: async (env, job) => {
      const units = job.plan?.units ?? [];
      // `concurrency` units page at once, each holding a place from its start to its last page (a
      // place is a unit, not a page: a unit keeps one page in flight per range of ids, COST_ID_SPLIT); one
      // more may be publishing meanwhile (its last checks, commit, ledger and manifest), so no place
      // waits for that. A unit waiting for a place has not started. A unit retried after its pages
      // came (a failed commit) pages again without a place: rare, and bounded by the units running.
      const concurrency = env.concurrency ?? 4;
      const paging = new Gate(concurrency);
      const exec = await unitExecutor(env, job.dataSources, linksOfPlan.get(job));
      let rows = 0;
      await forEachLimit(units, concurrency + 1, async (unit) => {
        const leave = await paging.enter();
        try {
          if (job.notStarted.length > 0 || env.shouldStartUnit?.() === false || stopped(env)) {
            job.notStarted.push(unit);
            return;
          }
          const outcome = await exec.run(unit, leave);
          if ('code' in outcome) job.failures.push(outcome);
          else {
            job.results.push(unitRecord(outcome));
            rows += outcome.rows;
          }
        } finally {
          leave();
        }
        const unitsDone = job.results.length + job.failures.length;
        env.onProgress?.({
          unitsDone,
          unitsTotal: units.length,
          rows,
          elapsedMs: Date.now() - job.startedAt,
        });
      });
      job.unitRetries += exec.retries();
    },
  },
  {
    name: 'jobMarks',
    // Marks say "these sync jobs are handled": only for data sources all of whose units ran.
    skip: (_, job) =>
      job.request.followJobs ? undefined : notAsked('an explicit range does not follow the job history'),
    run: async (env, job) => {
      const unhandled = [...job.failures, ...job.notStarted];
      job.jobMarksWritten = await writeJobMarks(env.sink, job.plan?.jobMarks ?? [], unhandled);
      const waitingSources = [...new Set(job.notStarted.map((u) => u.dataSourceId))];
      if (waitingSources.length > 0)
        env.log.warn('job history left unmarked for data sources with units not started', {
          dataSourceIds: waitingSources,
        });
    },
  },
  {
    name: 'unified',
    phase: 'unified costs of the months',
    skip: (env, job) =>
      job.options.unifiedCosts ? waiting(env, job, false) : notAsked('unified costs not asked'),
    run: async (env, job) => {
      const now = env.now?.() ?? new Date();
      job.unifiedCosts = await exportUnifiedMonths(
        { ...env, scope: scopeObjectName(env.credential) },
        unifiedMonthsOf(job, now),
        changedDaysByMonth(plannedUnits(job), job.results),
      );
    },
  },
  {
    name: 'costReports',
    phase: 'cost reports',
    skip: (env, job) =>
      job.options.costReports ? waiting(env, job, false) : notAsked('cost reports not asked'),
    run: async (env, job) => {
      try {
        job.costReports = await archiveCostReports(env);
      } catch (error) {
        const code = errorCode(error);
        env.log.error('cost reports failed', { code, error: errorMessage(error) });
        job.costReports = { error: errorMessage(error), code };
      }
    },
  },
  {
    name: 'focus',
    phase: 'FOCUS rows of the days',
    skip: (env, job) => (job.options.focus ? waiting(env, job, false) : notAsked('FOCUS rows not asked')),
    // After the days: it derives FOCUS rows from the costs objects this run (or any before)
    // published. A costs object that is not what its manifest says (FOCUS_SOURCE_DAMAGED) is
    // re-exported from Cloudforet at once and its FOCUS rows derived again, rather than failing
    // every run until someone runs --verify.
    run: async (env, job) => {
      const window = job.window ?? job.request;
      job.focus = await focusOrFailure(env, job, window);
      const retained = retentionStart(env.now?.() ?? new Date());
      // A unit that already failed in this run (its object written, its manifest not) is its
      // failure already: exporting it again here would only fail it twice.
      const failed = new Set(job.failures.map((f) => `${f.dataSourceId}|${f.date}`));
      const repairs: PlannedUnit[] = job.focus.failures
        .filter((f) => f.code === 'FOCUS_SOURCE_DAMAGED' && f.date >= retained)
        .filter((f) => !failed.has(`${f.dataSourceId}|${f.date}`))
        .map((f) => ({ dataSourceId: f.dataSourceId, date: f.date, reason: 'repair' }));
      if (repairs.length === 0 || stopped(env)) return;
      env.log.warn('costs objects unlike their manifests; re-exporting them', { units: repairs.length });
      await exportRepairs(env, job, repairs);
      job.focus = await focusOrFailure(env, job, window);
    },
  },
  {
    name: 'compaction',
    phase: 'compaction of confirmed months',
    // Only after a whole run: a month is compacted from all of its days and their FOCUS rows.
    skip: (env, job) =>
      job.options.focus ? waiting(env, job, true) : notAsked('compaction follows the FOCUS rows, not asked'),
    // A day a compacted month holds whose daily manifest or object is missing fails its month
    // (COMPACTION_DAY_MISSING, the monthly object kept); where Cloudforet still holds the day it is
    // exported again at once, its FOCUS rows derived, and the month compacted again.
    run: async (env, job) => {
      const stateAtStart = job.compactionStateAtStart && new Map(Object.entries(job.compactionStateAtStart));
      const compact = async () => {
        const summary = await compactionOrFailure({ ...env, ...(stateAtStart && { stateAtStart }) });
        await focusCatalogOrFailure(env);
        return summary;
      };
      job.compaction = await compact();
      const retained = retentionStart(env.now?.() ?? new Date());
      const known = new Set(job.dataSources.map((d) => d.id));
      const missing: PlannedUnit[] = job.compaction.tables
        .filter((t) => t.table === costsMonthlyTable.name)
        .flatMap((t) => t.failures)
        .filter((f) => f.code === DAY_MISSING && known.has(f.dataSourceId))
        .flatMap((f) =>
          (f.days ?? []).map((date) => ({ dataSourceId: f.dataSourceId, date, reason: 'repair' as const })),
        )
        .filter((u) => u.date >= retained);
      if (missing.length === 0 || stopped(env)) return;
      env.log.warn('days a compacted month holds are missing; exporting them again from Cloudforet', {
        units: missing.length,
      });
      await exportRepairs(env, job, missing);
      job.focus = await focusOrFailure(env, job, job.window ?? job.request);
      job.compaction = await compact();
    },
  },
  {
    name: 'verify',
    phase: 'check of every object against its manifest',
    // After the run's own repairs, the whole destination, every table (destination/verify-destination.ts).
    skip: (env, job) =>
      job.request.verify === true ? waiting(env, job, true) : notAsked('--verify not asked'),
    run: async (env, job) => {
      try {
        job.verify = await repairBookkeeping(
          env,
          await verifyDestination(env.sink, { checksums: true, signal: env.signal }),
        );
      } catch (error) {
        if (!stopped(env)) throw error;
        env.log.warn('verification stopped (rerun costs --verify to check every object)', {
          reason: errorMessage(env.signal?.reason),
        });
        job.skipped.push({ step: 'verify', why: 'stopped before it finished', left: true });
      }
    },
  },
  {
    name: 'rollup',
    // Stopped (the deadline, a signal): the next run rolls this one's lines up.
    skip: (env) =>
      stopped(env) ? { why: 'the run was stopped; the next run rolls its lines up', left: true } : undefined,
    run: (env) => rollUp(env.sink, env.now?.() ?? new Date(), env.log),
  },
];

/** Runs the named steps of the job in the list's order (all of them when `names` is absent). */
export async function runSteps(
  env: CostJobEnv,
  job: CostJob,
  names?: readonly CostStepName[],
): Promise<void> {
  for (const step of COST_JOB) {
    if (names && !names.includes(step.name)) continue;
    const skipped = step.skip(env, job);
    if (skipped) {
      job.skipped.push({ step: step.name, ...skipped });
      continue;
    }
    if (step.phase) {
      const done = job.results.length + job.failures.length;
      env.onProgress?.({
        unitsDone: done,
        unitsTotal: job.plan?.units.length ?? 0,
        rows: job.results.reduce((n, r) => n + r.rows, 0),
        elapsedMs: Date.now() - job.startedAt,
        phase: step.phase,
      });
    }
    await step.run(env, job);
  }
  if (stopped(env)) job.interrupted = true;
}

/**
 * The window's months, and every month a day of which this run re-exported outside the window (a
 * restatement the job history found, a repair): the unified costs follow their days everywhere.
 */
function unifiedMonthsOf(job: CostJob, now: Date): string[] {
  const months = new Set(job.window ? retainedMonths(job.window, job.request.to) : []);
  const retained = retentionStart(now);
  for (const r of job.results) if (r.outcome !== 'kept' && r.date >= retained) months.add(r.date.slice(0, 7));
  return [...months].sort();
}

/** The focus pass, or its failure as a summary (an S3 outage in it must not hide the run's summary). */
async function focusOrFailure(
  env: CostJobEnv,
  job: CostJob,
  window: { readonly from: string; readonly to: string },
): Promise<FocusPassSummary> {
  try {
    return await exportFocus({ ...env, verify: job.request.verify === true }, window);
  } catch (error) {
    // Stopped by the run's signal (SIGINT, SIGTERM, the deadline): said as such, not as a failure.
    const aborted = stopped(env);
    const failure = {
      dataSourceId: '*',
      date: `${window.from}..${window.to}`,
      code: aborted ? UNIT_INTERRUPTED : errorCode(error),
      message: aborted
        ? `stopped before it finished (${errorMessage(env.signal?.reason)}); rerun to derive the FOCUS rows`
        : errorMessage(error),
    };
    if (aborted) env.log.warn('focus pass stopped', { ...failure });
    else env.log.error('focus pass failed', { ...failure });
    return { written: 0, removed: 0, current: 0, repaired: 0, rows: 0, failures: [failure], notStarted: 0 };
  }
}

/**
 * The verifier's unreadable ledger files, repaired where a run can: a line rebuilt from its unit's
 * manifest, a rollup object set aside and rebuilt by the rollup step (neither is a finding then);
 * a line that cannot be rebuilt is set aside whole and stays a finding, naming where it is kept.
 */
async function repairBookkeeping(env: CostJobEnv, report: VerifyReport): Promise<VerifyReport> {
  const unreadable = report.findings.filter((f) => f.why === 'unparsable').map((f) => f.key);
  const rollups = unreadable.filter(isRollupObject);
  const lines = await repairLedgerLines(env.sink, unreadable.filter(isLedgerLine));
  if (rollups.length > 0) await resetDamagedRollups(env.sink, rollups);
  else await rewindRollup(env.sink, lines.rebuiltDays);
  if (rollups.length + lines.rebuilt.length + lines.setAside.length === 0) return report;
  env.log.warn('unreadable ledger files repaired', {
    rebuilt: lines.rebuilt,
    rollupsRebuilt: rollups,
    setAside: lines.setAside,
  });
  const done = new Set([...rollups, ...lines.rebuilt]);
  const keptAt = new Map(lines.setAside.map((s) => [s.key, s.keptAt]));
  return {
    ...report,
    findings: report.findings
      .filter((f) => !done.has(f.key))
      .map((f) =>
        keptAt.has(f.key) ? { ...f, why: `unparsable: set aside whole at ${keptAt.get(f.key)}` } : f,
      ),
  };
}

/** Units exported again after planning (their objects or manifests not what they should be). */
async function exportRepairs(env: CostJobEnv, job: CostJob, repairs: readonly PlannedUnit[]): Promise<void> {
  const exec = await unitExecutor(env, job.dataSources, linksOfPlan.get(job));
  for (const unit of repairs) {
    const outcome = await exec.run(unit, () => undefined);
    if ('code' in outcome) job.failures.push(outcome);
    else job.results.push(unitRecord(outcome));
  }
  job.unitRetries += exec.retries();
  job.repairs.push(...repairs);
}

/** Lowers compaction_state below the units' months; returns the state as found, per daily table. */
function leaveCompaction(
  env: CostJobEnv,
  units: readonly PlannedUnit[],
  onDamaged: (units: readonly DamagedDailyUnit[]) => void,
) {
  return leaveCompactionFor(
    env.sink,
    units.map((u) => u.date.slice(0, 7)),
    (table, why) =>
      env.log.warn('compaction_state unreadable: every month read from its days until the compaction step', {
        table,
        why,
      }),
    (damaged) => {
      env.log.warn('daily units damaged in compacted months: those months stay read compacted', {
        units: damaged.slice(0, 20).map(({ manifestKey, why }) => ({ manifestKey, why })),
        count: damaged.length,
      });
      onDamaged(damaged);
    },
  );
}

/** Repair units for the damaged cost days leaveCompaction found: selected data sources, retained days, not yet planned. */
function compactedRepairs(
  job: CostJob,
  damaged: readonly DamagedDailyUnit[],
  retained: string,
): PlannedUnit[] {
  const planned = new Set((job.plan?.units ?? []).map((u) => `${u.dataSourceId}/${u.date}`));
  const selected = new Set(job.dataSources.map((d) => d.id));
  const repairs = new Map<string, PlannedUnit>();
  for (const d of damaged) {
    if (d.table !== costTable.name || !d.name || !d.partition || !selected.has(d.name)) continue;
    if (d.partition < retained) continue;
    const id = `${d.name}/${d.partition}`;
    if (!planned.has(id)) repairs.set(id, { dataSourceId: d.name, date: d.partition, reason: 'repair' });
  }
  return [...repairs.values()];
}

/**
 * The focus table's partitions moved to what compaction left (compaction/focus-catalog.ts), when
 * the run keeps them. A failure is logged and left to the next run, which recomputes the whole list:
 * the catalog drops before it creates, so meanwhile a month may be unread, never read twice.
 */
async function focusCatalogOrFailure(env: CostJobEnv): Promise<void> {
  if (!env.focusCatalog) return;
  try {
    const sync = await syncFocusCatalog(env.sink, env.focusCatalog.port, env.focusCatalog.root);
    if (sync.keptOnEmptyListing) {
      env.log.warn(
        'the destination lists no focus object but the focus table has partitions: kept them; check the bucket and prefix the function writes to',
        { ...sync },
      );
    } else env.log.info('focus table partitions registered', { ...sync });
  } catch (error) {
    env.log.error('focus table partitions not registered; the next run tries again', {
      code: errorCode(error),
      message: errorMessage(error),
    });
  }
}

/** The compaction step, or its failure as a summary: the views keep reading the days meanwhile. */
async function compactionOrFailure(
  env: Parameters<typeof compactConfirmedMonths>[0],
): Promise<CompactionSummary> {
  try {
    return await compactConfirmedMonths(env);
  } catch (error) {
    const failure = { dataSourceId: '*', month: '*', code: errorCode(error), message: errorMessage(error) };
    env.log?.error('compaction failed', { ...failure });
    return {
      tables: [
        { table: '*', written: 0, removed: 0, current: 0, rows: 0, failures: [failure], notStarted: 0 },
      ],
    };
  }
}
