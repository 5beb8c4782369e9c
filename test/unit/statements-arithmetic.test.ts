// Statements arithmetic, pure: unified cost rows in, one statement per workspace out
// (functions/lib/statements/render.ts). Reading and archiving them is in
// test/system/alerts/statements.test.ts and test/system/alerts/statements-function.test.ts.
import { describe, expect, it } from 'vitest';
import { reconcile } from '../../functions/lib/statements/reconcile.ts';
import {
  buildStatements,
  plainDecimal,
  type Row,
  reconciliationHtml,
  statementCsv,
} from '../../functions/lib/statements/render.ts';

/** Unified cost rows of one month: cost_<currency> columns at the month's rate. */
const ROWS: Row[] = [
  {
    workspace_id: 'ws-a',
    project_id: 'p2',
    project_name: 'Data',
    provider: 'aws',
    product: 'S3',
    currency: 'KRW',
    cost_krw: 26_000,
    cost_usd: 20,
    is_confirmed: true,
    exchange_source: 'Yahoo',
  },
  {
    workspace_id: 'ws-a',
    project_id: 'p1',
    project_name: 'p1',
    provider: 'aws',
    product: 'EC2',
    currency: 'USD',
    cost_krw: 13_000,
    cost_usd: 10,
    is_confirmed: 'true',
    exchange_source: 'Yahoo',
  },
  {
    workspace_id: null,
    project_id: 'p3',
    provider: 'google_cloud',
    product: 'BigQuery',
    currency: 'USD',
    cost_krw: 6_500,
    cost_usd: 5,
    is_confirmed: 'false',
    exchange_source: 'Fallback',
  },
];

describe('buildStatements', () => {
  const [unassigned, wsA] = buildStatements(ROWS, '2026-01', 'KRW', new Map([['p1', 'Web, "new"']]));

  it('makes one statement per workspace, rows without one under "unassigned", in name order', () => {
    expect([unassigned!.name, wsA!.name]).toEqual(['unassigned', 'ws-a']);
  });

  it('totals the lines in the statement currency', () => {
    expect(wsA!.total).toBe(39_000);
    expect(unassigned!.total).toBe(6_500);
  });

  it('gives each origin currency its month rate, sum over sum, and leaves the statement currency out', () => {
    expect(wsA!.rates).toEqual({ USD: 1_300 });
    expect(wsA!.rateSources).toEqual(['Yahoo']);
  });

  it('is confirmed only when every row is, true or the string "true"', () => {
    expect(wsA!.confirmed).toBe(true);
    expect(unassigned!.confirmed).toBe(false);
  });

  it('orders lines by project, names projects from the snapshot first, then the row', () => {
    expect(wsA!.lines.map((l) => [l.project_id, l.project_name, l.cost])).toEqual([
      ['p1', 'Web, "new"', 13_000],
      ['p2', 'Data', 26_000],
    ]);
  });
});

describe('statementCsv', () => {
  it('writes RFC 4180: a header, CRLF line ends, quoted fields, plain decimals', () => {
    const [wsA] = buildStatements(ROWS.slice(1, 2), '2026-01', 'USD', new Map([['p1', 'Web, "new"']]));

    expect(statementCsv(wsA!)).toBe(
      'workspace_id,project_id,project_name,provider,product,data_source_id,service_account_id,origin_currency,cost,cost_report_number\r\n' +
        'ws-a,p1,"Web, ""new""",aws,EC2,,,USD,10,\r\n',
    );
  });
});

describe('plainDecimal', () => {
  it.each([
    [1234.5, '1234.5'],
    [0.1 + 0.2, '0.3'],
    [12.3456789, '12.345679'],
    [0, '0'],
    [1e-7, '0'],
  ])('%d -> %s', (n, text) => {
    expect(plainDecimal(n)).toBe(text);
  });
});

describe('reconcile', () => {
  const report = {
    costReportId: 'cost-report-1',
    reportNumber: 'CostReport_2601100001',
    workspaceId: 'ws-a',
    currency: 'KRW',
    total: 1_050.004,
    isAdjusted: true,
  };
  const statementRows: Row[] = [{ cost_krw: 600 }, { cost_krw: 450 }];

  it('reconciles within 0.01 in the report currency, and the HTML names the report', () => {
    const r = reconcile(report, statementRows, []);
    expect(r).toMatchObject({ reconciled: true, statementTotal: 1_050, explained: [] });
    expect(r.difference).toBeCloseTo(0.004, 9);
    const html = reconciliationHtml({
      ...buildStatements([], '2026-01', 'USD')[0],
      reconciliation: r,
    } as never);
    expect(html).toContain('Reconciles to Cloudforet cost report <code>CostReport_2601100001</code>');
  });

  it('names adjustments and rows synced after the report; the parts add up to the difference', () => {
    const rows: Row[] = [
      { cost_krw: 1_000, is_adjusted: 'false' },
      { cost_krw: 100, is_adjusted: 'true' },
      { cost_krw: -50, is_adjusted: 'true' },
    ];
    const r = reconcile({ ...report, total: 1_050 }, [{ cost_krw: 980 }], rows);
    expect(r.reconciled).toBe(false);
    expect(r.difference).toBe(70);
    expect(r.explained.map((e) => e.amount)).toEqual([50, 20]);
    expect(r.explained[0]?.cause).toMatch(/adjustments/);
    expect(r.explained[1]?.cause).toMatch(/synced after the report/);
  });

  it("names the rates' dates when the statement's differ from the report's currency date", () => {
    const rows: Row[] = [{ cost_krw: 1_000, is_adjusted: 'false' }];
    const r = reconcile(
      { ...report, total: 1_000, currencyDate: '2026-01-31' },
      [{ cost_krw: 990, exchange_date: '2026-02-14' }],
      rows,
    );
    expect(r.explained).toEqual([
      {
        cause: expect.stringContaining("the report's rates are of 2026-01-31, the statement's of 2026-02-14"),
        amount: 10,
      },
    ]);
  });
});
