// The archive rule, table by table: each kind of non-answer (`{}`, an error body in a 200,
// `"results": null`, an HTML page) from the verb that feeds a table leaves that table's published
// objects and manifests byte for byte, whichever table it is. The verbs come from the tables'
// own source lists (inventorySources), so a new table is in the matrix without a line here.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { runInventoryExport } from '../../../functions/lib/inventory/run.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type InventorySource, inventorySources } from '../../../functions/lib/tables/inventory.ts';
import { type FaultKind, type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { monthBack } from '../../support/months.ts';
import { changedFiles, snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_2 = monthBack(2);
const DAY = `${MONTH_2}-02`;
const KINDS: readonly FaultKind[] = ['empty', 'detail', 'null-results', 'badjson'];

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 67,
    dataSources: 2,
    workspaces: 2,
    from: `${MONTH_2}-01`,
    to: DAY,
    rowsPerDay: 10,
  });
  ({ dir } = await appFolder('non-answer-matrix', sim.issueToken()));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** Retries without waits: the matrix is about what stays, not about the backoff. */
const client = () =>
  new CloudforetClient({
    endpoint: sim.url,
    token: sim.issueToken(),
    dispatcher: new Agent(),
    sleep: async () => {},
  });

async function inventory(out: string, sources: readonly InventorySource[]) {
  const credential = { domainId: sim.domainId, workspaceId: '*' };
  const summary = await runInventoryExport(
    { client: client(), sink: dirSink(out), credential, sources },
    { snapshotDate: DAY },
  );
  return summary.failures.length === 0 ? 0 : 1;
}

/** 0: the run exported everything; 1: it failed units, or failed whole before any (planning). */
async function costs(out: string, force = false) {
  const summary = await runCostExport(
    { client: client(), sink: dirSink(out) },
    { from: DAY, to: DAY, force },
  ).catch(() => undefined);
  return summary?.failed === 0 ? 0 : 1;
}

/** The published files of a table: its objects and its manifests (the ledger appends, by design). */
const ofTable = (table: string) => (p: string) =>
  p.startsWith(`${table}/`) || p.startsWith(`_manifests/${table}/`);

describe('every table keeps its published bytes when its verb answers no answer', () => {
  const cases = inventorySources.flatMap((s) =>
    KINDS.map((kind) => [s.table.name, s.list.path, kind, s] as const),
  );

  it.each(cases)('%s (%s answering %s)', async (table, path, kind, source) => {
    const out = join(dir, `${table}-${kind}`);
    expect(await inventory(out, [source])).toBe(0);
    const before = await snapshotDir(out);
    expect([...before.keys()].filter(ofTable(table)).length).toBeGreaterThan(0);
    sim.injectFault({ path, kind, times: Number.POSITIVE_INFINITY });

    const code = await inventory(out, [source]).finally(() => sim.clearFaults());

    expect(changedFiles(before, await snapshotDir(out)).filter(ofTable(table))).toEqual([]);
    // `{}` is an empty list to Cloudforet: kept with a warning (exit 0); the others fail loudly.
    expect(code).toBe(kind === 'empty' ? 0 : 1);
  });

  it.each(KINDS.map((kind) => [kind] as const))(
    'costs, focus and unified costs (cost verbs answering %s)',
    async (kind) => {
      const out = join(dir, `costs-${kind}`);
      expect(await costs(out)).toBe(0);
      const before = await snapshotDir(out);
      for (const path of [
        '/cost-analysis/cost/list',
        '/cost-analysis/cost/analyze',
        '/cost-analysis/unified-cost/list',
      ])
        sim.injectFault({ path, kind, times: Number.POSITIVE_INFINITY });

      const code = await costs(out, true).finally(() => sim.clearFaults());

      const changed = changedFiles(before, await snapshotDir(out));
      for (const table of ['costs', 'focus', 'unified_costs'])
        expect(changed.filter(ofTable(table))).toEqual([]);
      expect(code).toBe(1);
    },
  );
});
