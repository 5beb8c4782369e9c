// Budget burn-rate alerts: the linear forecast of each budget's period, and the alerts function
// publishing one alert per budget and threshold from the budgets snapshot in s3rver.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as alerts } from '../../../functions/alerts.ts';
import { forecastBudgets } from '../../../functions/lib/alerts/budget-forecast.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import type { TableDef } from '../../../functions/lib/parquet/columns.ts';
import { ParquetRowWriter } from '../../../functions/lib/parquet/row-writer.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import { budgetTable, budgetUsageTable } from '../../../functions/lib/tables/budgets.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type SnsResponder, startSns } from '../../../harness/sns-responder.ts';

const budget = (fields: Record<string, unknown>) => ({
  budget_id: 'budget-a',
  name: 'Team budget',
  state: 'ACTIVE',
  currency: 'USD',
  time_unit: 'MONTHLY',
  start: '2026-01',
  end: '2026-12',
  limit: 3000,
  ...fields,
});
const use = (budget_id: string, billed_month: string, cost: number, limit: number) => ({
  budget_id,
  billed_month,
  cost,
  limit,
  currency: 'USD',
});

describe('the budget forecast', () => {
  it('paces a MONTHLY budget over the month, days complete ending yesterday', () => {
    const [f] = forecastBudgets([budget({})], [use('budget-a', '2026-11', 1500, 3000)], '2026-11-16');

    expect(f).toMatchObject({
      period: '2026-11',
      spent: 1500,
      daysComplete: 15,
      daysInPeriod: 30,
      forecast: 3000,
    });
  });

  it('paces a TOTAL budget over start..end against every month spent so far', () => {
    const total = budget({ time_unit: 'TOTAL', start: '2026-09', end: '2026-12', limit: 1000 });
    const usage = [
      use('budget-a', '2026-09', 300, 1000),
      use('budget-a', '2026-10', 310, 1000),
      use('budget-a', '2026-11', 150, 1000),
    ];

    const [f] = forecastBudgets([total], usage, '2026-11-16');

    // 760 spent in 76 days of 122 (2026-09-01..2026-12-31): 760 / 76 x 122 = 1220.
    expect(f).toMatchObject({
      period: '2026-09..2026-12',
      spent: 760,
      daysComplete: 76,
      daysInPeriod: 122,
      limit: 1000,
    });
    expect(f!.forecast).toBeCloseTo(1220, 9);
  });

  it('counts one day complete on the first of the month', () => {
    const [f] = forecastBudgets([budget({})], [use('budget-a', '2026-11', 40, 3000)], '2026-11-01');

    expect(f).toMatchObject({ daysComplete: 1, forecast: 1200 });
  });

  it('leaves out expired budgets and periods that do not hold today, and keeps the newest row of each', () => {
    const budgets = [
      budget({ budget_id: 'expired', state: 'EXPIRED' }),
      budget({ budget_id: 'later', start: '2027-01', end: '2027-12' }),
      budget({ budget_id: 'twice', limit: 1, exported_at: '2026-11-15T00:00:00Z' }),
      budget({ budget_id: 'twice', limit: 2000, exported_at: '2026-11-16T00:00:00Z' }),
    ];
    const usage = [{ ...use('twice', '2026-11', 10, 2000), exported_at: '2026-11-16T00:00:00Z' }];

    expect(forecastBudgets(budgets, usage, '2026-11-16').map((f) => [f.budgetId, f.limit])).toEqual([
      ['twice', 2000],
    ]);
  });
});

