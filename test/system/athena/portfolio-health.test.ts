// The portfolio's spend in USD and run health by tenant, over two tenants exported into one
// destination (acme with a billed day never exported, as a failed unit leaves it, and a month without
// unified costs yet; beta-2 at Cloudforet's fallback rates): each tenant's lines equal that tenant's
// own saved queries run over its own folder and views.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { portfolioOver } from '../../../harness/duckdb-portfolio.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { PORTFOLIO_QUERY_DIR } from '../../../infra/portfolio-lake.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

const NOW = new Date();
// Three days either side of last month's first: two months, the later one's rates withheld for acme.
const FROM = addDays(monthsBack(1, NOW), -3);
const TO = addDays(monthsBack(1, NOW), 2);
const GAP = addDays(FROM, 1);
const TENANTS = ['acme', 'beta-2'];

const portfolioSql = (name: string) =>
  loadNamedQueries(PORTFOLIO_QUERY_DIR).find((q) => q.name === name)!.sql;
const ownSql = (name: string) => loadNamedQueries().find((q) => q.name === name)!.sql;
/** The money views a tenant's provider creates (step 4 of the deploy), but the named ones (no inventory here). */
const MONEY_VIEWS = loadNamedQueries().filter(
  (q) =>
    (q.name.startsWith('create_view_') || q.name === 'create_costs_combined_view') &&
    !/\bcosts_named\b/.test(q.sql),
);

describe("the portfolio's spend in USD and run health, by tenant", () => {
  let sims: Simulator[];
  let dir: string;
  let out: string;
  let portfolio: AthenaLike;
  /** A saved query run in the tenant's own database, over its folder alone. */
  const own = async (id: string, name: string) => {
    const db = await athenaOver(join(out, 'tenants', id), { now: NOW });
    try {
      for (const view of MONEY_VIEWS) await db.run(view.sql);
      return await db.run(ownSql(name));
    } finally {
      db.close();
    }
  };
  const bySignature = (rows: Record<string, unknown>[]) =>
    [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const lines = (rows: Record<string, unknown>[], id: string) =>
    rows.filter((r) => r.tenant === id).map(({ tenant, ...rest }) => rest);

  beforeAll(async () => {
    sims = await Promise.all([
      startSimulator({ seed: 81, dataSources: 2, from: FROM, to: TO, rowsPerDay: 12 }),
      startSimulator({ seed: 82, dataSources: 3, from: FROM, to: TO, rowsPerDay: 8, fallbackRates: true }),
    ]);
    const apps = await Promise.all(sims.map((s, i) => appFolder(`portfolio-health-${i}`, s.issueToken())));
    dir = apps[0]!.dir;
    out = join(dir, 'lake');
    const costs = async (i: number, from: string, to: string) => {
      const args = ['costs', '--endpoint', sims[i]!.url, '--secret-file', apps[i]!.secretFile, '--out', out];
      expect(await main([...args, '--tenant', TENANTS[i]!, '--from', from, '--to', to], {}, fakeIo())).toBe(
        0,
      );
    };
    await costs(0, FROM, addDays(GAP, -1));
    await costs(0, addDays(GAP, 1), TO);
    await costs(1, FROM, TO);
    await rm(apps[1]!.dir, { recursive: true, force: true });
    await rm(join(out, 'tenants', 'acme', 'unified_costs', `billed_month=${TO.slice(0, 7)}`), {
      recursive: true,
    });
    portfolio = await portfolioOver(out, TENANTS, { now: NOW });
  });
  afterAll(async () => {
    portfolio?.close();
    await Promise.all((sims ?? []).map((s) => s.close()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("gives each tenant's spend in USD as its own spend_usd_by_month_last_12_months, at its own rates", async () => {
    const rows = await portfolio.run(portfolioSql('spend_usd_by_tenant_month'));

    expect(new Set(rows.map((r) => r.tenant))).toEqual(new Set(TENANTS));
    for (const id of TENANTS) {
      const mine = await own(id, 'spend_usd_by_month_last_12_months');
      expect(mine.length, id).toBeGreaterThan(0);
      // The same lines; their order is the query's (ties on the rounded total in either order).
      expect(bySignature(lines(rows, id)), id).toEqual(bySignature(mine));
    }
    const flags = (id: string, flag: string) => [...new Set(lines(rows, id).map((r) => r[flag]))].sort();
    expect(flags('acme', 'rate_is_latest_known')).toEqual([false, true]);
    expect(flags('acme', 'rate_is_fallback')).toEqual([false]);
    expect(flags('beta-2', 'rate_is_fallback')).toEqual([true]);
    expect(new Set(rows.map((r) => r.billed_month))).toEqual(new Set([FROM.slice(0, 7), TO.slice(0, 7)]));
    // Both tenants bill in KRW too, each converted at its own Cloudforet's rate.
    const rates = await portfolio.run(
      `SELECT tenant, sum(cost_usd) / sum(cost_krw) AS krw_to_usd FROM unified_costs
       WHERE currency = 'KRW' GROUP BY tenant ORDER BY tenant`,
    );
    expect(rates).toHaveLength(2);
    expect(rates[0]!.krw_to_usd).not.toBeCloseTo(Number(rates[1]!.krw_to_usd), 9);
  });

  it("gives each tenant's freshness as its own freshness_by_data_source, and its missing days", async () => {
    const rows = await portfolio.run(portfolioSql('health_by_tenant_data_source'));

    for (const id of TENANTS) {
      const freshness = await own(id, 'freshness_by_data_source');
      const missing = await own(id, 'completeness_missing_days');
      const byDataSource = (ds: unknown) => missing.filter((m) => m.data_source_id === ds).length;
      const expected = freshness.map((f) => ({ ...f, missing_days: BigInt(byDataSource(f.data_source_id)) }));
      const key = (r: Record<string, unknown>) => String(r.data_source_id);
      const sort = (a: Record<string, unknown>[]) => [...a].sort((x, y) => key(x).localeCompare(key(y)));
      expect(sort(lines(rows, id)), id).toEqual(sort(expected));
    }
    expect(rows.map((r) => [r.tenant, r.newest_billed_date, Number(r.missing_days)]).sort()).toEqual([
      ...sims[0]!.dataSourceIds().map(() => ['acme', TO, 1]),
      ...sims[1]!.dataSourceIds().map(() => ['beta-2', TO, 0]),
    ]);
  });
});
