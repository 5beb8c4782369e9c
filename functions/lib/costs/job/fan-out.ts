// The `units` step fanned out, as the state machine runs it: the plan's units written for the
// Distributed Map's ItemReader, one unit per invocation (the same executor the inline step runs),
// each leaving a report of what it did; then the reports gathered back into the job, so the steps
// after the units see on this path what they see inline. A unit with no report (its invocation
// died, or the Map never reached it) is a failure: absence is never taken as done.

import { isIsoDate } from '../../dates.ts';
import { backfillUnitsKey, costJobReportKey, costJobReportsPrefix } from '../../destination/layout.ts';
import { EventError, UnitFailedError, UnitRetryableError } from '../../errors.ts';
import { forEachLimit } from '../../pool.ts';
import type { Sink } from '../../storage/sink.ts';
import { type UnitFailure, unitExecutor } from '../days/day-runner.ts';
import type { PlannedUnit } from '../planning/plan-units.ts';
import { listDataSources, selectDataSources } from '../sources/data-sources.ts';
import { type CostJob, type CostJobEnv, type UnitRecord, unitRecord } from './job.ts';

/** A Distributed Map item as the plan step wrote it. */
export type UnitItem = PlannedUnit & { readonly runId: string };

/** What a unit's invocation leaves for the states after the Map. */
type UnitReport = { readonly result: UnitRecord } | { readonly failure: UnitFailure };

/**
 * Writes the plan's units where the Map's ItemReader reads them; returns the key. `stamp` goes
 * into every item: a stack of tenants names the tenant there, for the unit's invocation.
 */
export async function writeUnitItems(
  sink: Sink,
  job: CostJob,
  stamp: Readonly<Record<string, string>> = {},
): Promise<string> {
  const items: UnitItem[] = (job.plan?.units ?? []).map((u) => ({ ...stamp, runId: job.runId, ...u }));
  const key = backfillUnitsKey(job.runId);
  await sink.put(key, JSON.stringify(items), 'application/json');
  return key;
}

/**
 * One unit of the Map: exported with the inline step's executor, its report written, and a failure
 * thrown so the state machine retries what a retry can fix (UnitRetryableError) and not the rest.
 */
export async function runUnitItem(env: Omit<CostJobEnv, 'runId'>, item: UnitItem): Promise<UnitRecord> {
  const dataSources = selectDataSources(await listDataSources(env.client), [item.dataSourceId]);
  const exec = await unitExecutor({ ...env, runId: item.runId }, dataSources);
  const outcome = await exec.run(item);
  const key = costJobReportKey(item.runId, item.dataSourceId, item.date);
  if (!('code' in outcome)) {
    const result = unitRecord(outcome);
    await env.sink.put(key, JSON.stringify({ result } satisfies UnitReport), 'application/json');
    return result;
  }
  await env.sink.put(key, JSON.stringify({ failure: outcome } satisfies UnitReport), 'application/json');
  const message = `${item.dataSourceId} ${item.date}: ${outcome.message} [${outcome.code}]`;
  throw outcome.retryable
    ? new UnitRetryableError(outcome.code, message)
    : new UnitFailedError(outcome.code, message);
}

/** The units' reports read back into the job: results, failures, and units that reported nothing. */
export async function gatherUnitReports(sink: Sink, job: CostJob): Promise<void> {
  const units = job.plan?.units ?? [];
  const present = new Set(await sink.list(costJobReportsPrefix(job.runId)));
  await forEachLimit(units, 16, async (unit) => {
    const key = costJobReportKey(job.runId, unit.dataSourceId, unit.date);
    const report = present.has(key) ? parseReport(await sink.read(key)) : undefined;
    if (report && 'result' in report) job.results.push(report.result);
    else
      job.failures.push(
        report?.failure ?? {
          dataSourceId: unit.dataSourceId,
          date: unit.date,
          code: 'UNIT_UNREPORTED',
          message:
            'the unit left no report: its invocation ended before it finished, or the Map did not run it; the next run exports it again',
          retryable: true,
          attempts: 0,
        },
      );
  });
  const order = (a: { date: string; dataSourceId: string }, b: { date: string; dataSourceId: string }) =>
    a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId);
  job.results.sort(order);
  job.failures.sort(order);
}

function parseReport(text: string | undefined): UnitReport | undefined {
  try {
    const report = JSON.parse(text ?? '') as UnitReport;
    if ('result' in report && typeof report.result?.dataSourceId === 'string') return report;
    if ('failure' in report && typeof report.failure?.code === 'string') return report;
  } catch {
    // A report cut short is no report: the unit counts as unreported.
  }
  return undefined;
}

/** A Distributed Map item as the plan step wrote it; anything else is refused with what it should be. */
export function parseUnitItem(event: unknown): UnitItem {
  const e = (event ?? {}) as Partial<UnitItem>;
  if (typeof e.runId !== 'string' || typeof e.dataSourceId !== 'string' || !isIsoDate(e.date)) {
    throw new EventError(
      'EVENT_BAD_UNIT',
      'a backfill unit is {"runId", "dataSourceId", "date": "YYYY-MM-DD"}, written by the plan step',
    );
  }
  const jobId = typeof e.jobId === 'string' ? { jobId: e.jobId } : {};
  const a = e.analyzed;
  const analyzed = a && Number.isFinite(a.rows) && Number.isFinite(a.costSum) ? { analyzed: a } : {};
  return {
    runId: e.runId,
    dataSourceId: e.dataSourceId,
    date: e.date,
    reason: e.reason ?? 'forced',
    ...jobId,
    ...analyzed,
  };
}