describe('budget alerts from the alerts function', () => {
  const TODAY = utcDay(new Date());
  const MONTH = TODAY.slice(0, 7);
  const monthOffset = (k: number) => {
    const [y, m] = MONTH.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, m - 1 + k, 1)).toISOString().slice(0, 7);
  };
  let s3: S3Server;
  let sns: SnsResponder;
  const saved: Record<string, string | undefined> = {};

  async function writeTable(
    table: TableDef<Record<string, unknown>, { exportedAtMs: number }>,
    rows: object[],
  ) {
    const sink = s3Sink({ client: s3.client, bucket: 'exports', prefix: 'cf' });
    const upload = sink.begin(
      `${table.name}/snapshot_date=${TODAY}/domain.parquet`,
      'application/vnd.apache.parquet',
    );
    const writer = new ParquetRowWriter(table, upload, { exportedAtMs: Date.now() });
    await writer.append(rows as Record<string, unknown>[]);
    await writer.close();
    await upload.commit();
  }

  beforeAll(async () => {
    s3 = await startS3({ buckets: ['exports'] });
    sns = await startSns();
    const env = {
      CLOUDFORET_ENDPOINT: 'https://cf.example.com',
      CLOUDFORET_SECRET_ID: 'unused',
      EXPORT_BUCKET: 'exports',
      EXPORT_PREFIX: 'cf',
      ...s3.env,
      AWS_ENDPOINT_URL_SNS: sns.endpoint,
      AWS_S3_FORCE_PATH_STYLE: 'true',
      ALERTS_TOPIC_ARN: sns.topicArn,
    };
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    // A: TOTAL over five months, 90 % of its limit spent in about half of them: on pace for ~160-220 %.
    // B: MONTHLY, 10 KRW of 1,000,000 this month. C: expired.
    const months = [-3, -2, -1, 0].map(monthOffset);
    await writeTable(budgetTable as never, [
      budget({
        budget_id: 'budget-a',
        time_unit: 'TOTAL',
        start: monthOffset(-3),
        end: monthOffset(1),
        limit: 1000,
        project_id: 'project-web',
        workspace_id: 'workspace-1',
      }),
      budget({
        budget_id: 'budget-b',
        name: 'Quiet budget',
        currency: 'KRW',
        start: monthOffset(-3),
        end: monthOffset(1),
        limit: 1_000_000,
      }),
      budget({
        budget_id: 'budget-c',
        name: 'Old budget',
        state: 'EXPIRED',
        start: monthOffset(-3),
        end: monthOffset(1),
      }),
    ]);
    await writeTable(budgetUsageTable as never, [
      ...months.map((m) => ({ ...use('budget-a', m, 225, 1000), date: m })),
      { ...use('budget-b', MONTH, 10, 1_000_000), date: MONTH, currency: 'KRW' },
      { ...use('budget-c', MONTH, 99_999, 1), date: MONTH },
    ]);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await sns.stop();
    await s3.stop();
  });

  const context = { awsRequestId: 'budget-1', functionName: 'alerts' } as Context;

  it('publishes one alert per threshold for the budget on pace to pass its limit, and none for the others', async () => {
    const result = await alerts({}, context);

    const lastDay = addDays(`${monthOffset(2)}-01`, -1);
    expect(result).toMatchObject({ budgets: 2, budgetSnapshot: TODAY, sent: 2, failed: 0 });
    expect(sns.published.map((m) => m.subject)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Budget forecast over 80 %: Team budget: [\\d,]+\\.\\d\\d of 1,000\\.00 USD by ${lastDay}$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^Budget forecast over 100 %: Team budget: [\\d,]+\\.\\d\\d of 1,000\\.00 USD by ${lastDay}$`,
        ),
      ),
    ]);
    const body = sns.published[1]!.message;
    expect(body).toContain('Budget:     Team budget (budget-a)\n');
    expect(body).toContain(`Period:     TOTAL, ${monthOffset(-3)}-01 to ${lastDay}\n`);
    expect(body).toContain('Scope:      project project-web, workspace workspace-1\n');
    expect(body).toContain('Limit:      1,000.00 USD\n');
    expect(body).toMatch(/Spent: {6}900\.00 USD in \d+ of \d+ days \(90 % of the limit\)\n/);
    expect(body).toContain('saved query budget_vs_actual_forecast');
  });

  it('publishes nothing more on the next run', async () => {
    const result = await alerts({}, context);

    expect(result).toMatchObject({ sent: 0, alreadySent: 2 });
    expect(sns.published).toHaveLength(2);
  });
});
