// Every Cloudforet failure the simulator can inject, crossed with the promise of a run: each unit
// publishes exactly the source's rows, or fails loudly and leaves the previous object and manifest
// byte for byte as they were. Seeded and sequential (concurrency 1), so each fault lands where named.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { type CostRunSummary, runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { createLogger } from '../../../functions/lib/log.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { captureLogs, expectNoSecret } from '../../support/log-capture.ts';
import { monthBack } from '../../support/months.ts';
import { changedFiles, expectEachUnitExactOrUntouched, snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_1 = monthBack(1);

const FIRST_DAY = `${MONTH_1}-01`;
const COST_LIST = '/cost-analysis/cost/list';
/** Request attempts per call and unit attempts per unit: a fault outlasting both fails a unit. */
const ATTEMPTS = 3;
const UNIT_ATTEMPTS = 3;
const dispatcher = new Agent({ connect: { timeout: 2_000 } });

interface FaultCase {
  readonly fault: string;
  /** Injected after the baseline run and a restatement, right before the run under test. */
  readonly inject: (sim: Simulator, ds: readonly string[], date: string) => void;
  /** Units that must fail, with their code; every other unit must publish the source exactly. */
  readonly failures: ReadonlyArray<{ unit: 0 | 1; code: string }>;
  /** The run itself must throw this code (a failure before any unit); nothing may change. */
  readonly runFails?: string;
  readonly recovery: 'request retry' | 'unit retry' | 'fails loudly';
  /** The client's header and body timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** Time for an answer the client gave up on to reach the server's log before the next case. */
  readonly settleMs?: number;
}

const transient = (kind: '503' | '500' | '504' | 'reset' | 'badjson' | 'truncated' | '429'): FaultCase => ({
  fault: kind,
  inject: (sim) => sim.injectFault({ path: COST_LIST, kind, afterRequests: 1 }),
  failures: [],
  recovery: 'request retry',
});

const cases: FaultCase[] = [
  { ...transient('503'), fault: '503 ERROR_GRPC_CONNECTION on the second page' },
  { ...transient('500'), fault: '500 ERROR_DB_QUERY on the second page' },
  { ...transient('504'), fault: '504 HTML gateway time-out on the second page' },
  { ...transient('reset'), fault: 'connection reset on the second page' },
  {
    fault: 'an answer slower than the timeout on the second page',
    inject: (sim) => sim.injectFault({ path: COST_LIST, kind: 'slow', delayMs: 1_500, afterRequests: 1 }),
    failures: [],
    recovery: 'request retry',
    timeoutMs: 500,
    settleMs: 1_500,
  },
  { ...transient('badjson'), fault: '200 with an HTML page instead of JSON on the second page' },
  { ...transient('truncated'), fault: '200 with JSON cut in half on the second page' },
  { ...transient('429'), fault: '429 with Retry-After from a proxy on the second page' },
  {
    fault: '{} in the middle of paging',
    inject: (sim) => sim.injectFault({ path: COST_LIST, kind: 'empty', afterRequests: 1 }),
    failures: [],
    recovery: 'unit retry',
  },
  {
    fault: '{} on the first page of a day that has rows',
    inject: (sim) => sim.injectFault({ path: COST_LIST, kind: 'empty' }),
    failures: [],
    recovery: 'unit retry',
  },
  {
    fault: 're-sync mid-paging that changes total_count and ids',
    inject: (sim, ds, date) =>
      sim.resyncDuringPaging({ afterRequests: 1, dataSourceId: ds[0]!, date, change: { rowDelta: 7 } }),
    failures: [],
    recovery: 'unit retry',
  },
  {
    fault: 're-sync mid-paging that keeps total_count but changes every id',
    inject: (sim, ds, date) => sim.resyncDuringPaging({ afterRequests: 1, dataSourceId: ds[0]!, date }),
    failures: [],
    recovery: 'unit retry',
  },
  {
    fault: 're-sync mid-paging that empties the day',
    inject: (sim, ds, date) =>
      sim.resyncDuringPaging({
        afterRequests: 1,
        dataSourceId: ds[0]!,
        date,
        change: { rowDelta: -1_000_000 },
      }),
    failures: [],
    recovery: 'unit retry',
  },
  {
    fault: 're-sync on every attempt of a unit',
    inject: (sim, ds, date) => {
      // A day is paged in two cost_id ranges at once (export-day.ts COST_ID_SPLIT): an attempt asks
      // twice as many pages, so the re-syncs come twice as often to land in every attempt.
      for (const afterRequests of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
        sim.resyncDuringPaging({ afterRequests, dataSourceId: ds[0]!, date, change: { rowDelta: 1 } });
    },
    failures: [{ unit: 0, code: 'PAGING_DRIFT' }],
    recovery: 'fails loudly',
  },
  {
    fault: '401 in the middle of a run',
    inject: (sim) => sim.injectFault({ path: COST_LIST, kind: '401', afterRequests: 1 }),
    failures: [{ unit: 0, code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE' }],
    recovery: 'fails loudly',
  },
  {
    fault: '401 for the rest of the run (secret revoked mid-run)',
    inject: (sim) => sim.injectFault({ path: COST_LIST, kind: '401', afterRequests: 1, times: 2 }),
    failures: [
      { unit: 0, code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE' },
      { unit: 1, code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE' },
    ],
    recovery: 'fails loudly',
  },
  {
    fault: '503 that outlasts every request and unit retry',
    inject: (sim) =>
      // Both cost_id ranges of the day take their share of the 503s: twice as many outlast every retry.
      sim.injectFault({
        path: COST_LIST,
        kind: '503',
        afterRequests: 1,
        times: 2 * ATTEMPTS * UNIT_ATTEMPTS,
      }),
    failures: [{ unit: 0, code: 'CLOUDFORET_ERROR_GRPC_CONNECTION' }],
    recovery: 'fails loudly',
  },
  {
    fault: '503 on data-source/list that outlasts every retry',
    inject: (sim) =>
      sim.injectFault({ path: '/cost-analysis/data-source/list', kind: '503', times: ATTEMPTS }),
    failures: [],
    runFails: 'CLOUDFORET_ERROR_GRPC_CONNECTION',
    recovery: 'fails loudly',
  },
  {
    fault: '401 on the first request of a run',
    inject: (sim) => sim.injectFault({ kind: '401' }),
    failures: [],
    runFails: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE',
    recovery: 'fails loudly',
  },
];

describe('fault matrix: Cloudforet faults x exact-or-untouched', () => {
  let sim: Simulator;
  let token: string;
  let dataSources: string[];
  /** One export for all cases: each case has a day of its own. */
  let dir: string;
  const logs = captureLogs();
  const texts: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 21,
      dataSources: 2,
      from: FIRST_DAY,
      to: addDays(FIRST_DAY, cases.length - 1),
      rowsPerDay: 1_200,
      exactRowsPerDay: true,
    });
    token = sim.issueToken();
    dataSources = sim.dataSourceIds();
    dir = await mkdtemp(join(tmpdir(), 'fault-matrix-'));
    const baseline = await run(
      { from: FIRST_DAY, to: addDays(FIRST_DAY, cases.length - 1) },
      { concurrency: 4 },
    );
    expect(baseline).toMatchObject({ failed: 0, written: 2 * cases.length });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (
    range: { from: string; to: string },
    { concurrency = 1, timeoutMs = 10_000 } = {},
  ): Promise<CostRunSummary> => {
    const log = createLogger({ level: 'debug', write: logs.write });
    const client = new CloudforetClient({
      endpoint: sim.url,
      token,
      dispatcher,
      credentialSource: "secret 'cloudforet/app'",
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
      retry: { attempts: ATTEMPTS },
      sleep: async () => {},
      log,
    });
    return runCostExport(
      { client, sink: dirSink(dir), concurrency, unitAttempts: UNIT_ATTEMPTS, log },
      { ...range, force: true },
    );
  };

  it.each(cases.map((c, i) => ({ ...c, date: addDays(FIRST_DAY, i) })))('$fault: $recovery', async (c) => {
    for (const ds of dataSources) sim.resync(ds, c.date, { costFactor: 1.5 });
    const before = await snapshotDir(dir);
    c.inject(sim, dataSources, c.date);

    const outcome = await run({ from: c.date, to: c.date }, c).catch((error: Error) => error);
    if (c.settleMs) await new Promise((resolve) => setTimeout(resolve, c.settleMs));

    texts.push(JSON.stringify(outcome), String((outcome as Error).message));
    if (c.runFails) {
      expect(outcome).toMatchObject({ code: c.runFails });
      expect(changedFiles(before, await snapshotDir(dir))).toEqual([]);
      return;
    }
    const summary = outcome as CostRunSummary;
    expect(
      summary.failures.map((f) => ({ unit: dataSources.indexOf(f.dataSourceId), code: f.code })),
    ).toEqual(c.failures);
    const verdicts = await expectEachUnitExactOrUntouched({
      sim,
      dir,
      before,
      summary,
      units: dataSources.map((dataSourceId) => ({ dataSourceId, date: c.date })),
    });
    expect(verdicts.filter((v) => v.outcome === 'failed-untouched')).toHaveLength(c.failures.length);
    if (c.recovery === 'request retry') expect(summary.requestRetries).toBeGreaterThan(0);
    if (c.recovery === 'unit retry') expect(summary.unitRetries).toBeGreaterThan(0);
    for (const f of summary.failures) expect(f.message.length).toBeGreaterThan(20);
  });

  it('never lets the token into a log line, a summary or an error', () => {
    expect(logs.lines.length).toBeGreaterThan(50);
    expectNoSecret([...logs.lines, ...texts], token);
  });
});
