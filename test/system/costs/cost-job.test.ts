// One cost job on every path (issue 46): the same simulated world exported by the CLI, by the
// cost-export Lambda with {} and by the scheduled state machine (its handlers chained as its
// definition chains them, test/support/state-machine.ts) must leave the same tables, object for
// object; then a second day with each case where the paths once parted (a restatement outside the
// window, a damaged manifest, a stuck sync job under STALE_JOB_HOURS, a deadline in the Finish
// state) compared again. The step list itself is held to its one declaration.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../cli/main.ts';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { COST_JOB_STEPS } from '../../../functions/lib/costs/job/states.ts';
import { COST_JOB } from '../../../functions/lib/costs/job/steps.ts';
import type { CostRunSummary } from '../../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { type Execution, runStateMachine } from '../../../tools/state-machine.ts';
import { downloadPrefix } from '../../support/export-reader.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

const NOW = new Date();
const FROM = monthsBack(2, NOW);
const YESTERDAY = addDays(utcDay(NOW), -1);
/** A day of the month before last: outside the default window (this month and the last). */
const OUTSIDE = `${FROM.slice(0, 7)}-20`;
const MANY_DAYS = { MAX_INLINE_DAYS: '120' };

let local: LocalAws;
let dir: string;
let secretFile: string;
let cliOut: string;

beforeAll(async () => {
  local = await startLocalAws({
    seed: 46,
    dataSources: 2,
    workspaces: 2,
    from: FROM,
    to: YESTERDAY,
    rowsPerDay: 4,
  });
  local.simulator.runCostReportJob(FROM.slice(0, 7), 'DONE');
  ({ dir, secretFile } = await appFolder('cost-job', local.token));
  cliOut = join(dir, 'cli');
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await local?.stop();
  await rm(dir, { recursive: true, force: true });
});

const ctx = (id: string) => ({ awsRequestId: id }) as Context;

async function cli(args: string[]): Promise<{ code: number; summary: CostRunSummary }> {
  const io = fakeIo();
  const code = await main(
    [
      'costs',
      '--endpoint',
      local.simulator.url,
      '--secret-file',
      secretFile,
      '--out',
      cliOut,
      '--json',
      ...args,
    ],
    {},
    io,
  );
  return { code, summary: JSON.parse(io.out()) as CostRunSummary };
}

async function inline(event: object, env: Record<string, string> = {}): Promise<CostRunSummary> {
  const restore = local.applyEnv({ LOG_LEVEL: 'error', EXPORT_PREFIX: 'inline', ...MANY_DAYS, ...env });
  try {
    return await costExport(event, ctx(`inline-${Date.now()}`));
  } finally {
    restore();
  }
}

async function scheduled(
  event: object,
  env: Record<string, string> = {},
  context?: (id: string) => Context,
): Promise<Execution> {
  const restore = local.applyEnv({ LOG_LEVEL: 'error', EXPORT_PREFIX: 'sched', ...env });
  try {
    return await runStateMachine(local.s3.client, event, { runId: `sched-${Date.now()}`, context });
  } finally {
    restore();
  }
}

/**
 * Bookkeeping that names a run, a time or a path, not what the tables hold; and the cost-report
 * status facts, named by the time they were taken.
 */
const RUN_SPECIFIC =
  /^(_runs\/|_tmp\/|ledger\/(export_units|cost_restatements|revisions)\/|_ledger-rollup\/|_destination|_claim|_manifests\/cost-jobs\/|_alerts\/|(_manifests\/)?cost_report_status\/|ledger\/export_units_latest\/table_name=cost_report_status\/)/;

/**
 * Every object of a destination but the run-specific ones: each unit's manifest by what it
 * publishes (its object, rows, cost, why it shrank or went, whether its month is confirmed), each
 * data object by its presence. Not by bytes: two exports of the same rows differ in their Parquet
 * bytes (run-specific metadata), so a manifest's SHA-256 names its own object, not the rows.
 */
