// Absence is never evidence: an analyze page, a listing, a job list or a state file that is
// missing, short or empty is "not known", never "none" (issue 45). A gateway answering `{}` for
// the second page of a month's cost/analyze must not end the month there, and a run that could
// not read what it archives must not exit 0.
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { analyzePages } from '../../../functions/lib/cloudforet/analyze-pages.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { analyzeBody, analyzeMonth } from '../../../functions/lib/costs/sources/source-state.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { budgetUsageAnalyze } from '../../../functions/lib/tables/budgets.ts';
import { type HostileGateway, startHostileGateway } from '../../../harness/hostile-gateway.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthEnd } from '../../support/months.ts';
import { changedFiles, snapshotDir } from '../../support/unit-invariants.ts';

const MONTH = monthBack(1);
const FROM = `${MONTH}-01`;
const TO = monthEnd(1);
const LAST_DAY = Number(TO.slice(8, 10));
/** The month's last 8 days: on later analyze pages of the month, none on the first (checked below). */
const LAST_8 = Array.from({ length: 8 }, (_, i) => `${MONTH}-${String(LAST_DAY - 7 + i).padStart(2, '0')}`);

type Query = { page?: { start?: number }; filter?: Array<{ k?: string; v?: unknown; o?: string }> };
const queryOf = (body: Record<string, unknown> | undefined) => (body?.query ?? {}) as Query;
const laterAnalyzePage = (path: string, body: Record<string, unknown> | undefined) =>
  path === '/cost-analysis/cost/analyze' && (queryOf(body).page?.start ?? 1) > 1;
const listsOneOf = (days: readonly string[], path: string, body: Record<string, unknown> | undefined) =>
  path === '/cost-analysis/cost/list' &&
  (queryOf(body).filter ?? []).some(
    (f) => f.k === 'billed_date' && f.o === 'eq' && days.includes(String(f.v)),
  );

