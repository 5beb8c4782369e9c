// Cost reports through the cost run against the simulator: two complete months, a PERCENT and a
// FIXED adjustment, drafts replaced until DONE, one month regenerated after its costs changed.
// Every report version is archived with its data rows, equal to the simulator's; a rerun writes
// nothing; the regeneration is found once per changed report; the sent report of a month is one
// query away (DuckDB as the Athena stand-in).
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { runAlerts } from '../../../functions/lib/alerts/run.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { archiveCostReports } from '../../../functions/lib/costs/cost-reports/archive.ts';
import { jobOptions, newJob } from '../../../functions/lib/costs/job/job.ts';
import { runSteps } from '../../../functions/lib/costs/job/steps.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { silentLogger } from '../../../functions/lib/log.ts';
import { runMonthlyStatements } from '../../../functions/lib/statements/monthly.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { athenaOver } from '../../../harness/duckdb-athena.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthEnd } from '../../support/months.ts';

const M1 = monthBack(2);
const M2 = monthBack(1);
type Rec = Record<string, unknown> & { cost: { KRW: number; USD: number; JPY: number } };
const query = (name: string) => loadNamedQueries().find((q) => q.name === name)!.sql;
/** Rows as arrays of the named columns, numbers as numbers. */
const pick = (rows: Record<string, unknown>[], ...columns: string[]) =>
  rows.map((r) => columns.map((c) => (typeof r[c] === 'bigint' ? Number(r[c]) : r[c])));

async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const table of [
    'cost_reports',
    'cost_report_data',
    'cost_report_status',
    'report_adjustments',
    '_manifests',
  ]) {
    const root = join(dir, table);
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath, e.name);
      if (table === '_manifests' && !/cost_report|report_adjustments/.test(path)) continue;
      out.set(
        path,
        createHash('sha256')
          .update(await readFile(path))
          .digest('hex'),
      );
    }
  }
  return out;
}

async function rowsOf(dir: string, table: string, month: string, name: string) {
  const bytes = await readFile(join(dir, table, `report_month=${month}`, `${name}.parquet`));
  return readWithArrow(new Uint8Array(bytes)).rows;
}