async function tables(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const revisions = new Map<string, number>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const key = join(entry.parentPath, entry.name).slice(root.length + 1);
    if (RUN_SPECIFIC.test(key)) continue;
    // A kept revision is named by its bytes (run-specific): counted per unit instead.
    const revision = /^(_damaged\/)?[a-z_]+_revisions\/.*(~[0-9a-f]{16})\.parquet$/.exec(key);
    if (revision) {
      const unit = key.slice(0, -`${revision[2]}.parquet`.length);
      revisions.set(unit, (revisions.get(unit) ?? 0) + 1);
      continue;
    }
    const body = await readFile(join(root, key));
    if (key.endsWith('.json') && key.startsWith('_manifests/')) {
      const m = JSON.parse(body.toString()) as Record<string, unknown>;
      const cost = typeof m.costSum === 'number' ? Number(m.costSum.toPrecision(10)) : null;
      out.set(key, JSON.stringify([m.key, m.rows, cost, m.removedBecause ?? null, m.isConfirmed ?? null]));
    } else out.set(key, 'present');
  }
  // A unified-cost month is exported again by every run, so its revisions count the runs.
  for (const [unit, n] of revisions)
    out.set(`${unit}~*.parquet`, unit.includes('unified_costs_revisions/') ? 'kept' : `${n} revision(s)`);
  return out;
}

