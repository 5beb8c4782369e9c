// The archive never erases on absence of evidence. Each case of issue 24's "Why", reproduced
// against the simulator and a local destination: every published byte is kept, and the run exits
// non-zero wherever a unit could not be proven.
import { open, readdir, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack, monthsBack } from '../../support/months.ts';
import { snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-03`;
const DAY = `${MONTH_2}-02`;

let world: CliWorld;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  world = await cliWorld('archive-safety', { seed: 61, dataSources: 2, from: FROM, to: TO, rowsPerDay: 30 });
  ({ sim, dir } = world);
});
afterAll(() => world.close());
beforeEach(() => {
  sim.clearFaults();
});

/** The costs command with --json, over FROM..TO unless given a --date. */
const costs = (out: string, ...extra: string[]) =>
  world.cli(
    'costs',
    out,
    '--json',
    ...(extra.includes('--date') ? [] : ['--from', FROM, '--to', TO]),
    ...extra,
  );

const daySum = async (out: string, ds: string, date: string) =>
  Number(
    (await queryDuckDB(`SELECT sum(cost) AS s FROM read_parquet('${join(out, costObjectKey(ds, date))}')`))
      .rows[0]!.s,
  );

const restatementLines = async (out: string) =>
  (await readdir(join(out, 'ledger', 'cost_restatements'), { recursive: true }).catch(() => [])).filter((f) =>
    String(f).endsWith('.json'),
  ).length;

describe('a 200 that is not an answer', () => {
  it.each([
    ['{}', 'empty', 'EMPTY_ANSWER_CONTRADICTED'],
    ['{"detail": …}', 'detail', 'CLOUDFORET_NOT_AN_ANSWER'],
    ['"results": null', 'null-results', 'CLOUDFORET_NOT_AN_ANSWER'],
    ['an HTML page', 'badjson', 'CLOUDFORET_NOT_AN_ANSWER'],
  ] as const)(
    '%s for a day analyze counts rows in: objects untouched, unit failed, exit 1',
    async (_, kind, code) => {
      const out = join(dir, `not-an-answer-${kind}`);
      expect((await costs(out)).code).toBe(0);
      const before = await snapshotDir(out);
      const [ds] = sim.dataSourceIds() as [string];
      sim.injectFault({ path: '/cost-analysis/cost/list', kind, times: Number.POSITIVE_INFINITY });

      const run = await costs(out, '--date', DAY, '--data-source', ds, '--force');

      const after = await snapshotDir(out);
      expect(run.code).toBe(1);
      expect(run.summary.failures).toEqual([expect.objectContaining({ dataSourceId: ds, date: DAY, code })]);
      expect(run.summary.removed).toBe(0);
      // The cost days are untouched (the run also exported the month's unified costs anew).
      const days = [...before.keys()].filter(
        (p) => p.startsWith('costs/') || p.startsWith('_manifests/costs/'),
      );
      expect(days).toHaveLength(2 * 2 * 3);
      for (const path of days) expect([path, after.get(path)]).toEqual([path, before.get(path)]);
    },
  );
});

describe('a 200 that is not an answer, for the other listing verbs', () => {
  const inventory = (out: string) => world.cli('inventory', out, '--json');

  it.each([
    ['/inventory/cloud-service/list', 'null-results', 'cloud_services'],
    ['/identity/project/list', 'detail', 'projects'],
    ['/cost-analysis/budget-usage/analyze', 'detail', 'budget_usage'],
  ] as const)(
    '%s answering %s: the snapshot is kept, the table failed, exit 1',
    async (path, kind, table) => {
      const out = join(dir, `inventory-${kind}-${table}`);
      expect((await inventory(out)).code).toBe(0);
      const before = await snapshotDir(out);
      sim.injectFault({ path, kind, times: Number.POSITIVE_INFINITY });

      const run = await inventory(out);

      const after = await snapshotDir(out);
      expect(run.code).toBe(1);
      expect(run.summary.failures).toEqual([
        expect.objectContaining({ table, code: 'CLOUDFORET_NOT_AN_ANSWER' }),
      ]);
      const kept = [...before.keys()].filter(
        (p) => p.startsWith(`${table}/`) || p.startsWith(`_manifests/${table}/`),
      );
      expect(kept).toHaveLength(2);
      for (const p of kept) expect([p, after.get(p)]).toEqual([p, before.get(p)]);
    },
  );

  it('unified-cost/list answering {"detail": …}: the month is kept, the run fails, exit 1', async () => {
    const out = join(dir, 'unified-detail');
    expect((await costs(out)).code).toBe(0);
    const before = await snapshotDir(out);
    sim.injectFault({
      path: '/cost-analysis/unified-cost/list',
      kind: 'detail',
      times: Number.POSITIVE_INFINITY,
    });

    const run = await costs(out, '--force');

    const after = await snapshotDir(out);
    expect(run.code).toBe(1);
    expect(run.summary.unifiedCosts.failures).toEqual([
      expect.objectContaining({ month: MONTH_2, code: 'CLOUDFORET_NOT_AN_ANSWER' }),
    ]);
    const month = [...before.keys()].filter((p) => p.includes(`unified_costs/billed_month=${MONTH_2}/`));
    expect(month).toHaveLength(2);
    for (const p of month) expect([p, after.get(p)]).toEqual([p, before.get(p)]);
  });
});

describe('damage that keeps the size', () => {
  /** Overwrites 64 bytes in the middle of the day's object, keeping its size. */
  async function damage(path: string) {
    const { size } = await stat(path);
    const file = await open(path, 'r+');
    await file.write(Buffer.alloc(64, 0x7f), 0, 64, Math.floor(size / 2));
    await file.close();
  }

  it('is repaired by the next default run, which sees the file changed', async () => {
    const out = join(dir, 'damaged');
    expect((await costs(out)).code).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    const path = join(out, costObjectKey(ds, DAY));
    const size = (await stat(path)).size;
    await damage(path);

    const run = await costs(out);

    expect(run.code).toBe(0);
    expect(run.summary.repaired).toBe(1);
    expect((await stat(path)).size).toBe(size);
    expect(await daySum(out, ds, DAY)).toBeCloseTo(sim.costTruth(ds, DAY).costSum, 6);
  });

  it('is repaired by --verify when the file keeps its size and its modification time too', async () => {
    const out = join(dir, 'damaged-quietly');
    expect((await costs(out)).code).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    const path = join(out, costObjectKey(ds, DAY));
    const { atime, mtime } = await stat(path);
    await damage(path);
    await utimes(path, atime, mtime);

    const unverified = await costs(out);
    const verified = await costs(out, '--verify');

    expect(unverified.summary.repaired).toBe(0);
    expect(verified.code).toBe(0);
    expect(verified.summary.repaired).toBe(1);
    expect(await daySum(out, ds, DAY)).toBeCloseTo(sim.costTruth(ds, DAY).costSum, 6);
  });
});

describe('restatements', () => {
  it('an unchanged forced rerun replaces every day and appends no restatement line', async () => {
    const out = join(dir, 'unchanged');
    expect((await costs(out)).code).toBe(0);

    const rerun = await costs(out, '--force');

    expect(rerun.code).toBe(0);
    expect(rerun.summary.written).toBe(rerun.summary.units);
    expect(rerun.summary.units).toBeGreaterThan(0);
    expect(await restatementLines(out)).toBe(0);
  });

  it('a changed day appends one line, with what differs as its evidence', async () => {
    const out = join(dir, 'changed');
    expect((await costs(out)).code).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    sim.resync(ds, DAY, { costFactor: 1.5 });

    expect((await costs(out)).code).toBe(0);

    const folder = join(out, 'ledger', 'cost_restatements');
    const files = (await readdir(folder, { recursive: true })).filter((f) => String(f).endsWith('.json'));
    const { readFile } = await import('node:fs/promises');
    const line = JSON.parse(await readFile(join(folder, String(files[0])), 'utf8'));
    expect(files).toHaveLength(1);
    expect(line).toMatchObject({ data_source_id: ds, billed_date: DAY, outcome: 'replaced' });
    expect(line.evidence).toMatch(/^cost sum /);
  });
});

describe('an old range re-run once it has left retention', () => {
  it('keeps the cost days and the unified-cost months it archived', async () => {
    const out = join(dir, 'old-range');
    expect((await costs(out)).code).toBe(0);
    const before = await snapshotDir(out);
    expect([...before.keys()].some((k) => k.startsWith(`unified_costs/billed_month=${MONTH_2}/`))).toBe(true);
    sim.setUnifiedCostsMissing(MONTH_2, true);
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });

    const summary = await runCostExport(
      { client, sink: dirSink(out), now: () => new Date(`${addDays(monthsBack(-13), 14)}T00:00:00Z`) },
      { from: FROM, to: TO },
    ).finally(() => sim.setUnifiedCostsMissing(MONTH_2, false));

    const after = await snapshotDir(out);
    expect(summary).toMatchObject({ units: 0, failed: 0, beyondRetention: 6 });
    expect(summary.unifiedCosts.months).toEqual([]);
    for (const [path, bytes] of before) expect(after.get(path)).toEqual(bytes);
  });
});
