// cost_by_workspace_project_usd over a simulator export (costs from the day before last month to
// yesterday, unified costs, one inventory snapshot) equals last month's cost rows converted at the
// simulator's own rates of that month, computed here without the views.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';

const TODAY = utcDay(new Date());
const THIS_MONTH = `${TODAY.slice(0, 7)}-01`;
const LAST_MONTH = `${addDays(THIS_MONTH, -1).slice(0, 7)}-01`;
const FROM = addDays(LAST_MONTH, -1);
const TO = addDays(TODAY, -1);
const queries = loadNamedQueries();

describe('cost_by_workspace_project_usd over a simulator export', () => {
  let world: CliWorld;
  let sim: Simulator;
  let db: AthenaLike;

  beforeAll(async () => {
    world = await cliWorld('last-month-usd', {
      seed: 27,
      workspaces: 3,
      dataSources: 3,
      from: FROM,
      to: TO,
      rowsPerDay: 6,
    });
    sim = world.sim;
    const out = join(world.dir, 'out');
    expect((await world.cli('costs', out, '--from', FROM, '--to', TO)).code).toBe(0);
    expect((await world.cli('inventory', out)).code).toBe(0);
    db = await athenaOver(out);
    for (const view of queries.filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW')))
      await db.run(view.sql);
  }, 120_000);
  afterAll(async () => {
    db?.close();
    await world.close();
  });

  /** Each data source's plugin currency, as the simulator's API lists it (USD when none is named). */
  async function currencies(): Promise<Map<unknown, string>> {
    const listed = await fetch(`${sim.url}/cost-analysis/data-source/list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.issueToken()}`, 'content-type': 'application/json' },
      body: '{"query": {}}',
    }).then((r) => r.json() as Promise<{ results: Array<Record<string, unknown>> }>);
    return new Map(
      listed.results.map((d) => {
        const metadata = (d.plugin_info as { metadata?: { currency?: string } }).metadata;
        return [d.data_source_id, metadata?.currency ?? 'USD'];
      }),
    );
  }

  /** Last month's cost rows in USD at the simulator's rate of the month, and how many rows. */
  async function lastMonthTruth(): Promise<{ usd: number; rows: number }> {
    const rates = sim.exchangeRates(LAST_MONTH.slice(0, 7));
    const currencyOf = await currencies();
    let usd = 0;
    let rows = 0;
    for (const ds of sim.dataSourceIds()) {
      const rate = rates[`${currencyOf.get(ds)}/USD`]!;
      for (let day = LAST_MONTH; day < THIS_MONTH; day = addDays(day, 1)) {
        for (const row of sim.costRows(ds, day)) {
          usd += Number(row.cost ?? 0) * rate;
          rows++;
        }
      }
    }
    return { usd, rows };
  }

  it("equals last month's cost rows converted at that month's rate, each row counted once", async () => {
    const truth = await lastMonthTruth();

    const rows = await db.run(queries.find((q) => q.name === 'cost_by_workspace_project_usd')!.sql);

    expect(truth.rows).toBeGreaterThan(50);
    expect(new Set(rows.map((r) => r.billed_month))).toEqual(new Set([LAST_MONTH.slice(0, 7)]));
    expect(rows.reduce((sum, r) => sum + Number(r.cost_rows), 0)).toBe(truth.rows);
    // Each group is rounded to cents: the total may be off by half a cent per group.
    expect(Math.abs(rows.reduce((sum, r) => sum + Number(r.cost_usd), 0) - truth.usd)).toBeLessThan(
      0.005 * rows.length + 1e-6,
    );
    expect(
      rows.every((r) => typeof r.workspace_name === 'string' && typeof r.project_name === 'string'),
    ).toBe(true);
  });
});
