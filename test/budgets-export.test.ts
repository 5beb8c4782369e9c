// Budgets and budget usage through `cloudforet-export inventory` against the simulator, and the
// saved query "budget vs actual vs month-end forecast" over what it wrote.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { addDays, utcDay } from '../functions/lib/dates.ts';
import { type Simulator, startSimulator } from '../tools/simulator/index.ts';
import { athenaLike, savedQuery } from './support/athena-views.ts';
import { fakeIo } from './support/fake-io.ts';
import { type Row, readWithArrow } from './support/parquet-readers.ts';
import { consoleAppJson } from './support/tokens.ts';

const TODAY = utcDay(new Date());

describe('budgets and budget usage', () => {
  let sim: Simulator;
  let dir: string;
  let out: string;
  const read = async (table: string) =>
    readWithArrow(
      new Uint8Array(await readFile(join(out, table, `snapshot_date=${TODAY}`, 'domain.parquet'))),
    ).rows;

  beforeAll(async () => {
    // Up to today, so the current month has usage whatever day the test runs.
    sim = await startSimulator({
      seed: 43,
      dataSources: 3,
      from: addDays(TODAY, -40),
      to: TODAY,
      rowsPerDay: 15,
    });
    dir = await mkdtemp(join(tmpdir(), 'budgets-'));
    out = join(dir, 'out');
    const secretFile = join(dir, 'app.json');
    await writeFile(secretFile, consoleAppJson(sim.issueToken()));
    const args = ['inventory', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out, '--json'];
    const io = fakeIo();
    expect(await main(args, {}, io)).toBe(0);
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the cents of usage above 131,072 that the list verb loses to 32-bit floats', async () => {
    const rows = await read('budget_usage');
    const truth = sim.budgetUsageRecords();
    const listed = await fetch(`${sim.url}/cost-analysis/budget-usage/list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.issueToken()}`, 'content-type': 'application/json' },
      body: '{"query": {}}',
    }).then((r) => r.json() as Promise<{ results: Row[] }>);

    expect(rows).toHaveLength(truth.length);
    for (const t of truth) {
      const row = rows.find((r) => r.budget_id === t.budget_id && r.billed_month === t.date)!;
      expect(row.cost).toBe(t.cost ?? null);
      expect(row.limit).toBe(t.limit);
    }
    const big = truth.filter((t) => (t.limit as number) > 131_072 && (t.limit as number) % 1 !== 0);
    expect(big.length).toBeGreaterThan(0);
    const sample = big[0]!;
    const inList = listed.results.find((r) => r.budget_id === sample.budget_id && r.date === sample.date)!;
    expect(inList.limit).not.toBe(sample.limit);
    expect(rows.some((r) => r.limit === 1_234_567.89)).toBe(true);
  });

  it('snapshots every budget with its planned limits', async () => {
    const rows = await read('budgets');

    const monthly = rows.filter((r) => r.time_unit === 'MONTHLY');
    expect(rows.map((r) => r.time_unit).sort()).toEqual(['MONTHLY', 'MONTHLY', 'MONTHLY', 'TOTAL', 'TOTAL']);
    expect(rows.filter((r) => r.resource_group === 'WORKSPACE')).toHaveLength(1);
    for (const budget of monthly) {
      const planned = JSON.parse(budget.planned_limits as string) as Array<{ date: string; limit: number }>;
      const usage = sim.budgetUsageRecords().filter((u) => u.budget_id === budget.budget_id);
      expect(planned).toEqual(usage.map((u) => ({ date: u.date, limit: u.limit })));
    }
  });

  it('budget vs actual: a linear month-end forecast from the month-to-date cost', async () => {
    const db = await athenaLike(out);
    const answer = await db.run(savedQuery('budget_vs_actual_forecast')).finally(() => db.close());

    const month = TODAY.slice(0, 7);
    const daysComplete = Math.max(Number(TODAY.slice(8)) - 1, 1);
    const daysInMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0)).getUTCDate();
    const current = sim.budgetUsageRecords().filter((u) => u.date === month);
    expect(answer).toHaveLength(current.length);
    for (const u of current) {
      const row = answer.find((r) => r.budget_id === u.budget_id)!;
      const cost = (u.cost as number | undefined) ?? 0;
      expect(row.actual).toBeCloseTo(cost, 2);
      expect(row.month_limit).toBe(u.limit);
      expect(Number(row.forecast_month_end)).toBeCloseTo((cost / daysComplete) * daysInMonth, 2);
    }
  });
});