describe('a month whose cost/analyze answer spans pages', () => {
  let sim: Simulator;
  let gateway: HostileGateway;
  let dir: string;
  let secretFile: string;
  const dispatcher = new Agent({ connect: { timeout: 2_000 } });

  beforeAll(async () => {
    // 40 workspaces, 200 rows a day: about 100 (day, attribution) groups a day, 3 pages a month.
    sim = await startSimulator({
      seed: 45,
      dataSources: 1,
      workspaces: 40,
      from: FROM,
      to: TO,
      rowsPerDay: 200,
    });
    gateway = await startHostileGateway(sim.url);
    ({ dir, secretFile } = await appFolder('absence', sim.issueToken()));
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await sim?.close();
    await dispatcher.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => gateway.intercept(undefined));

  async function costs(out: string, from: string, to: string, ...extra: string[]) {
    const io = fakeIo();
    const argv = ['costs', '--endpoint', gateway.url, '--secret-file', secretFile, '--out', out, '--json'];
    const code = await main([...argv, '--from', from, '--to', to, ...extra], {}, io);
    return { code, summary: io.out() ? JSON.parse(io.out()) : undefined, err: io.err() };
  }
  const restatements = async (out: string) => {
    const folder = join(out, 'ledger', 'cost_restatements');
    const files = (await readdir(folder, { recursive: true }).catch(() => [])).filter((f) =>
      String(f).endsWith('.json'),
    );
    return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(folder, String(f)), 'utf8'))));
  };
  const quickClient = () =>
    new CloudforetClient({
      endpoint: gateway.url,
      token: sim.issueToken(),
      dispatcher,
      sleep: async () => {},
    });
  const dayFiles = (p: string) => p.startsWith('costs/') || p.startsWith('_manifests/costs/');

  it('has its last 8 days on later pages of the month, none of them on the first', async () => {
    const client = quickClient();
    const ds = sim.dataSourceIds()[0]!;
    const pages: Array<Array<{ date: string }>> = [];
    for (
      let start = 1;
      pages.at(-1)?.length !== 0 && (pages.at(-1)?.length ?? 1000) === 1000;
      start += 1000
    ) {
      const answer = await client.call<{ results?: Array<{ date: string }> }>(
        '/cost-analysis/cost/analyze',
        analyzeBody(ds, MONTH, start),
      );
      pages.push(answer.results ?? []);
    }
    const dates = (rows: Array<{ date: string }>) => new Set(rows.map((r) => r.date.slice(0, 10)));
    expect(pages.length).toBeGreaterThan(1);
    expect(LAST_8.filter((d) => dates(pages[0]!).has(d))).toEqual([]);
    expect(LAST_8.filter((d) => dates(pages.slice(1).flat()).has(d))).toEqual(LAST_8);
  });

  it('a month read whole is complete; {} for its first page is not known; a short page that says more is no answer', async () => {
    const client = quickClient();
    const ds = sim.dataSourceIds()[0]!;
    const whole = await analyzeMonth(client, ds, MONTH);
    expect(whole.complete).toBe(true);
    expect([...whole.days.keys()]).toHaveLength(LAST_DAY);
    expect([...whole.days.values()].reduce((n, d) => n + d.rows, 0)).toBe(
      Array.from(whole.days.keys()).reduce((n, date) => n + sim.costTruth(ds, date).rows, 0),
    );

    gateway.intercept(({ path }) => (path === '/cost-analysis/cost/analyze' ? '{}' : undefined));
    expect(await analyzeMonth(client, ds, MONTH)).toMatchObject({ complete: false });

    const few = JSON.stringify({ results: [{ date: FROM, row_count: 3, cost_sum: 1 }], more: true });
    gateway.intercept(({ path }) => (path === '/cost-analysis/cost/analyze' ? few : undefined));
    const short = await analyzeMonth(client, ds, MONTH).catch((e: unknown) => e);
    expect(short).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect((short as Error).message).toContain('1 groups from 1 (a page is 1000) and "more": true');

    const counted = JSON.stringify({
      results: [{ date: FROM, row_count: 3, cost_sum: 1 }],
      total_count: 1500,
    });
    gateway.intercept(({ path }) => (path === '/cost-analysis/cost/analyze' ? counted : undefined));
    expect(await analyzeMonth(client, ds, MONTH).catch((e: unknown) => e)).toMatchObject({
      code: 'CLOUDFORET_NOT_AN_ANSWER',
    });
  });

  it('an analyze listing (budget usage) answered {} after a page that said more fails, never ends short', async () => {
    const client = quickClient();
    const usage = { ...budgetUsageAnalyze, pageLimit: 2 };
    const all: unknown[] = [];
    for await (const page of analyzePages(client, usage)) all.push(...page);
    expect(all.length).toBeGreaterThan(2);
    gateway.intercept(({ path, body }) =>
      path === usage.path && (queryOf(body).page?.start ?? 1) > 1 ? '{}' : undefined,
    );

    const rows: unknown[] = [];
    const failure = await (async () => {
      for await (const page of analyzePages(client, usage)) rows.push(...page);
    })().catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect((failure as Error).message).toContain('no "results" for the rows from 3');
    expect(rows).toHaveLength(2);
  });

  it('{} for a later analyze page and cost/list of 8 days removes nothing and fails the run', async () => {
    const out = join(dir, 'later-page-empty');
    expect((await costs(out, FROM, TO)).code).toBe(0);
    const before = await snapshotDir(out);
    expect([...before.keys()].filter((k) => k.startsWith('costs/'))).toHaveLength(LAST_DAY);
    gateway.intercept(({ path, body }) =>
      laterAnalyzePage(path, body) || listsOneOf(LAST_8, path, body) ? '{}' : undefined,
    );

    const run = await costs(out, LAST_8[0]!, TO);

    expect(gateway.intercepted.some((r) => laterAnalyzePage(r.path, r.body))).toBe(true);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('CLOUDFORET_NOT_AN_ANSWER');
    expect(changedFiles(before, await snapshotDir(out)).filter(dayFiles)).toEqual([]);
    expect((await restatements(out)).filter((l) => l.outcome === 'removed')).toEqual([]);
  });

  it('{} for a later analyze page asked at removal time proves no day empty', async () => {
    const out = join(dir, 'removal-time');
    expect((await costs(out, FROM, TO)).code).toBe(0);
    const before = await snapshotDir(out);
    // Planning is answered well; once the days are listed (answered {}), analyze's later pages are {}.
    let listed = false;
    gateway.intercept(({ path, body }) => {
      if (listsOneOf(LAST_8, path, body)) {
        listed = true;
        return '{}';
      }
      return listed && laterAnalyzePage(path, body) ? '{}' : undefined;
    });

    // In process, with retries that do not wait: every unit retries its no-answers and fails.
    const summary = await runCostExport(
      { client: quickClient(), sink: dirSink(out), unifiedCosts: false, focus: false },
      { from: LAST_8[0]!, to: TO, force: true },
    );

    expect(gateway.intercepted.some((r) => laterAnalyzePage(r.path, r.body))).toBe(true);
    expect(summary).toMatchObject({ removed: 0, failed: LAST_8.length });
    expect(new Set(summary.failures.map((f) => f.code))).toEqual(new Set(['CLOUDFORET_NOT_AN_ANSWER']));
    expect(changedFiles(before, await snapshotDir(out)).filter(dayFiles)).toEqual([]);
    expect((await restatements(out)).filter((l) => l.outcome === 'removed')).toEqual([]);
  });
});

