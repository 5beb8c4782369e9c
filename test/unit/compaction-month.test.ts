// Compaction end to end in one process (unit tier): a cost run publishes the first days of a
// confirmed month (two months back) for two data sources, and the month's unified costs that
// confirm it, from the simulator in process to a temporary directory; the compaction step then
// builds one costs_monthly object per data source from those daily objects. hyparquet reads both
// back: the same rows, the same totals. A missing daily manifest is no proof that its day left the
// month: the unit fails naming the day and the monthly object, the last copy of those rows once
// the daily object is gone too, is kept byte for byte (an earlier bug overwrote it).
import { createHash } from 'node:crypto';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactConfirmedMonths } from '../../functions/lib/compaction/compact.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { parseManifest } from '../../functions/lib/destination/manifest.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { type Row, readWithHyparquet } from '../../harness/hyparquet-reader.ts';
import { type InProcessCloudforet, inProcessCloudforet, tempSink } from '../support/in-process-cloudforet.ts';
import { monthBack } from '../support/months.ts';

/** Two months back: Cloudforet has confirmed it (from day 15 of the next month). */
const MONTH = monthBack(2);
const DAYS = [`${MONTH}-01`, `${MONTH}-02`, `${MONTH}-03`, `${MONTH}-04`];
const [FROM, DAY, , TO] = DAYS as [string, string, string, string];

let cf: InProcessCloudforet;
let out: Awaited<ReturnType<typeof tempSink>>;
let ids: string[];

beforeAll(async () => {
  cf = inProcessCloudforet({
    seed: 52,
    dataSources: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 6,
    cloudServices: 10,
  });
  out = await tempSink('compaction-month');
  ids = cf.sim.dataSourceIds();
  const run = await runCostExport(
    { client: cf.client, sink: out.sink, focus: false, unifiedCosts: true },
    { from: FROM, to: TO },
  );
  expect(run).toMatchObject({ written: DAYS.length * ids.length, failed: 0 });
});
afterAll(async () => {
  await cf.close();
  await out.remove();
});

const monthly = (ds: string) => `costs_monthly/billed_month=${MONTH}/${ds}.parquet`;
const monthlyManifest = (ds: string) => `_manifests/costs_monthly/billed_month=${MONTH}/${ds}.json`;
const rowsAt = async (dir: string, key: string) => readWithHyparquet(await readFile(join(dir, key)));
const costIds = (rows: readonly Row[]) => rows.map((r) => r['cost_id'] as string).sort();
const total = (rows: readonly Row[]) => rows.reduce((a, r) => a + (r['cost'] as number), 0);
const compact = (sinkDir: string, runId: string) =>
  compactConfirmedMonths({ client: cf.client, sink: dirSink(sinkDir), runId });
const costsLine = (summary: Awaited<ReturnType<typeof compact>>) =>
  summary.tables.find((t) => t.table === 'costs_monthly')!;

/** A copy of the destination as the first compaction left it, for a test to damage. */
async function copyOf(name: string): Promise<string> {
  const dir = `${out.dir}-${name}`;
  await cp(out.dir, dir, { recursive: true });
  return dir;
}

describe('a confirmed month compacted from its daily objects', () => {
  it('one monthly object per data source, holding exactly the rows of its days', async () => {
    const summary = await compact(out.dir, 'compact-1');

    expect(costsLine(summary)).toMatchObject({ written: ids.length, failures: [], throughMonth: MONTH });
    for (const ds of ids) {
      const days: Row[] = [];
      for (const day of DAYS) days.push(...(await rowsAt(out.dir, costObjectKey(ds, day))));
      const month = await rowsAt(out.dir, monthly(ds));
      expect(days.length).toBeGreaterThan(DAYS.length);
      expect(costIds(month)).toEqual(costIds(days));
      expect(total(month)).toBeCloseTo(total(days), 9);
      const truth = DAYS.reduce((a, d) => a + cf.sim.costTruth(ds, d).costSum, 0);
      expect(total(month)).toBeCloseTo(truth, 6);
      const manifest = JSON.parse(await readFile(join(out.dir, monthlyManifest(ds)), 'utf8'));
      expect(manifest.rows).toBe(days.length);
      expect(manifest.sources.map((s: { day: string }) => s.day)).toEqual(DAYS);
      const bytes = await readFile(join(out.dir, monthly(ds)));
      expect(manifest.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    const state = JSON.parse(await readFile(join(out.dir, 'compaction_state', 'costs.json'), 'utf8'));
    expect(state.through_month).toBe(MONTH);
  });

  it('a second pass finds every month current and writes nothing', async () => {
    const before = await readFile(join(out.dir, monthly(ids[0]!)));

    const line = costsLine(await compact(out.dir, 'compact-2'));

    expect(line).toMatchObject({ written: 0, current: ids.length, failures: [] });
    expect(await readFile(join(out.dir, monthly(ids[0]!)))).toEqual(before);
  });
});

describe('a missing daily manifest is not taken as proof that its day left the month', () => {
  for (const variant of ['manifest', 'manifest and object'] as const) {
    it(`the day's ${variant} deleted: the unit fails naming the day and the monthly object is kept`, async () => {
      const dir = await copyOf(variant.replaceAll(' ', '-'));
      try {
        const [ds] = ids as [string];
        const kept = await readFile(join(dir, monthly(ds)));
        const keptManifest = await readFile(join(dir, monthlyManifest(ds)), 'utf8');
        const dayRows = costIds(await rowsAt(dir, costObjectKey(ds, DAY)));
        expect(parseManifest(await readFile(join(dir, costManifestKey(ds, DAY)), 'utf8'))?.rows).toBe(
          dayRows.length,
        );
        await rm(join(dir, costManifestKey(ds, DAY)));
        if (variant === 'manifest and object') await rm(join(dir, costObjectKey(ds, DAY)));

        const line = costsLine(await compact(dir, 'compact-missing'));

        expect(line.failures).toEqual([
          expect.objectContaining({
            dataSourceId: ds,
            month: MONTH,
            code: 'COMPACTION_DAY_MISSING',
            days: [DAY],
          }),
        ]);
        expect(line.failures[0]!.message).toContain(DAY);
        // Byte for byte: the day's rows are still there, read from the monthly object.
        expect(await readFile(join(dir, monthly(ds)))).toEqual(kept);
        expect(await readFile(join(dir, monthlyManifest(ds)), 'utf8')).toBe(keptManifest);
        const month = costIds(await rowsAt(dir, monthly(ds)));
        expect(dayRows.every((id) => month.includes(id))).toBe(true);
        // The other data source's month is untouched and current.
        expect(line.current).toBe(ids.length - 1);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
