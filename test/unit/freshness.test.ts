// Freshness from what is published: the newest billed day with an object per data source (recent
// folders first, the whole table when older) and the age of Cloudforet's last sync.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFreshness, measureFreshness } from '../../functions/lib/costs/freshness/freshness.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';

const NOW = new Date('2026-05-10T06:00:00Z');

describe('freshness of each data source', () => {
  let dir: string;
  const publish = async (day: string, id: string) => {
    await mkdir(join(dir, 'costs', `billed_date=${day}`), { recursive: true });
    await writeFile(join(dir, 'costs', `billed_date=${day}`, `${id}.parquet`), 'PAR1');
  };
  const sources = [
    { id: 'ds-recent', name: 'recent', lastSynchronizedAt: '2026-05-09T18:00:00.000Z' },
    { id: 'ds-old', name: 'old', lastSynchronizedAt: '2026-04-01T00:00:00.000Z' },
    { id: 'ds-none', name: 'none', lastSynchronizedAt: undefined },
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'freshness-'));
    await publish('2026-05-07', 'ds-recent');
    await publish('2026-05-08', 'ds-recent');
    await publish('2026-03-30', 'ds-old');
    await publish('2026-03-31', 'ds-old');
    await mkdir(join(dir, '_manifests', 'costs', 'billed_date=2026-05-09'), { recursive: true });
    await writeFile(join(dir, '_manifests', 'costs', 'billed_date=2026-05-09', 'ds-old.json'), '{}');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('measures hours since the end of the newest published day and since the last sync', async () => {
    const measured = await measureFreshness(dirSink(dir), sources, NOW);

    expect(measured).toEqual([
      {
        dataSourceId: 'ds-recent',
        newestBilledDate: '2026-05-08',
        billedDayAgeHours: 30,
        lastSynchronizedAt: '2026-05-09T18:00:00.000Z',
        syncAgeHours: 12,
      },
      {
        dataSourceId: 'ds-old',
        newestBilledDate: '2026-03-31',
        billedDayAgeHours: 942,
        lastSynchronizedAt: '2026-04-01T00:00:00.000Z',
        syncAgeHours: 942,
      },
      {
        dataSourceId: 'ds-none',
        newestBilledDate: undefined,
        billedDayAgeHours: undefined,
        lastSynchronizedAt: undefined,
        syncAgeHours: undefined,
      },
    ]);
  });

  it('names the data sources past the setting, and why', async () => {
    const report = await checkFreshness(
      { sink: dirSink(dir), dataSources: sources.map(withInfo), now: NOW },
      36,
    );

    expect(report.stale).toEqual([
      {
        dataSourceId: 'ds-old',
        name: 'old',
        why:
          'no billed day newer than 2026-03-31 exported (942 h); ' +
          'Cloudforet last synchronized it at 2026-04-01T00:00:00.000Z (942 h)',
      },
    ]);
  });
});

function withInfo<T extends object>(d: T): T & { provider: undefined; currency: string } {
  return { ...d, provider: undefined, currency: 'USD' };
}
