import { describe, expect, it } from 'vitest';
import { planCostUnits, sameSum } from '../../functions/lib/costs/planning/plan-units.ts';
import type { DataSourceInfo } from '../../functions/lib/costs/sources/data-sources.ts';
import type { DayStat } from '../../functions/lib/costs/sources/source-state.ts';

const ds = (id: string): DataSourceInfo => ({
  id,
  name: id,
  provider: 'aws',
  currency: 'USD',
  lastSynchronizedAt: undefined,
});
const days = (entries: Record<string, [number, number]>) =>
  new Map<string, DayStat>(Object.entries(entries).map(([d, [rows, costSum]]) => [d, { rows, costSum }]));

const base = {
  from: '2026-03-01',
  to: '2026-03-03',
  dataSources: [ds('ds-a')],
  published: new Map([
    ['ds-a', days({ '2026-03-01': [10, 5.5], '2026-03-02': [3, 1], '2026-03-03': [0, 0] })],
  ]),
  source: new Map([['ds-a', days({ '2026-03-01': [10, 5.5], '2026-03-02': [3, 1] })]]),
  syncing: new Set<string>(),
  force: false,
};

describe('planCostUnits', () => {
  it('plans nothing when every day matches what was published (an empty day included)', () => {
    const plan = planCostUnits(base);

    expect(plan.units).toEqual([]);
    expect(plan.unchanged.get('ds-a')).toBe(3);
  });

  it('plans a day whose row count changed', () => {
    const plan = planCostUnits({
      ...base,
      source: new Map([['ds-a', days({ '2026-03-01': [11, 5.5], '2026-03-02': [3, 1] })]]),
    });

    expect(plan.units).toEqual([{ dataSourceId: 'ds-a', date: '2026-03-01', reason: 'rows-changed' }]);
  });

  it('plans a day whose cost sum changed with the same count (a restatement)', () => {
    const plan = planCostUnits({
      ...base,
      source: new Map([['ds-a', days({ '2026-03-01': [10, 5.5], '2026-03-02': [3, 1.01] })]]),
    });

    expect(plan.units).toEqual([{ dataSourceId: 'ds-a', date: '2026-03-02', reason: 'cost-changed' }]);
  });

  it('plans a day with no manifest, and a day that lost all its rows', () => {
    const published = new Map([['ds-a', days({ '2026-03-01': [10, 5.5], '2026-03-02': [3, 1] })]]);
    const source = new Map([['ds-a', days({ '2026-03-01': [10, 5.5] })]]);

    const plan = planCostUnits({ ...base, published, source });

    expect(plan.units.map((u) => [u.date, u.reason])).toEqual([
      ['2026-03-02', 'rows-changed'],
      ['2026-03-03', 'no-manifest'],
    ]);
  });

  it('skips a data source whose sync is in progress and reports it', () => {
    const plan = planCostUnits({
      ...base,
      dataSources: [ds('ds-a'), ds('ds-b')],
      syncing: new Set(['ds-b']),
    });

    expect(plan.skippedSyncing).toEqual(['ds-b']);
    expect(plan.units).toEqual([]);
  });

  it('plans every day with force', () => {
    const plan = planCostUnits({ ...base, force: true });

    expect(plan.units.map((u) => u.reason)).toEqual(['forced', 'forced', 'forced']);
  });

  it('plans a mixed day from the newest successful job that replaced its month, else keeps it', () => {
    const job = (jobId: string, createdAt: string, from: string) => ({
      jobId,
      dataSourceId: 'ds-a',
      status: 'SUCCESS',
      changedFrom: [from],
      createdAt,
      updatedAt: undefined,
      finishedAt: undefined,
    });
    const mixedDay = (jobs: string[]) => ({ rows: 12, costSum: 7, groups: [], jobs });
    const source = new Map([
      [
        'ds-a',
        new Map([
          ['2026-03-01', mixedDay(['job-new', 'job-old'])],
          ['2026-03-02', mixedDay(['job-x', 'job-y'])],
        ]),
      ],
    ]);
    const successes = new Map([
      [
        'ds-a',
        [
          job('job-new', '2026-03-05T16:00:00.000Z', '2026-03'),
          job('job-old', '2026-02-20T16:00:00.000Z', '2026-02'),
        ],
      ],
    ]);

    const plan = planCostUnits({ ...base, to: '2026-03-02', source, successes });

    expect(plan.units).toEqual([
      { dataSourceId: 'ds-a', date: '2026-03-01', reason: 'mixed', jobId: 'job-new' },
    ]);
    expect(plan.mixed.map((m) => [m.date, m.publishedJobId])).toEqual([
      ['2026-03-01', 'job-new'],
      ['2026-03-02', undefined],
    ]);
  });

  it('filters a changed day on the last good job when a failed job replaced it later, else keeps it', () => {
    const job = (jobId: string, status: string, createdAt: string) => ({
      jobId,
      dataSourceId: 'ds-a',
      status,
      changedFrom: ['2026-03'],
      createdAt,
      updatedAt: undefined,
      finishedAt: createdAt,
    });
    const good = job('job-good', 'SUCCESS', '2026-03-02T16:00:00.000Z');
    const failed = job('job-failed', 'FAILURE', '2026-03-03T16:00:00.000Z');
    const source = new Map([
      ['ds-a', days({ '2026-03-01': [11, 5.5], '2026-03-02': [3, 1], '2026-03-03': [2, 1] })],
    ]);

    const plan = planCostUnits({
      ...base,
      source,
      successes: new Map([['ds-a', [good]]]),
      unsettled: new Map([['ds-a', [failed]]]),
    });

    expect(plan.units).toEqual([
      { dataSourceId: 'ds-a', date: '2026-03-01', reason: 'rows-changed', jobId: 'job-good' },
    ]);
    expect(plan.mixed).toEqual([
      { dataSourceId: 'ds-a', date: '2026-03-03', jobIds: [], publishedJobId: undefined },
    ]);
  });

  it('reports a day a stale job began before it was synced as not synced yet, not as a unit', () => {
    const job = (jobId: string, status: string, createdAt: string) => ({
      jobId,
      dataSourceId: 'ds-a',
      status,
      changedFrom: ['2026-03'],
      createdAt,
      updatedAt: undefined,
      finishedAt: status === 'IN_PROGRESS' ? undefined : createdAt,
    });
    const good = job('job-good', 'SUCCESS', '2026-03-02T16:00:00.000Z');
    const stale = job('job-stale', 'IN_PROGRESS', '2026-03-03T16:00:00.000Z');
    const day = (rows: number, jobs: string[]) => ({ rows, costSum: rows, groups: [], jobs });
    // 03-01 holds the good job's rows; 03-02 (the good job's own day) only the stale job's.
    const source = new Map([
      [
        'ds-a',
        new Map([
          ['2026-03-01', day(11, ['job-good'])],
          ['2026-03-02', day(2, ['job-stale'])],
        ]),
      ],
    ]);

    const plan = planCostUnits({
      ...base,
      source,
      successes: new Map([['ds-a', [good]]]),
      unsettled: new Map([['ds-a', [stale]]]),
    });

    expect(plan.units).toEqual([
      { dataSourceId: 'ds-a', date: '2026-03-01', reason: 'rows-changed', jobId: 'job-good' },
    ]);
    expect(plan.notSynced).toEqual([{ dataSourceId: 'ds-a', date: '2026-03-02', jobId: 'job-stale' }]);
    // 03-03 had no rows and has none: unchanged.
    expect(plan.unchanged.get('ds-a')).toBe(1);
  });

  it('treats sums differing only by float rounding as equal', () => {
    expect(sameSum(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameSum(1234567.891234, 1234567.891235)).toBe(true);
    expect(sameSum(100, 100.01)).toBe(false);
  });
});
