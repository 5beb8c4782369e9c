// A restatement that fails between keeping the revision and committing the replacement (the store
// refuses the commit, as a crash there would leave it): the published object and its manifest stay
// as they were, the revision is already kept, and the rerun that replaces the day writes no second
// copy; the day then reads as of each time as it stood.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { readAsOf } from '../../../functions/lib/published/as-of.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH = monthBack(1);
const FROM = `${MONTH}-01`;
const TO = addDays(FROM, 2);
const DAY = addDays(FROM, 1);
const COSTS = { name: 'costs', partitionKey: 'billed_date', stampColumn: 'exported_at' };

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ seed: 77, dataSources: 1, from: FROM, to: TO, rowsPerDay: 8 });
  dir = await mkdtemp(join(tmpdir(), 'revision-crash-'));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** The directory, whose next commit of `key` is refused once (after everything before it was written). */
function refusingCommitOnce(root: string, key: string): Sink {
  const sink = dirSink(root);
  let refuse = true;
  return {
    ...sink,
    begin(target, contentType) {
      const upload = sink.begin(target, contentType);
      if (target !== key || !refuse) return upload;
      return {
        write: (chunk) => upload.write(chunk),
        abort: () => upload.abort(),
        commit: async () => {
          refuse = false;
          throw new Error(`the store refused the commit of ${target}`);
        },
      };
    },
  };
}

const run = (sink: Sink) =>
  runCostExport(
    {
      client: new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() }),
      sink,
      unitAttempts: 1,
    },
    { from: FROM, to: TO },
  );

const revisions = async () =>
  (await readdir(join(dir, 'costs_revisions', `billed_date=${DAY}`)).catch(() => [])).map(String).sort();

describe('a restatement stopped between its revision and its commit', () => {
  it('keeps the published day and its revision, then the rerun keeps no second copy', async () => {
    const [ds] = sim.dataSourceIds() as [string];
    const out = dirSink(dir);
    await run(out);
    const first = new Date();
    const before = {
      object: await out.readBytes(costObjectKey(ds, DAY)),
      manifest: await out.read(costManifestKey(ds, DAY)),
    };
    sim.resync(ds, DAY, { costFactor: 2 });

    const failed = await run(refusingCommitOnce(dir, costObjectKey(ds, DAY)));

    expect(failed.failed).toBe(1);
    expect(await out.readBytes(costObjectKey(ds, DAY))).toEqual(before.object);
    expect(await out.read(costManifestKey(ds, DAY))).toBe(before.manifest);
    const kept = await revisions();
    expect(kept).toHaveLength(1);
    expect(await out.readBytes(`costs_revisions/billed_date=${DAY}/${kept[0]}`)).toEqual(before.object);
    // Read as of now, the day is still the published one: its revision is the same object, read once.
    const now = await readAsOf(out, COSTS, new Date(), (p) => p.billed_date === DAY);
    const rows = JSON.parse(before.manifest!).rows as number;
    expect(rows).toBeGreaterThan(0);
    expect(now).toHaveLength(rows);

    const rerun = await run(out);
    const second = new Date();

    expect(rerun.failed).toBe(0);
    expect(await revisions()).toEqual(kept);
    const asFirst = await readAsOf(out, COSTS, first, (p) => p.billed_date === DAY);
    const asSecond = await readAsOf(out, COSTS, second, (p) => p.billed_date === DAY);
    const sum = (rows: ReadonlyArray<Record<string, unknown>>) =>
      rows.reduce((n, r) => n + Number(r.cost), 0);
    expect(asFirst).toHaveLength(rows);
    expect(sum(asSecond)).toBeCloseTo(2 * sum(asFirst), 3);
  }, 120_000);
});
