// One gate for every destructive write (functions/lib/destination/gate.ts): an answer with no rows at
// all proves nothing, whichever verb gives it. A `--force` rerun whose cost/analyze, cost/list and
// data-source-account/list all answer `{}` fails loudly and leaves every published byte as it was;
// a healthy rerun afterwards is exact.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack } from '../../support/months.ts';
import { changedFiles, snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_2 = monthBack(2);
const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-03`;

let world: CliWorld;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  world = await cliWorld('one-gate', {
    seed: 73,
    dataSources: 3,
    workspaces: 3,
    from: FROM,
    to: TO,
    rowsPerDay: 30,
  });
  ({ sim, dir } = world);
});
afterAll(() => world.close());
beforeEach(() => sim.clearFaults());

const costs = (out: string, ...extra: string[]) =>
  world.cli('costs', out, '--json', '--from', FROM, '--to', TO, ...extra);

/** The unified-cost rows without their export time, in a stable order. */
const unifiedRows = async (out: string) =>
  (
    await queryDuckDB(
      `SELECT * EXCLUDE (exported_at) FROM read_parquet('${out}/unified_costs/**/*.parquet') ORDER BY ALL`,
    )
  ).rows;

const EMPTY_EVERYWHERE = [
  '/cost-analysis/cost/analyze',
  '/cost-analysis/cost/list',
  '/cost-analysis/data-source-account/list',
] as const;

describe('an answer with no rows at all proves nothing', () => {
  it('a --force rerun answered {} by analyze, list and account links fails and changes no byte', async () => {
    const out = join(dir, 'empty-everywhere');
    expect((await costs(out)).code).toBe(0);
    const before = await snapshotDir(out);
    const unifiedBefore = await unifiedRows(out);
    for (const path of EMPTY_EVERYWHERE)
      sim.injectFault({ path, kind: 'empty', times: Number.POSITIVE_INFINITY });

    const run = await costs(out, '--force');

    const after = await snapshotDir(out);
    expect(run.code).toBe(1);
    expect(run.summary.removed).toBe(0);
    expect(run.summary.failed).toBeGreaterThan(0);
    // Every object of the faulted verbs (costs, their FOCUS rows) byte for byte; the unified-cost
    // month, whose verb answered well, is exported anew with the same rows (only exported_at moves),
    // the object it replaced kept under unified_costs_revisions/.
    const changed = changedFiles(before, after).filter((p) => !p.startsWith('ledger/'));
    expect(changed.filter((p) => !/(^|\/)unified_costs(_revisions)?\//.test(p))).toEqual([]);
    expect(await unifiedRows(out)).toEqual(unifiedBefore);
  });

  it('{} from analyze alone does not prove a day empty: the unit fails, the day is kept', async () => {
    const out = join(dir, 'empty-analyze');
    expect((await costs(out)).code).toBe(0);
    const before = await snapshotDir(out);
    const [ds] = sim.dataSourceIds() as [string];
    for (const path of EMPTY_EVERYWHERE.slice(0, 2))
      sim.injectFault({ path, kind: 'empty', times: Number.POSITIVE_INFINITY });

    const run = await costs(out, '--force', '--data-source', ds);

    expect(run.code).toBe(1);
    expect(run.summary.failures.map((f: { code: string }) => f.code)).toContain('REMOVAL_UNPROVEN');
    const dayFiles = (p: string) =>
      p.startsWith('costs/') || p.includes('focus/') || p.startsWith('_manifests/costs/');
    expect([...before.keys()].filter(dayFiles).length).toBeGreaterThan(0);
    expect(changedFiles(before, await snapshotDir(out)).filter(dayFiles)).toEqual([]);
  });

  it('{} from data-source-account/list never strips the workspace from routed rows', async () => {
    const out = join(dir, 'empty-links');
    expect((await costs(out)).code).toBe(0);
    const routed = sim
      .dataSourceIds()
      .find((id) => sim.costRows(id, FROM).some((r) => String(r.workspace_id).startsWith('v-workspace-')));
    expect(routed).toBeDefined();
    const before = await snapshotDir(out);
    sim.injectFault({
      path: '/cost-analysis/data-source-account/list',
      kind: 'empty',
      times: Number.POSITIVE_INFINITY,
    });

    const run = await costs(out, '--force', '--data-source', routed!);

    expect(run.code).toBe(1);
    expect(run.summary.failures.map((f: { code: string }) => f.code)).toContain('ACCOUNT_LINKS_MISSING');
    const dayFiles = (p: string) => p.startsWith('costs/') || p.startsWith('_manifests/costs/');
    expect(changedFiles(before, await snapshotDir(out)).filter(dayFiles)).toEqual([]);
  });

  it('a healthy rerun after the faults is exact', async () => {
    const out = join(dir, 'empty-everywhere');
    const run = await costs(out, '--force');

    expect(run.code).toBe(0);
    const [ds] = sim.dataSourceIds() as [string];
    const { rows } = await queryDuckDB(
      `SELECT count(*) AS n, sum(cost) AS s FROM read_parquet('${join(out, 'costs')}/**/${ds}.parquet')`,
    );
    const truth = [FROM, `${MONTH_2}-02`, TO].map((d) => sim.costTruth(ds, d));
    expect(Number(rows[0]!.n)).toBe(truth.reduce((a, t) => a + t.rows, 0));
    expect(Number(rows[0]!.s)).toBeCloseTo(
      truth.reduce((a, t) => a + t.costSum, 0),
      6,
    );
  });
});