async function s3Tables(prefix: string): Promise<Map<string, string>> {
  const { dir: copy } = await downloadPrefix(local.s3.client, BUCKET, `${prefix}/`);
  try {
    return await tables(copy);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

async function expectSameTables(): Promise<number> {
  const [c, i, s] = await Promise.all([tables(cliOut), s3Tables('inline'), s3Tables('sched')]);
  const diff = (a: Map<string, string>, b: Map<string, string>) =>
    [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
  expect(diff(c, i), 'CLI vs the cost-export Lambda').toEqual([]);
  expect(diff(i, s), 'the cost-export Lambda vs the state machine').toEqual([]);
  return c.size;
}

/** A daily run on every path: each exits clean and says it repaired at least one unit. */
async function expectRepairedOnEveryPath(): Promise<void> {
  const c = await cli([]);
  const i = await inline({});
  const s = await scheduled({});
  expect(c.code).toBe(0);
  expect(i.failed).toBe(0);
  expect(s.failed, JSON.stringify(s.result).slice(0, 2000)).toBe(false);
  for (const x of [c.summary, i, s.result as CostRunSummary]) expect(x.repaired).toBeGreaterThanOrEqual(1);
}

describe('the cost job, declared once', () => {
  it('implements exactly the declared steps, in their order, the summary last', () => {
    expect([...COST_JOB.map((s) => s.name), 'summary']).toEqual([...COST_JOB_STEPS]);
  });
});

describe('one cost job on every path', () => {
  it('leaves the same tables after a first export and a daily run, on the CLI, the Lambda and the state machine', async () => {
    const range = { from: FROM, to: YESTERDAY };
    const first = await cli(['--from', FROM, '--to', YESTERDAY, '--cost-reports']);
    expect(first.code).toBe(0);
    await inline({ ...range });
    const sched = await scheduled(range);
    expect(sched.failed, JSON.stringify(sched.result).slice(0, 2000)).toBe(false);
    // Then the daily run ({}), which also follows the job history and archives the cost reports.
    expect((await cli([])).code).toBe(0);
    const daily = await inline({});
    const dailySched = await scheduled({});
    expect(dailySched.failed, JSON.stringify(dailySched.result).slice(0, 2000)).toBe(false);
    expect((dailySched.result as CostRunSummary).jobMarksWritten).toBe(daily.jobMarksWritten);
    const objects = await expectSameTables();
    expect(objects).toBeGreaterThan(200);
    // The ledger is rolled up on the schedule too (freshness_by_data_source reads it).
    const rolled = await downloadPrefix(local.s3.client, BUCKET, 'sched/ledger/export_units_latest/');
    expect(rolled.keys.length).toBeGreaterThan(0);
    await rm(rolled.dir, { recursive: true, force: true });
  }, 300_000);

  it('a restated day of a confirmed month outside the window: every path re-exports its unified costs', async () => {
    const [ds] = local.simulator.dataSourceIds() as [string];
    local.simulator.sync(ds, { start: OUTSIDE.slice(0, 7), changes: { [OUTSIDE]: { costFactor: 1.7 } } });

    const c = await cli([]);
    const i = await inline({});
    const s = await scheduled({});

    const restated = (x: CostRunSummary) => x.unifiedCosts.months.map((m) => m.month);
    expect(c.code).toBe(0);
    expect(restated(i)).toContain(OUTSIDE.slice(0, 7));
    expect(restated(s.result as CostRunSummary)).toEqual(restated(i));
    expect(restated(c.summary)).toEqual(restated(i));
    expect(s.failed).toBe(false);
    await expectSameTables();
  }, 300_000);

  it('a costs manifest whose checksum no longer matches: every path repairs it in the same run', async () => {
    const day = addDays(YESTERDAY, -3);
    const [ds] = local.simulator.dataSourceIds() as [string];
    const key = `_manifests/costs/billed_date=${day}/${ds}.json`;
    const damage = (text: string) => {
      const m = JSON.parse(text) as { sha256: string };
      return JSON.stringify({ ...m, sha256: '0'.repeat(64) });
    };
    await writeFile(join(cliOut, key), damage(await readFile(join(cliOut, key), 'utf8')));
    for (const prefix of ['inline', 'sched']) {
      const Key = `${prefix}/${key}`;
      const got = await local.s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
      const Body = damage(await got.Body!.transformToString());
      await local.s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body }));
    }

    await expectRepairedOnEveryPath();
    await expectSameTables();
  }, 300_000);

  it('a costs object replaced outside the window (wrong size): every path repairs it in the same run', async () => {
    const [ds] = local.simulator.dataSourceIds() as [string];
    const day = `${FROM.slice(0, 7)}-11`;
    const other = `${FROM.slice(0, 7)}-12`;
    const key = (d: string) => `costs/billed_date=${d}/${ds}.parquet`;
    await writeFile(join(cliOut, key(day)), await readFile(join(cliOut, key(other))));
    for (const prefix of ['inline', 'sched']) {
      const got = await local.s3.client.send(
        new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${key(other)}` }),
      );
      const Body = await got.Body!.transformToByteArray();
      await local.s3.client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${key(day)}`, Body }),
      );
    }

    await expectRepairedOnEveryPath();
    const truth = local.simulator.costTruth(ds, day);
    const manifest = JSON.parse(
      await readFile(join(cliOut, `_manifests/costs/billed_date=${day}/${ds}.json`), 'utf8'),
    ) as { rows: number };
    expect(manifest.rows).toBe(truth.rows);
    await expectSameTables();
  }, 300_000);

  it("keeps every state's input a few hundred bytes and the output bounded, whatever the number of failures", async () => {
    local.simulator.injectFault({ path: '/cost-analysis/cost/list', kind: '401', times: 10_000 });
    try {
      const run = await scheduled({ from: FROM, to: YESTERDAY, force: true });
      expect(run.failed).toBe(true);
      const units = run.items.length;
      expect(units).toBeGreaterThan(100);
      for (const state of run.states.filter((x) => x.state !== 'ExportUnits'))
        expect(JSON.stringify(state.input).length, state.state).toBeLessThan(1_000);
      // The Summary's failure names the first few and counts them all.
      expect(String((run.result as Error).message)).toContain(`${units} failed`);
      expect(String((run.result as Error).message).length).toBeLessThan(5_000);
    } finally {
      local.simulator.clearFaults();
    }
  }, 300_000);

  it('a sync job stuck past STALE_JOB_HOURS: the schedule reads the setting as the inline run does', async () => {
    const [, ds] = local.simulator.dataSourceIds() as [string, string];
    local.simulator.setJobInProgress(ds, true, { startedAgoMs: 2 * 3_600_000 });
    try {
      const i = await inline({}, { STALE_JOB_HOURS: '1' });
      const s = (await scheduled({}, { STALE_JOB_HOURS: '1' })).result as CostRunSummary;
      expect(i.skippedSyncInProgress).toEqual([]);
      expect(s.skippedSyncInProgress).toEqual([]);
      expect(s.staleJobs.map((j) => j.dataSourceId)).toEqual([ds]);
      expect(i.staleJobs.map((j) => j.dataSourceId)).toEqual([ds]);
    } finally {
      local.simulator.setJobInProgress(ds, false);
    }
  }, 300_000);

  it('a deadline in the Finish state fails the execution loudly, and the next execution finishes the work', async () => {
    const [ds] = local.simulator.dataSourceIds() as [string];
    local.simulator.resync(ds, addDays(YESTERDAY, -1), { rowDelta: 2 });
    // Finish starts with too little time left to start anything: its steps after the units wait.
    const context = (id: string) =>
      ({
        awsRequestId: id,
        getRemainingTimeInMillis: () => (id.endsWith('-Finish') ? 20_000 : 800_000),
      }) as unknown as Context;

    const stopped = await scheduled({}, {}, context);

    expect(stopped.failed).toBe(true);
    expect(String((stopped.result as Error).message)).toMatch(/left for the next run: .*(FOCUS|steps left)/);

    const next = await scheduled({});
    expect(next.failed, JSON.stringify(next.result).slice(0, 2000)).toBe(false);
    await cli([]);
    await inline({});
    await expectSameTables();
  }, 300_000);
});