describe('DONE cost reports whose data rows answer {}', () => {
  const M = monthBack(1);
  let sim: Simulator;
  let dir: string;
  let secretFile: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 46, dataSources: 2, from: `${M}-01`, to: monthEnd(1), rowsPerDay: 6 });
    ({ dir, secretFile } = await appFolder('absence-reports', sim.issueToken()));
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function costReports(out: string, json: boolean) {
    const io = fakeIo();
    const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out];
    const code = await main(
      [...argv, '--date', `${M}-01`, '--cost-reports', ...(json ? ['--json'] : [])],
      {},
      io,
    );
    return { code, out: io.out(), err: io.err() };
  }

  it('fail the run, naming the reports, and are archived by the next run that is answered', async () => {
    const done = sim.runCostReportJob(M, 'DONE') as Array<Record<string, unknown>>;
    const ids = done.map((r) => String(r.cost_report_id)).sort();
    expect(ids.length).toBeGreaterThan(0);
    const out = join(dir, 'reports');
    sim.injectFault({
      path: '/cost-analysis/cost-report-data/list',
      kind: 'empty',
      times: Number.POSITIVE_INFINITY,
    });

    const unanswered = await costReports(out, true);
    const lines = await costReports(join(dir, 'reports-lines'), false);
    sim.clearFaults();

    expect(unanswered.code).toBe(1);
    const summary = JSON.parse(unanswered.out);
    expect(summary.failed).toBe(ids.length);
    expect([...summary.costReports.dataUnanswered].sort()).toEqual(ids);
    expect(summary.costReports.archived).toEqual([]);
    expect(lines.code).toBe(1);
    for (const id of ids) expect(lines.out).toContain(id);
    expect(lines.out).toContain('[COST_REPORT_DATA_UNANSWERED]');

    const answered = await costReports(out, true);
    expect(answered.code).toBe(0);
    expect([...JSON.parse(answered.out).costReports.archived].sort()).toEqual(ids);
  });

  it("take today's adjustments snapshot again when its object was cut in half", async () => {
    const out = join(dir, 'adjustments');
    const first = await costReports(out, true);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out).costReports.adjustments).toBe('written');
    const day = new Date().toISOString().slice(0, 10);
    const object = join(out, 'report_adjustments', `snapshot_date=${day}`, 'domain.parquet');
    const manifest = join(out, '_manifests', 'report_adjustments', `snapshot_date=${day}`, 'domain.json');
    const whole = await readFile(object);
    await truncate(object, Math.floor(whole.length / 2));

    const next = await costReports(out, true);

    expect(next.code).toBe(0);
    expect(JSON.parse(next.out).costReports.adjustments).toBe('written');
    const taken = await readFile(object);
    expect(taken.length).toBe(whole.length);
    expect(createHash('sha256').update(taken).digest('hex')).toBe(
      JSON.parse(await readFile(manifest, 'utf8')).sha256,
    );
    // Whole again, the same listing is no change.
    expect(JSON.parse((await costReports(out, true)).out).costReports.adjustments).toBe('unchanged');
  });
});
