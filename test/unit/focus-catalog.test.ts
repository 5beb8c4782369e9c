// The focus table's registered partitions (functions/lib/compaction/focus-catalog.ts): the rule of
// focus_combined, a month up to compaction_state's at its compacted objects and every day after at
// its daily folder, and the calls that move a catalog there, removals first.
import { describe, expect, it } from 'vitest';
import {
  type CatalogPartition,
  type CatalogPort,
  catalogChanges,
  focusPartitions,
  syncFocusCatalog,
} from '../../functions/lib/compaction/focus-catalog.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';

const ROOT = 's3://b/p/';
const daily = (month: string, day: string, ds = 'ds-1') =>
  `focus/x_billing_period=${month}/x_charge_day=${day}/${ds}.parquet`;
const monthly = (month: string, ds = 'ds-1') => `focus_monthly/x_billing_period=${month}/${ds}.parquet`;

describe('focusPartitions', () => {
  const listing = {
    daily: [
      daily('2026-01', '01'),
      daily('2026-01', '02'),
      daily('2026-01', '02', 'ds-2'),
      daily('2026-02', '01'),
      daily('2026-03', '07'),
      'focus/x_billing_period=2026-03/x_charge_day=07/_not-data.json',
    ],
    compacted: [monthly('2026-01'), monthly('2026-01', 'ds-2'), monthly('2026-02'), monthly('2026-03')],
    through: '2026-02',
  };

  it('reads months up to the state from their compacted objects, one partition a month, and days after it', () => {
    expect(focusPartitions(listing, ROOT)).toEqual([
      { values: ['2026-01', '00'], location: `${ROOT}focus_monthly/x_billing_period=2026-01/` },
      { values: ['2026-02', '00'], location: `${ROOT}focus_monthly/x_billing_period=2026-02/` },
      // 2026-03 has a compacted object but is after the state: its days, as focus_combined reads it.
      { values: ['2026-03', '07'], location: `${ROOT}focus/x_billing_period=2026-03/x_charge_day=07/` },
    ]);
  });

  it('with no state, every day from its daily folder and no compacted object', () => {
    const all = focusPartitions({ ...listing, through: undefined }, ROOT);
    expect(all.map((p) => p.values.join('/'))).toEqual([
      '2026-01/01',
      '2026-01/02',
      '2026-02/01',
      '2026-03/07',
    ]);
  });
});

describe('catalogChanges and syncFocusCatalog', () => {
  const p = (month: string, day: string, location = `${ROOT}${month}/${day}/`): CatalogPartition => ({
    values: [month, day],
    location,
  });

  it('removes what is no longer wanted, creates what is new, relocates a moved one', () => {
    const changes = catalogChanges(
      [p('2026-01', '01'), p('2026-01', '02'), p('2026-02', '01')],
      [p('2026-01', '00'), p('2026-02', '01', 's3://elsewhere/')],
    );
    expect(changes.drop.map((x) => x.values.join('/'))).toEqual(['2026-01/01', '2026-01/02']);
    expect(changes.create.map((x) => x.values.join('/'))).toEqual(['2026-01/00']);
    expect(changes.relocate).toEqual([p('2026-02', '01', 's3://elsewhere/')]);
  });

  it('calls the catalog with removals first, so a month is never read from days and compacted at once', async () => {
    const calls: string[] = [];
    let partitions: CatalogPartition[] = [
      p('2026-01', '01', `${ROOT}focus/x_billing_period=2026-01/x_charge_day=01/`),
    ];
    const port: CatalogPort = {
      list: async () => partitions,
      drop: async (list) => {
        calls.push(`drop ${list.length}`);
        partitions = partitions.filter((x) => !list.includes(x));
      },
      create: async (list) => {
        calls.push(`create ${list.length}`);
        partitions = [...partitions, ...list];
      },
      relocate: async () => {
        calls.push('relocate');
      },
    };
    const files: Record<string, string[]> = {
      'focus/': [daily('2026-01', '01')],
      'focus_monthly/': [monthly('2026-01')],
    };
    const sink = {
      list: async (prefix: string) => files[prefix] ?? [],
      read: async () =>
        JSON.stringify({ table_name: 'focus', through_month: '2026-01', through_date: '2026-01-31' }),
    } as unknown as Sink;

    const summary = await syncFocusCatalog(sink, port, ROOT);

    expect(calls).toEqual(['drop 1', 'create 1']);
    expect(summary).toEqual({
      partitions: 1,
      removed: 1,
      created: 1,
      relocated: 0,
      compactedMonths: 1,
      keptOnEmptyListing: false,
    });
    expect(partitions).toEqual([
      { values: ['2026-01', '00'], location: `${ROOT}focus_monthly/x_billing_period=2026-01/` },
    ]);
  });

  it('keeps every partition when the destination lists no focus object (a wrong prefix), and says so', async () => {
    const registered = [p('2026-01', '00'), p('2026-02', '03')];
    const calls: string[] = [];
    const port: CatalogPort = {
      list: async () => registered,
      drop: async () => void calls.push('drop'),
      create: async () => void calls.push('create'),
      relocate: async () => void calls.push('relocate'),
    };
    const empty = { list: async () => [], read: async () => undefined } as unknown as Sink;

    const summary = await syncFocusCatalog(empty, port, ROOT);

    expect(calls).toEqual([]);
    expect(summary).toMatchObject({
      partitions: 2,
      removed: 0,
      compactedMonths: 1,
      keptOnEmptyListing: true,
    });
    // An empty catalog and an empty destination: nothing to keep, nothing to do.
    const none: CatalogPort = { ...port, list: async () => [] };
    expect(await syncFocusCatalog(empty, none, ROOT)).toMatchObject({
      partitions: 0,
      keptOnEmptyListing: false,
    });
  });
});
