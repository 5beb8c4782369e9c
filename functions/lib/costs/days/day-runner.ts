// Runs one planned cost unit with bounded retries (and its restatement record); shared by the
// inline run and the Step Functions worker.
import { attemptUnit, type UnitFailureInfo } from '../../export/unit-attempts.ts';
import type { Logger } from '../../log.ts';
import type { PlannedUnit } from '../planning/plan-units.ts';
import { type AccountLinks, type DataSourceInfo, virtualWorkspaceMap } from '../sources/data-sources.ts';
import { type CostUnitDeps, type CostUnitResult, exportCostUnit } from './export-day.ts';
import { restating } from './restatements.ts';

/** A planned day that did not export, and why. */
export interface UnitFailure extends UnitFailureInfo {
  readonly dataSourceId: string;
  readonly date: string;
}

export type UnitExecutorDeps = Omit<CostUnitDeps, 'workspaceOfVirtual' | 'syncStamps' | 'log'> & {
  readonly log: Logger;
  /** Attempts per unit for retryable failures (drift, transient API errors). */
  readonly unitAttempts?: number;
};

/**
 * Exports one planned unit with bounded retries; shared by the inline run and the Step Functions
 * worker. `links`: the account links the run's plan read, where this process planned; read here
 * otherwise (a unit of the state machine's Map runs in an invocation of its own).
 */
export async function unitExecutor(
  deps: UnitExecutorDeps,
  dataSources: readonly DataSourceInfo[],
  links?: AccountLinks,
): Promise<{
  /** pagingDone: called when the unit's (first attempt's) last page has come. */
  run(unit: PlannedUnit, pagingDone?: () => void): Promise<CostUnitResult | UnitFailure>;
  retries(): number;
}> {
  const byId = new Map(dataSources.map((d) => [d.id, d]));
  const workspaceOfVirtual = links ?? (await virtualWorkspaceMap(deps.client));
  const unitDeps: CostUnitDeps = { ...deps, workspaceOfVirtual, syncStamps: new Map() };
  let retries = 0;
  const run = async (
    planned: PlannedUnit,
    pagingDone?: () => void,
  ): Promise<CostUnitResult | UnitFailure> => {
    const { jobId, analyzed } = planned;
    const unit = {
      dataSource: byId.get(planned.dataSourceId)!,
      date: planned.date,
      jobId,
      analyzed,
      reason: planned.reason,
    };
    const { dataSourceId, date } = planned;
    const fields = { dataSourceId, billedDate: date, reason: planned.reason };
    const outcome = await attemptUnit(
      { what: 'cost unit', log: deps.log, fields, attempts: deps.unitAttempts, signal: deps.signal },
      restating(deps.sink, { ...planned, runId: deps.runId, workspaceOf: workspaceOfVirtual }, () =>
        exportCostUnit({ ...unitDeps, pagingDone }, unit),
      ),
    );
    retries += outcome.retries;
    return outcome.ok ? outcome.value : { dataSourceId, date, ...outcome.failure };
  };
  return { run, retries: () => retries };
}
