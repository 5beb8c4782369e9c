// A cost export run: data sources x days as units, bounded concurrency, bounded unit retries,
// a summary whatever happens. A failed unit never stops the others.
import { randomUUID } from 'node:crypto';
import type { CloudforetClient } from './cloudforet-client.ts';
import { type CostUnit, type CostUnitResult, exportCostUnit } from './cost-export.ts';
import { listDataSources, selectDataSources, virtualWorkspaceMap } from './data-sources.ts';
import { daysBetween } from './dates.ts';
import { errorCode, errorMessage, isRetryable } from './errors.ts';
import { type Logger, silentLogger } from './log.ts';
import { forEachLimit } from './pool.ts';
import type { Sink } from './sink.ts';

export interface CostRunRequest {
  readonly from: string;
  readonly to: string;
  readonly dataSourceIds?: readonly string[];
}

export interface RunProgress {
  readonly unitsDone: number;
  readonly unitsTotal: number;
  readonly rows: number;
  readonly elapsedMs: number;
}

export interface CostRunDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly concurrency?: number;
  /** Attempts per unit for retryable failures (drift, transient API errors). */
  readonly unitAttempts?: number;
  readonly runId?: string;
  readonly log?: Logger;
  readonly now?: () => Date;
  readonly rowGroupRows?: number;
  readonly onProgress?: (progress: RunProgress) => void;
}

export interface UnitFailure {
  readonly dataSourceId: string;
  readonly date: string;
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
}

export interface CostRunSummary {
  readonly runId: string;
  readonly table: 'costs';
  readonly destination: string;
  readonly from: string;
  readonly to: string;
  readonly dataSources: number;
  readonly units: number;
  readonly written: number;
  readonly removed: number;
  readonly failed: number;
  readonly rows: number;
  readonly bytes: number;
  readonly unitRetries: number;
  readonly requestRetries: number;
  readonly durationMs: number;
  readonly failures: readonly UnitFailure[];
}

export async function runCostExport(deps: CostRunDeps, req: CostRunRequest): Promise<CostRunSummary> {
  const started = Date.now();
  const runId = deps.runId ?? randomUUID();
  const log = (deps.log ?? silentLogger).child({ runId });
  const dataSources = selectDataSources(await listDataSources(deps.client), req.dataSourceIds);
  const workspaceOfVirtual = await virtualWorkspaceMap(deps.client);
  const units: CostUnit[] = dataSources.flatMap((dataSource) =>
    daysBetween(req.from, req.to).map((date) => ({ dataSource, date })),
  );
  const unitDeps = { ...deps, runId, workspaceOfVirtual, log };
  const results: CostUnitResult[] = [];
  const failures: UnitFailure[] = [];
  let unitRetries = 0;
  let rows = 0;
  await forEachLimit(units, deps.concurrency ?? 4, async (unit) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await exportCostUnit(unitDeps, unit);
        results.push(result);
        rows += result.rows;
        break;
      } catch (error) {
        if (isRetryable(error) && attempt < (deps.unitAttempts ?? 3)) {
          unitRetries++;
          log.warn('cost unit retried', {
            dataSourceId: unit.dataSource.id,
            billedDate: unit.date,
            attempt,
            error,
          });
          continue;
        }
        failures.push(failureOf(unit, error, attempt));
        log.error('cost unit failed', {
          dataSourceId: unit.dataSource.id,
          billedDate: unit.date,
          attempt,
          error,
        });
        break;
      }
    }
    const unitsDone = results.length + failures.length;
    deps.onProgress?.({ unitsDone, unitsTotal: units.length, rows, elapsedMs: Date.now() - started });
  });
  const summary: CostRunSummary = {
    runId,
    table: 'costs',
    destination: deps.sink.location,
    from: req.from,
    to: req.to,
    dataSources: dataSources.length,
    units: units.length,
    written: results.filter((r) => r.outcome === 'written').length,
    removed: results.filter((r) => r.outcome === 'removed').length,
    failed: failures.length,
    rows,
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    unitRetries,
    requestRetries: deps.client.retries,
    durationMs: Date.now() - started,
    failures: failures.sort(
      (a, b) => a.date.localeCompare(b.date) || a.dataSourceId.localeCompare(b.dataSourceId),
    ),
  };
  log.info('cost export finished', { ...summary, failures: summary.failures.slice(0, 20) });
  return summary;
}

function failureOf(unit: CostUnit, error: unknown, attempts: number): UnitFailure {
  return {
    dataSourceId: unit.dataSource.id,
    date: unit.date,
    code: errorCode(error),
    message: errorMessage(error),
    attempts,
  };
}
