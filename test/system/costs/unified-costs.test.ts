// Unified costs through `cloudforet-export costs` against the simulator, and the views over them:
// exchange_rates, costs_converted and month_status, run in DuckDB as saved for Athena.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import type { CostRunSummary } from '../../../functions/lib/costs/run.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { FALLBACK_RATES } from '../../../harness/simulator/unified-costs.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { type AthenaLike, athenaLike } from '../../support/athena-views.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthEnd } from '../../support/months.ts';

const MONTH_1 = monthBack(1);
const MONTH_2 = monthBack(2);
const MONTH_3 = monthBack(3);
const MONTH_4 = monthBack(4);

const FROM = `${MONTH_4}-20`;
const TO = `${MONTH_2}-10`;
const MONTHS = [MONTH_4, MONTH_3, MONTH_2];
const CURRENCIES = ['KRW', 'USD', 'JPY'] as const;

describe('unified costs and the money views', () => {
  let sim: Simulator;
  let dir: string;
  let out: string;
  let secretFile: string;
  let first: CostRunSummary;
  /** The costs command into `into` (default: the shared export the read-only tests look at). */
  const costs = async (from: string, to: string, ...more: string[]) => costsInto(out, from, to, ...more);
  const costsInto = async (into: string, from: string, to: string, ...more: string[]) => {
    const io = fakeIo();
    const args = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', into];
    const code = await main([...args, '--from', from, '--to', to, ...more], {}, io);
    return { code, io };
  };
  const unifiedTruth = (month: string) => sim.unifiedCostRecords().filter((r) => r.billed_month === month);
  const withViews = async <T>(use: (db: AthenaLike) => Promise<T>, over = out): Promise<T> => {
    const db = await athenaLike(over);
    try {
      return await use(db);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, dataSources: 3, from: FROM, to: TO, rowsPerDay: 15 });
    sim.setFallbackRates(MONTH_3, true);
    dir = await mkdtemp(join(tmpdir(), 'unified-'));
    out = join(dir, 'out');
    secretFile = join(dir, 'app.json');
    await writeFile(secretFile, consoleAppJson(sim.issueToken()));
    const { code, io } = await costs(FROM, TO, '--json');
    expect(code).toBe(0);
    first = JSON.parse(io.out());
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports every month the run covers as one object per scope, each row exact in every currency', async () => {
    for (const month of MONTHS) {
      const path = join(out, 'unified_costs', `billed_month=${month}`, 'domain.parquet');
      const { rows } = readWithArrow(new Uint8Array(await readFile(path)));
      const truth = new Map(unifiedTruth(month).map((r) => [r.unified_cost_id, r]));

      expect(rows.length, month).toBe(truth.size);
      for (const row of rows) {
        const record = truth.get(row.unified_cost_id) as Record<string, unknown> & {
          cost: Record<string, number>;
        };
        for (const c of CURRENCIES) expect(row[`cost_${c.toLowerCase()}`]).toBe(record.cost[c]);
        expect(JSON.parse(row.cost as string)).toEqual(record.cost);
        expect(row).toMatchObject({
          currency: record.currency,
          is_confirmed: 'true',
          project_id: record.project_id ?? null,
        });
      }
    }
    expect(first.unifiedCosts.months.map((m) => m.month)).toEqual(MONTHS);
  });

  it('writes the currencies as DOUBLE columns and keeps billed_month out of the file', async () => {
    const path = join(out, 'unified_costs', `billed_month=${MONTH_4}`, 'domain.parquet');
    const { schema } = readWithArrow(new Uint8Array(await readFile(path)));
    const types = Object.fromEntries(schema.map((f) => [f.name, f.type]));

    expect(types).toMatchObject({
      cost_krw: 'Float64',
      cost_usd: 'Float64',
      cost_jpy: 'Float64',
      cost: 'Utf8',
    });
    expect(types).not.toHaveProperty('billed_month');
  });

  it("costs_converted totals per month equal the simulator's unified totals within 1e-6", async () => {
    const totals = await withViews((db) =>
      db.run(`SELECT substr(billed_date, 1, 7) AS m, sum(cost_usd) AS usd, sum(cost_krw) AS krw, sum(cost_jpy) AS jpy
              FROM costs_converted WHERE workspace_id IS NOT NULL GROUP BY 1 ORDER BY 1`),
    );

    expect(totals.map((t) => t.m)).toEqual(MONTHS);
    for (const t of totals) {
      const records = unifiedTruth(t.m as string) as Array<{ cost: Record<string, number> }>;
      for (const [c, got] of [
        ['USD', t.usd],
        ['KRW', t.krw],
        ['JPY', t.jpy],
      ] as const) {
        const want = records.reduce((s, r) => s + r.cost[c]!, 0);
        expect(Math.abs(Number(got) - want) / want, `${t.m} ${c}`).toBeLessThan(1e-6);
      }
    }
  });

  it("flags the month whose rates are Cloudforet's hard-coded fallback, though it names its usual source", async () => {
    const rates = await withViews((db) =>
      db.run(`SELECT billed_month, from_currency, to_currency, rate, source, rate_is_fallback, derivation
              FROM exchange_rates WHERE from_currency <> to_currency ORDER BY 1, 2, 3`),
    );
    const flagged = await withViews((db) =>
      db.run(`SELECT substr(billed_date, 1, 7) AS m, bool_and(rate_is_fallback) AS all_flagged,
              bool_or(rate_is_fallback) AS any_flagged FROM costs_converted GROUP BY 1 ORDER BY 1`),
    );

    const september = rates.filter((r) => r.billed_month === MONTH_3);
    expect(september.filter((r) => r.derivation === 'direct')).toHaveLength(4);
    for (const r of september) {
      expect(r.rate_is_fallback, `${r.from_currency}/${r.to_currency}`).toBe(true);
      if (r.derivation !== 'direct') continue;
      expect(Number(r.rate) / FALLBACK_RATES[`${r.from_currency}/${r.to_currency}`]!).toBeCloseTo(1, 9);
    }
    expect(rates.filter((r) => r.billed_month !== MONTH_3 && r.rate_is_fallback)).toEqual([]);
    expect(new Set(rates.map((r) => r.source))).toEqual(new Set(['Yahoo! Finance']));
    expect(flagged).toEqual([
      { m: MONTH_4, all_flagged: false, any_flagged: false },
      { m: MONTH_3, all_flagged: true, any_flagged: true },
      { m: MONTH_2, all_flagged: false, any_flagged: false },
    ]);
  });

  it('month_status says which months Cloudforet confirmed and their exchange dates', async () => {
    const status = await withViews((db) =>
      db.run(
        'SELECT billed_month, is_confirmed, confirmed_since, exchange_date FROM month_status ORDER BY 1',
      ),
    );

    expect(status).toEqual([
      {
        billed_month: MONTH_4,
        is_confirmed: true,
        confirmed_since: `${MONTH_3}-15`,
        exchange_date: monthEnd(4),
      },
      {
        billed_month: MONTH_3,
        is_confirmed: true,
        confirmed_since: `${MONTH_2}-15`,
        exchange_date: monthEnd(3),
      },
      {
        billed_month: MONTH_2,
        is_confirmed: true,
        confirmed_since: `${MONTH_1}-15`,
        exchange_date: monthEnd(2),
      },
    ]);
  });

  it('says when a run restated a confirmed month, and not otherwise', async () => {
    // A simulator and destination of its own: the re-sync must not change what other tests compare.
    const own = await startSimulator({ seed: 41, dataSources: 3, from: FROM, to: TO, rowsPerDay: 15 });
    const ownSecret = join(dir, 'restated-app.json');
    await writeFile(ownSecret, consoleAppJson(own.issueToken()));
    const args = ['costs', '--endpoint', own.url, '--secret-file', ownSecret, '--out', join(dir, 'restated')];
    const run = async (from: string, to: string) => {
      const io = fakeIo();
      return { code: await main([...args, '--from', from, '--to', to], {}, io), io };
    };
    await run(FROM, TO);
    own.resync(own.dataSourceIds()[0]!, `${MONTH_3}-05`, { costFactor: 1.5 });

    const { code, io } = await run(`${MONTH_3}-01`, `${MONTH_2}-10`).finally(() => own.close());

    expect(first.unifiedCosts.restatedConfirmedMonths).toEqual([]);
    expect(code).toBe(0);
    expect(io.out()).toMatch(
      new RegExp(`RESTATED confirmed month ${MONTH_3}: 1 cost day\\(s\\) changed after Cloudforet confirmed`),
    );
    expect(io.out()).not.toMatch(`RESTATED confirmed month ${MONTH_2}`);
  });

  it("a workspace app's run writes its own object per month with that workspace's rows only", async () => {
    const workspaceId = sim.workspaceIds()[1]!;
    const appFile = join(dir, 'workspace-app.json');
    await writeFile(appFile, consoleAppJson(sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId })));
    // Its own destination: cost-day objects are named by data source only, not by scope.
    const ownOut = join(dir, 'workspace-out');
    const args = ['costs', '--endpoint', sim.url, '--secret-file', appFile, '--out', ownOut];

    const code = await main([...args, '--from', `${MONTH_4}-20`, '--to', monthEnd(4)], {}, fakeIo());
    const path = join(ownOut, 'unified_costs', `billed_month=${MONTH_4}`, `${workspaceId}.parquet`);
    const { rows } = readWithArrow(new Uint8Array(await readFile(path)));

    expect(code).toBe(0);
    const truth = unifiedTruth(MONTH_4).filter((r) => r.workspace_id === workspaceId);
    expect(truth.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.unified_cost_id).sort()).toEqual(truth.map((r) => r.unified_cost_id).sort());
  });

  it('a month without unified costs yet takes the latest known rate, flagged', async () => {
    // A destination of its own, exported up to September: October's unified costs were never
    // published there (an empty answer would not remove a published month: issue 24).
    const ownOut = join(dir, 'october-missing');
    await costsInto(ownOut, FROM, monthEnd(3));
    sim.setUnifiedCostsMissing(MONTH_2, true);

    const { code } = await costsInto(ownOut, `${MONTH_2}-01`, `${MONTH_2}-10`).finally(() =>
      sim.setUnifiedCostsMissing(MONTH_2, false),
    );
    const [october] = await withViews(
      (db) =>
        db.run(`SELECT bool_and(rate_is_latest_known) AS guessed, min(rate_month) AS rate_month,
              sum(cost) AS krw, sum(cost_usd) AS usd
              FROM costs_converted WHERE billed_date LIKE '${MONTH_2}-%' AND currency = 'KRW'`),
      ownOut,
    );

    expect(code).toBe(0);
    expect(october).toMatchObject({ guessed: true, rate_month: MONTH_3 });
    expect(Number(october!.usd) / (Number(october!.krw) * FALLBACK_RATES['KRW/USD']!)).toBeCloseTo(1, 9);
  });
});
