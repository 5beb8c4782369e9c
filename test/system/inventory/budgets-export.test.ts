// Budgets and budget usage through `cloudforet-export inventory` against the simulator, and the
// saved query "budget vs actual vs month-end forecast" over what it wrote.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type Row, readWithArrow } from '../../../harness/parquet-readers.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { athenaLike, savedQuery } from '../../support/athena-views.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';

const TODAY = utcDay(new Date());

describe('budgets and budget usage', () => {
  let world: CliWorld;
  let sim: Simulator;
  let out: string;
  const read = async (table: string) =>
    readWithArrow(
      new Uint8Array(await readFile(join(out, table, `snapshot_date=${TODAY}`, 'domain.parquet'))),
    ).rows;

  beforeAll(async () => {
    // Up to today, so the current month has usage whatever day the test runs.
    world = await cliWorld('budgets', {
      seed: 43,
      dataSources: 3,
      from: addDays(TODAY, -40),
      to: TODAY,
      rowsPerDay: 15,
    });
    sim = world.sim;
    out = join(world.dir, 'out');
    expect((await world.cli('inventory', out, '--json')).code).toBe(0);
  });
  afterAll(() => world.close());

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

  it('budget vs actual: MONTHLY budgets against the month to date, with a month-end forecast', async () => {
    const db = await athenaLike(out);
    const answer = await db.run(savedQuery('budget_vs_actual_forecast')).finally(() => db.close());

    const month = TODAY.slice(0, 7);
    const daysComplete = Math.max(Number(TODAY.slice(8)) - 1, 1);
    const daysInMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0)).getUTCDate();
    const totals = new Set(
      (await read('budgets')).filter((b) => b.time_unit === 'TOTAL').map((b) => b.budget_id),
    );
    const monthly = sim.budgetUsageRecords().filter((u) => u.date === month && !totals.has(u.budget_id));
    expect(answer).toHaveLength(new Set(sim.budgetUsageRecords().map((u) => u.budget_id)).size);
    expect(monthly.length).toBeGreaterThan(0);
    for (const u of monthly) {
      const row = answer.find((r) => r.budget_id === u.budget_id)!;
      const cost = (u.cost as number | undefined) ?? 0;
      expect(row.time_unit).toBe('MONTHLY');
      expect(row.actual).toBeCloseTo(cost, 2);
      expect(row.budget_limit).toBe(u.limit);
      expect(Number(row.utilization_rate)).toBeCloseTo((100 * cost) / (u.limit as number), 2);
      expect(Number(row.forecast)).toBeCloseTo((cost / daysComplete) * daysInMonth, 2);
    }
  });

  it('budget vs actual: TOTAL budgets against every month since their start, utilization filled', async () => {
    const db = await athenaLike(out);
    const answer = await db.run(savedQuery('budget_vs_actual_forecast')).finally(() => db.close());

    const month = TODAY.slice(0, 7);
    const totals = (await read('budgets')).filter((b) => b.time_unit === 'TOTAL');
    expect(totals).toHaveLength(2);
    for (const budget of totals) {
      const row = answer.find((r) => r.budget_id === budget.budget_id)!;
      const spent = sim
        .budgetUsageRecords()
        .filter((u) => u.budget_id === budget.budget_id && String(u.date) <= month)
        .reduce((sum, u) => sum + ((u.cost as number | undefined) ?? 0), 0);
      // More than one month of cost: not this month's alone.
      expect(spent).toBeGreaterThan(
        (sim.budgetUsageRecords().find((u) => u.budget_id === budget.budget_id && u.date === month)
          ?.cost as number) ?? 0,
      );
      expect(row.budget_limit).toBe(budget.limit);
      expect(row.actual).toBeCloseTo(spent, 2);
      expect(row.utilization_rate).not.toBeNull();
      expect(Number(row.utilization_rate)).toBeCloseTo((100 * spent) / (budget.limit as number), 2);
    }
  });
});
