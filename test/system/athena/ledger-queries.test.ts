// The saved queries over the run ledger, run in DuckDB (harness/duckdb-athena.ts) over what cost runs
// against the simulator wrote: freshness, completeness, reconcile, restatements of confirmed months.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { rollUpLedger } from '../../../functions/lib/export/ledger-rollup.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_7 = monthBack(7);

const FROM = `${MONTH_7}-01`;
const TO = `${MONTH_7}-06`;
const GAP = `${MONTH_7}-04`;

const sql = (name: string) => loadNamedQueries().find((q) => q.name === name)!.sql;

describe('saved queries over the run ledger', () => {
  let sim: Simulator;
  let dir: string;
  let deps: Parameters<typeof runCostExport>[0];
  const query = async (name: string, over = dir) => {
    const db = await athenaOver(over);
    try {
      // The money views (costs_named_converted needs the inventory's names, not exported here).
      for (const view of loadNamedQueries().filter(
        (q) =>
          (q.name.startsWith('create_view_') || q.name === 'create_costs_combined_view') &&
          !/\bcosts_named\b/.test(q.sql),
      ))
        await db.run(view.sql);
      return await db.run(sql(name));
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, dataSources: 2, from: FROM, to: TO, rowsPerDay: 25 });
    dir = await mkdtemp(join(tmpdir(), 'ledger-queries-'));
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });
    deps = { client, sink: dirSink(dir), concurrency: 4, runId: 'run-a' };
    // Every day but GAP: the ledger then has a hole to find.
    await runCostExport(deps, { from: FROM, to: `${MONTH_7}-03` });
    await runCostExport(deps, { from: `${MONTH_7}-05`, to: TO });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('freshness_by_data_source gives each data source its newest billed day and last sync', async () => {
    const rows = await query('freshness_by_data_source');

    expect(rows.map((r) => r.data_source_id).sort()).toEqual(sim.dataSourceIds().sort());
    for (const row of rows) {
      expect(row.newest_billed_date).toBe(TO);
      expect(Number(row.billed_day_age_hours)).toBeGreaterThan(24 * 200);
      expect(row.last_synchronized_at).toMatch(new RegExp(`^${MONTH_7}-06T16:00:00`));
    }
  });

  it('completeness_missing_days lists the day no export covered, for each data source', async () => {
    const rows = await query('completeness_missing_days');

    expect(rows.map((r) => [r.data_source_id, r.missing_billed_date])).toEqual(
      sim
        .dataSourceIds()
        .sort()
        .map((id) => [id, GAP]),
    );
  });

  it('completeness_missing_days lists every day of a longer gap, and nothing between consecutive days', async () => {
    // A ledger written by hand: a two-day gap, a day with no rows (still covered), another
    // table's unit inside a gap (not covering it), a day exported twice, a lone day.
    const own = await mkdtemp(join(tmpdir(), 'ledger-gaps-'));
    const folder = join(own, 'ledger', 'export_units', `export_date=${MONTH_7}-20`);
    await mkdir(folder, { recursive: true });
    const unit = (source: string, day: number, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        table_name: 'costs',
        partition_value: `${MONTH_7}-${String(day).padStart(2, '0')}`,
        source,
        object_key: `k-${source}-${day}`,
        exported_at: `${MONTH_7}-20T00:00:00.000Z`,
        ...more,
      });
    const lines = [
      ...[1, 2, 5, 6, 6, 9, 11].map((d) => unit('ds-a', d)),
      unit('ds-a', 7, { object_key: null, row_count: 0 }),
      unit('ds-a', 10, { table_name: 'focus' }),
      unit('ds-b', 3),
    ];
    await Promise.all(lines.map((line, i) => writeFile(join(folder, `u${i}.json`), `${line}\n`)));
    await rollUpLedger(dirSink(own), new Date(`${MONTH_7}-20T12:00:00.000Z`));
    const db = await athenaOver(own);
    try {
      const rows = await db.run(sql('completeness_missing_days'));

      expect(rows.map((r) => [r.data_source_id, r.missing_billed_date])).toEqual(
        [3, 4, 8, 10].map((d) => ['ds-a', `${MONTH_7}-${String(d).padStart(2, '0')}`]),
      );
    } finally {
      db.close();
      await rm(own, { recursive: true, force: true });
    }
  });

  it("reconcile_cost_days matches Cloudforet's analyze totals, then finds the days whose compacted object no longer does", async () => {
    const clean = await query('reconcile_cost_days');
    const [a] = sim.dataSourceIds() as [string];
    // MONTH_7 is confirmed: the cost runs compacted it, and the query reads it through costs_combined.
    const monthly = join(dir, 'costs_monthly', `billed_month=${MONTH_7}`, `${a}.parquet`);
    const kept = join(dir, 'kept.parquet');
    await copyFile(monthly, kept);
    await rm(monthly);

    const lost = await query('reconcile_cost_days');

    // The analyze totals are recorded from the plan, not copied from the rows written.
    for (const r of clean) {
      const truth = sim.costTruth(String(r.data_source_id), String(r.billed_date));
      expect([Number(r.analyze_rows), Number(r.analyze_cost_sum)]).toEqual([
        truth.rows,
        expect.closeTo(truth.costSum, 6),
      ]);
    }
    expect(clean).toHaveLength(2 * 5);
    expect(clean.every((r) => Number(r.rows_difference) === 0 && Number(r.cost_difference) === 0)).toBe(true);
    const off = lost.filter((r) => Number(r.rows_difference) !== 0 || Number(r.cost_difference) !== 0);
    expect(off.map((r) => [r.data_source_id, r.billed_date]).sort()).toEqual(
      [1, 2, 3, 5, 6].map((d) => [a, `${MONTH_7}-0${d}`]),
    );
    for (const r of off) {
      expect(Number(r.table_rows)).toBe(0);
      expect(Number(r.rows_difference)).toBe(-sim.costTruth(a, String(r.billed_date)).rows);
    }
    await copyFile(kept, monthly);
    await rm(kept);
    expect(await query('reconcile_cost_days')).toEqual(clean);
  });

  it("leaves a compacted month's daily objects to the verifier, which finds the one changed", async () => {
    const [a] = sim.dataSourceIds() as [string];
    const file = (day: string) => join(dir, 'costs', `billed_date=${day}`, `${a}.parquet`);
    const clean = await query('reconcile_cost_days');
    await copyFile(file(`${MONTH_7}-02`), file(`${MONTH_7}-01`));

    // The answer every question reads is the compacted one, still whole; the archive is not.
    expect(await query('reconcile_cost_days')).toEqual(clean);
    const report = await verifyDestination(dirSink(dir), { checksums: true });
    expect(report.findings.map((f) => f.key)).toEqual([`costs/billed_date=${MONTH_7}-01/${a}.parquet`]);

    await rm(file(`${MONTH_7}-01`));
    await runCostExport(
      { ...deps, runId: 'run-fix' },
      { from: `${MONTH_7}-01`, to: `${MONTH_7}-01`, force: true },
    );
    expect((await verifyDestination(dirSink(dir), { checksums: true })).findings).toEqual([]);
  });

  it('restatements_of_confirmed_months lists a restated day of a confirmed month with its figures', async () => {
    // A simulator and destination of its own: the re-sync must not change what other tests read.
    const own = await startSimulator({ seed: 23, dataSources: 2, from: FROM, to: TO, rowsPerDay: 25 });
    const ownDir = join(dir, 'restated');
    const client = new CloudforetClient({
      endpoint: own.url,
      token: own.issueToken(),
      dispatcher: new Agent(),
    });
    const ownDeps = { client, sink: dirSink(ownDir), concurrency: 4 };
    const [, b] = own.dataSourceIds() as [string, string];
    const before = own.costTruth(b, `${MONTH_7}-05`);
    await runCostExport({ ...ownDeps, runId: 'run-a' }, { from: FROM, to: TO });
    own.resync(b, `${MONTH_7}-05`, { costFactor: 2 });
    await runCostExport(
      { ...ownDeps, runId: 'run-b' },
      { from: `${MONTH_7}-05`, to: `${MONTH_7}-05` },
    ).finally(() => own.close());

    const rows = await query('restatements_of_confirmed_months', ownDir);

    const row = rows.find((r) => r.data_source_id === b && r.billed_date === `${MONTH_7}-05`);
    expect(row).toMatchObject({ reason: 'cost-changed', outcome: 'replaced', run_id: 'run-b' });
    expect(Number(row!.old_rows)).toBe(before.rows);
    expect(row!.new_cost_sum as number).toBeCloseTo(before.costSum * 2, 4);
  });

  it.each(['freshness_by_data_source', 'completeness_missing_days', 'reconcile_cost_days'])(
    '%s answers from the rollup as from every ledger line',
    async (name) => {
      // By now `dir` holds the lines of four runs, one of them a forced re-export of a day.
      const db = await athenaOver(dir);
      try {
        await db.run(sql('create_costs_combined_view'));
        const lines = await db.run(sql(name).replaceAll('export_units_latest', 'export_units'));
        const rollup = await db.run(sql(name));
        const [{ n } = {}] = await db.run(
          "SELECT count(*) AS n FROM export_units WHERE table_name = 'costs'",
        );
        const [{ m } = {}] = await db.run(
          "SELECT count(*) AS m FROM export_units_latest WHERE table_name = 'costs'",
        );

        expect(Number(n)).toBeGreaterThan(Number(m)); // versions the rollup folds into one row
        expect(rollup.length).toBeGreaterThan(0);
        expect(rollup).toEqual(lines);
      } finally {
        db.close();
      }
    },
  );
});