describe('cost reports archived from the cost run', () => {
  let sim: Simulator;
  let dir: string;
  let client: CloudforetClient;
  const run = () =>
    runCostExport(
      { client, sink: dirSink(dir), focus: false, unifiedCosts: false, costReports: true },
      { from: `${M2}-01`, to: `${M2}-01` },
    );
  let firstDone: Rec[];
  let regenerated: Rec[];
  let regenSummary: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 23,
      dataSources: 3,
      from: `${M1}-01`,
      to: monthEnd(1),
      rowsPerDay: 10,
    });
    dir = await mkdtemp(join(tmpdir(), 'reports-'));
    client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
    // M1 goes through Cloudforet's lifecycle, each step seen by a run; M2 is made DONE at once.
    sim.runCostReportJob(M1, 'IN_PROGRESS');
    expect((await run()).failed).toBe(0);
    sim.runCostReportJob(M1, 'ADJUSTING');
    expect((await run()).failed).toBe(0);
    firstDone = [...sim.runCostReportJob(M1, 'DONE'), ...sim.runCostReportJob(M2, 'DONE')] as Rec[];
    expect((await run()).failed).toBe(0);
    // A late resync changes M1's costs; Cloudforet's generate_report makes new DONE versions.
    const ds = sim.dataSourceIds()[0] as string;
    sim.resync(ds, `${M1}-05`, { costFactor: 1.5 });
    regenerated = sim.regenerateCostReport(M1) as Rec[];
    regenSummary = await run();
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('archives every DONE and EXPIRED version with its rows, equal to Cloudforet’s', async () => {
    const truth = sim.costReportTruth();
    const finals = truth.reports.filter((r) => r.status === 'DONE' || r.status === 'EXPIRED') as Rec[];
    expect(finals.filter((r) => r.status === 'EXPIRED').length).toBe(regenerated.length);
    expect(finals.length).toBe(firstDone.length + regenerated.length);
    for (const report of finals) {
      const month = String(report.report_month);
      const [row] = await rowsOf(dir, 'cost_reports', month, String(report.cost_report_id));
      // Archived as it was when first seen final: DONE (its expiry is a status fact).
      expect(row).toMatchObject({
        cost_report_id: report.cost_report_id,
        report_number: report.report_number,
        status: 'DONE',
        currency: 'KRW',
        cost: report.cost.KRW,
        cost_usd: report.cost.USD,
        is_adjusted: 'true',
        issue_date: report.issue_date,
      });
      const data = await rowsOf(dir, 'cost_report_data', month, String(report.cost_report_id));
      const expected = truth.data.filter((d) => d.cost_report_id === report.cost_report_id) as Rec[];
      expect(data.map((d) => d.cost_report_data_id).sort()).toEqual(
        expected.map((d) => d.cost_report_data_id).sort(),
      );
      const sum = data.reduce((s, d) => s + Number(d.cost_krw), 0);
      expect(Math.abs(sum - report.cost.KRW)).toBeLessThan(1e-6 * Math.max(1, report.cost.KRW));
      expect(data.filter((d) => d.is_adjusted === 'true').length).toBeGreaterThan(0);
    }
  });

  it('keeps the last draft per workspace and records every status as a fact', async () => {
    const db = await athenaOver(dir);
    const truth = () => sim.costReportTruth() as unknown as { reports: Rec[] };
    try {
      const history = await db.run(
        `SELECT status, count(*) AS n FROM cost_report_status WHERE report_month = '${M1}' GROUP BY status ORDER BY status`,
      );
      const ws = sim.workspaceIds().length;
      // IN_PROGRESS and ADJUSTING drafts seen, then deleted; DONE twice (original, regenerated); EXPIRED once.
      expect(Object.fromEntries(history.map((h) => [h.status, Number(h.n)]))).toEqual({
        ADJUSTING: ws,
        DELETED: 2 * ws,
        DONE: 2 * ws,
        EXPIRED: ws,
        IN_PROGRESS: ws,
      });
      const drafts = await db.run(
        `SELECT status FROM cost_reports WHERE report_month = '${M1}' AND status IN ('IN_PROGRESS', 'ADJUSTING')`,
      );
      expect(drafts.map((d) => d.status)).toEqual(Array(ws).fill('ADJUSTING'));
      // The saved queries (infra/queries/cost_reports_*.sql) over every month; docs/cost-reports.md.
      const standing = await db.run(query('cost_reports_standing'));
      const doneNow = truth()
        .reports.filter((r) => r.status === 'DONE')
        .sort((a, b) =>
          `${b.report_month}${a.workspace_id}`.localeCompare(`${a.report_month}${b.workspace_id}`),
        );
      expect(
        pick(standing, 'report_month', 'workspace_id', 'cost_report_id', 'report_number', 'cost'),
      ).toEqual(
        doneNow.map((r) => [r.report_month, r.workspace_id, r.cost_report_id, r.report_number, r.cost.KRW]),
      );
      expect(
        standing
          .filter((s) => s.report_month === M1)
          .map((s) => s.cost_report_id)
          .sort(),
      ).toEqual(regenerated.map((r) => r.cost_report_id).sort());
      // The report e-mailed is the first DONE version (a regeneration is not sent): M1's EXPIRED ones.
      const emailed = await db.run(query('cost_reports_sent'));
      const firstSorted = [...firstDone].sort((a, b) =>
        `${b.report_month}${a.workspace_id}`.localeCompare(`${a.report_month}${b.workspace_id}`),
      );
      expect(pick(emailed, 'report_month', 'workspace_id', 'cost_report_id', 'cost', 'currency')).toEqual(
        firstSorted.map((r) => [r.report_month, r.workspace_id, r.cost_report_id, r.cost.KRW, 'KRW']),
      );
      expect(emailed.filter((e) => e.report_month === M1).every((e) => e.is_adjusted === 'true')).toBe(true);
      // Regenerated with another total: before and after, from the archive alone.
      const moved = await db.run(query('cost_reports_regenerated'));
      const expected = regenerated
        .map((after) => {
          const before = firstDone.find(
            (f) => f.report_month === M1 && f.workspace_id === after.workspace_id,
          ) as Rec;
          return [
            M1,
            after.workspace_id,
            before.cost_report_id,
            before.cost.KRW,
            after.cost_report_id,
            after.cost.KRW,
          ];
        })
        .filter((e) => Math.abs(Number(e[5]) - Number(e[3])) > 0.01)
        .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
      expect(expected.length).toBeGreaterThan(0);
      expect(
        pick(
          moved,
          'report_month',
          'workspace_id',
          'before_cost_report_id',
          'before_cost',
          'after_cost_report_id',
          'after_cost',
        ),
      ).toEqual(expected);
      for (const m of moved)
        expect(Number(m.cost_change)).toBeCloseTo(Number(m.after_cost) - Number(m.before_cost), 6);
      // docs/cost-reports.md's second query: every archived version beside the sum of its rows.
      const versions = await db.run(`
        SELECT r.cost_report_id, r.report_number, r.created_at, r.cost, sum(d.cost_krw) AS rows_krw
        FROM cost_reports r JOIN cost_report_data d
          ON d.report_month = r.report_month AND d.cost_report_id = r.cost_report_id
        WHERE r.report_month = '${M1}' AND r.status IN ('DONE', 'EXPIRED')
        GROUP BY 1, 2, 3, 4 ORDER BY r.created_at`);
      expect(versions.length).toBe(2 * ws);
      for (const v of versions)
        expect(Math.abs(Number(v.rows_krw) - Number(v.cost))).toBeLessThan(1e-6 * Number(v.cost));
    } finally {
      db.close();
    }
  });

  it('finds each regenerated report whose total changed, once', async () => {
    const truth = sim.costReportTruth();
    const changed = regenerated.filter((r) => {
      const old = truth.reports.find(
        (o) => o.status === 'EXPIRED' && o.workspace_id === r.workspace_id && o.report_month === M1,
      ) as Rec;
      return Math.abs(old.cost.KRW - r.cost.KRW) > 0.01;
    });
    expect(changed.length).toBeGreaterThan(0);
    const summary = regenSummary.costReports as unknown as {
      regenerated: Array<{ after: { costReportId: string } }>;
    };
    expect(summary.regenerated.map((g) => g.after.costReportId).sort()).toEqual(
      changed.map((r) => r.cost_report_id).sort(),
    );
  });

  it('snapshots the adjustments with their policies (domain app)', async () => {
    const truth = sim.costReportTruth();
    const day = new Date().toISOString().slice(0, 10);
    const bytes = await readFile(join(dir, 'report_adjustments', `snapshot_date=${day}`, 'domain.parquet'));
    const rows = readWithArrow(new Uint8Array(bytes)).rows;
    expect(rows.map((r) => [r.report_adjustment_id, r.unit, r.value, r.provider]).sort()).toEqual(
      truth.adjustments.map((a) => [a.report_adjustment_id, a.unit, a.value, a.provider]).sort(),
    );
    for (const row of rows) {
      const policy = truth.policies.find(
        (p) => p.report_adjustment_policy_id === row.report_adjustment_policy_id,
      );
      expect(row.policy_scope).toBe(policy?.scope);
      expect(Number(row.policy_order)).toBe(policy?.order);
      expect(JSON.parse(String(row.policy_filter))).toEqual(policy?.policy_filter);
    }
  });

  it('a rerun writes nothing', async () => {
    const before = await files(dir);
    const again = await archiveCostReports({
      client,
      sink: dirSink(dir),
      runId: 'rerun-0000',
      log: silentLogger,
    });
    expect(again).toMatchObject({
      archived: [],
      draftsWritten: 0,
      facts: 0,
      regenerated: [],
      regeneratedBeforeFirstPass: [],
      adjustments: 'unchanged',
    });
    expect(await files(dir)).toEqual(before);
    // Every archived object is what its manifest says (the --verify check of every table).
    expect((await verifyDestination(dirSink(dir), { checksums: true })).findings).toEqual([]);
  });

  it('a workspace owner archives its own reports; a member is refused and skips them', async () => {
    const ws = sim.workspaceIds()[0] as string;
    const own = await mkdtemp(join(tmpdir(), 'reports-ws-'));
    try {
      const owner = new CloudforetClient({
        endpoint: sim.url,
        token: sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId: ws }),
        dispatcher: new Agent(),
      });
      const mine = await archiveCostReports({
        client: owner,
        sink: dirSink(own),
        runId: 'owner-000',
        log: silentLogger,
      });
      const truth = sim.costReportTruth().reports.filter((r) => r.workspace_id === ws);
      expect(mine.listed).toBe(truth.length);
      expect(mine.adjustments).toEqual({ skipped: expect.stringMatching(/DOMAIN_ADMIN/) });
      const member = new CloudforetClient({
        endpoint: sim.url,
        token: sim.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId: ws }),
        dispatcher: new Agent(),
      });
      const refused = await archiveCostReports({
        client: member,
        sink: dirSink(own),
        runId: 'member-00',
        log: silentLogger,
      });
      expect(refused.skipped).toMatch(/403/);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('each statement reconciles to its DONE report or names the difference, and says which report', async () => {
    // M2 is resynced after its report was DONE: its statement sees rows the report does not.
    sim.resync(sim.dataSourceIds()[1] as string, `${M2}-03`, { costFactor: 2 });
    const sink = dirSink(dir);
    const costs = await runCostExport(
      { client, sink, focus: false, costReports: true },
      { from: `${M1}-01`, to: `${M2}-03` },
    );
    expect(costs.failed).toBe(0);
    const summary = await runMonthlyStatements(
      { sink, now: new Date() },
      { months: [M1, M2], currency: 'USD' },
    );
    const truth = sim.costReportTruth();
    const unified = sim.unifiedCostRecords() as Rec[];
    let named = 0;
    for (const month of summary.months) {
      expect(month.status).toBe('confirmed');
      for (const st of month.statements) {
        const report = truth.reports.find(
          (r) => r.status === 'DONE' && r.report_month === month.month && r.workspace_id === st.name,
        ) as Rec;
        const r = st.reconciliation;
        expect(r?.costReportId).toBe(report.cost_report_id);
        expect(r?.reportTotal).toBe(report.cost.KRW);
        const now = unified
          .filter((u) => u.billed_month === month.month && u.workspace_id === st.name)
          .reduce((n, u) => n + u.cost.KRW, 0);
        expect(Math.abs((r?.statementTotal ?? 0) - now)).toBeLessThan(1e-6 * now);
        const rows = truth.data.filter((d) => d.cost_report_id === report.cost_report_id) as Rec[];
        const adjustments = rows.filter((d) => d.is_adjusted === true).reduce((n, d) => n + d.cost.KRW, 0);
        const plain = rows.filter((d) => d.is_adjusted !== true).reduce((n, d) => n + d.cost.KRW, 0);
        // Every report here is adjusted (the FIXED fee has no filter): none reconciles exactly,
        // and the named parts add up to the difference.
        expect(r?.reconciled).toBe(false);
        const parts = Object.fromEntries((r?.explained ?? []).map((e) => [e.cause.slice(0, 20), e.amount]));
        expect(parts["the report's adjustm"]).toBeCloseTo(adjustments, 6);
        const after = plain - now;
        if (Math.abs(after) > 0.01) expect(parts['unified costs that d']).toBeCloseTo(after, 6);
        else expect(parts['unified costs that d']).toBeUndefined();
        const sum = (r?.explained ?? []).reduce((n, e) => n + e.amount, 0);
        expect(Math.abs(sum - (r?.difference ?? 0))).toBeLessThan(0.01);
        if (parts['unified costs that d'] !== undefined) named++;
        // The CSV names the report on every line; the HTML shows both figures.
        const folder = join(dir, 'statements', `billed_month=${month.month}`);
        const csv = await readFile(join(folder, `${st.name}.r1.csv`), 'utf8');
        const lines = csv.split('\r\n').filter(Boolean).slice(1);
        expect(lines.every((l) => l.endsWith(`,${report.report_number}`))).toBe(true);
        const html = await readFile(join(folder, `${st.name}.r1.html`), 'utf8');
        expect(html).toContain(`Differs from Cloudforet cost report <code>${report.report_number}</code>`);
      }
    }
    expect(named).toBeGreaterThan(0); // M2's resynced rows are named as such
  });

  it('alerts once per regenerated report with another total and per disagreeing statement', async () => {
    const sent: Array<{ subject: string; body: string }> = [];
    const publish = async (m: { subject: string; body: string }) => {
      sent.push(m);
      return `msg-${sent.length}`;
    };
    const deps = { sink: dirSink(dir), publish, log: silentLogger, now: new Date() };
    const first = await runAlerts(deps, { from: `${M2}-01` });
    const regen = sent.filter((m) => m.subject.startsWith('Cost report '));
    const statements = sent.filter((m) => m.subject.startsWith('Statement '));
    expect(regen.map((m) => m.subject).sort()).toEqual(
      [...regenerated]
        .sort((a, b) => String(a.report_number).localeCompare(String(b.report_number)))
        .map((r) => expect.stringContaining(`regenerated: ${r.report_number}`)),
    );
    for (const r of regenerated)
      expect(regen.some((m) => m.body.includes(String(r.cost_report_id)))).toBe(true);
    // Every statement differs from its report here (each report carries the FIXED fee).
    const ws = sim.workspaceIds().length;
    expect(statements.length).toBe(2 * ws);
    expect(first.costReports).toBe(regen.length + statements.length);
    const before = sent.length;
    const again = await runAlerts(deps, { from: `${M2}-01` });
    expect(sent.length).toBe(before);
    expect(again.alreadySent).toBeGreaterThanOrEqual(regen.length + statements.length);
  });

  it('the daily job (the schedule, on every path) archives the reports too; an explicit range does not', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'reports-plan-'));
    try {
      const env = { client, sink: dirSink(fresh), runId: 'plan-0001', log: silentLogger };
      const ranged = { from: `${M2}-01`, to: `${M2}-02` };
      const rangedJob = newJob('plan-0001', ranged, jobOptions(ranged), fresh, Date.now());
      await runSteps(env, rangedJob, ['costReports']);
      expect(rangedJob.costReports).toBeUndefined();
      expect(rangedJob.skipped).toEqual([
        { step: 'costReports', why: 'cost reports not asked', left: false },
      ]);
      const daily = { ...ranged, followJobs: true };
      const dailyJob = newJob('plan-0002', daily, jobOptions(daily), fresh, Date.now());
      await runSteps({ ...env, runId: 'plan-0002' }, dailyJob, ['costReports']);
      const finals = sim
        .costReportTruth()
        .reports.filter((r) => r.status === 'DONE' || r.status === 'EXPIRED');
      expect(dailyJob.costReports).toMatchObject({ draftsWritten: 0 });
      expect(
        dailyJob.costReports && 'archived' in dailyJob.costReports && dailyJob.costReports.archived.length,
      ).toBe(finals.length);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('the CLI archives them with --cost-reports and says what it did', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'reports-cli-'));
    try {
      const secretFile = join(fresh, 'app.json');
      await writeFile(secretFile, consoleAppJson(sim.issueToken()));
      const io = fakeIo();
      const args = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', join(fresh, 'out')];
      const code = await main([...args, '--date', `${M2}-01`, '--cost-reports'], {}, io);
      expect(code).toBe(0);
      const finals = sim
        .costReportTruth()
        .reports.filter((r) => r.status === 'DONE' || r.status === 'EXPIRED');
      expect(io.out()).toContain(
        `cost reports: ${finals.length} listed, ${finals.length} archived, 0 drafts written`,
      );
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  // Last: it regenerates M1 again, which the tests above do not expect.
  it('a first run over a domain with history records past regenerations without alerting them; a later one alerts', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'reports-history-'));
    const sent: Array<{ subject: string; body: string }> = [];
    const publish = async (m: { subject: string; body: string }) => {
      sent.push(m);
      return `msg-${sent.length}`;
    };
    const regenSubjects = () =>
      sent.filter((m) => m.subject.startsWith('Cost report ')).map((m) => m.subject);
    try {
      const sink = dirSink(fresh);
      const first = await archiveCostReports({ client, sink, runId: 'history1', log: silentLogger });
      // M1 was regenerated before this archive existed: a fact, a row of the saved query, no alert.
      const truth = sim.costReportTruth();
      const changedBefore = regenerated.filter((r) => {
        const old = firstDone.find((o) => o.report_month === M1 && o.workspace_id === r.workspace_id) as Rec;
        return Math.abs(old.cost.KRW - r.cost.KRW) > 0.01;
      });
      expect(changedBefore.length).toBeGreaterThan(0);
      expect(first.regenerated).toEqual([]);
      expect(first.regeneratedBeforeFirstPass.map((r) => r.after.costReportId).sort()).toEqual(
        changedBefore.map((r) => r.cost_report_id).sort(),
      );
      const db = await athenaOver(fresh);
      try {
        const expired = await db.run(
          `SELECT cost_report_id FROM cost_report_status WHERE status = 'EXPIRED' ORDER BY cost_report_id`,
        );
        expect(expired.map((e) => e.cost_report_id)).toEqual(
          truth.reports
            .filter((r) => r.status === 'EXPIRED')
            .map((r) => r.cost_report_id)
            .sort(),
        );
        const listed = await db.run(query('cost_reports_regenerated'));
        expect(listed.map((l) => l.after_cost_report_id).sort()).toEqual(
          changedBefore.map((r) => r.cost_report_id).sort(),
        );
      } finally {
        db.close();
      }
      const deps = { sink, publish, log: silentLogger, now: new Date() };
      await runAlerts(deps, { from: `${M2}-01` });
      expect(regenSubjects()).toEqual([]);
      // Cloudforet regenerates M1 again after a resync: the next run observes it, and it is alerted.
      sim.resync(sim.dataSourceIds()[2] as string, `${M1}-07`, { costFactor: 3 });
      const again = sim.regenerateCostReport(M1) as Rec[];
      const second = await archiveCostReports({ client, sink, runId: 'history2', log: silentLogger });
      const moved = again.filter((r) => {
        const old = regenerated.find((o) => o.workspace_id === r.workspace_id) as Rec;
        return Math.abs(old.cost.KRW - r.cost.KRW) > 0.01;
      });
      expect(moved.length).toBeGreaterThan(0);
      expect(second.regeneratedBeforeFirstPass).toEqual([]);
      expect(second.regenerated.map((r) => [r.before.costReportId, r.after.costReportId]).sort()).toEqual(
        moved
          .map((r) => [
            (regenerated.find((o) => o.workspace_id === r.workspace_id) as Rec).cost_report_id,
            r.cost_report_id,
          ])
          .sort(),
      );
      await runAlerts({ ...deps, now: new Date() }, { from: `${M2}-01` });
      const subjects = regenSubjects();
      expect(subjects.length).toBe(moved.length);
      for (const r of moved)
        expect(subjects.filter((m) => m.includes(`regenerated: ${r.report_number} `))).toHaveLength(1);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});
