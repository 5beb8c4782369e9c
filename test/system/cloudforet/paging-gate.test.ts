// Units page `concurrency` at once (pool.ts Gate: costs/run.ts holds a place for a unit from its
// start to its last page, export/listing-export.ts says when that came); one more may publish.
// A place counts a unit, not a page: a unit pages its day in COST_ID_SPLIT.length + 1 ranges of
// ids at once, one page in flight each. Against the simulator: however the units overlap, no more
// cost pages are asked at once than the concurrency times the ranges of a unit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { COST_ID_SPLIT } from '../../../functions/lib/costs/days/export-day.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { Gate } from '../../../functions/lib/pool.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

describe('Gate', () => {
  it('lets `size` in, then the others in the order they asked, each place freed once', async () => {
    const gate = new Gate(2);
    const order: string[] = [];
    const a = await gate.enter();
    const b = await gate.enter();
    const entered = (name: string) =>
      gate.enter().then((leave) => {
        order.push(name);
        return leave;
      });
    const c = entered('c');
    const d = entered('d');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual([]);
    a();
    a(); // a second call frees nothing more
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['c']);
    b();
    expect(await Promise.all([c, d]).then(() => order)).toEqual(['c', 'd']);
  });
});

describe('units paging at once', () => {
  const from = `${monthBack(1)}-03`;
  const to = `${monthBack(1)}-06`;
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 3,
      dataSources: 2,
      from,
      to,
      rowsPerDay: 2_500,
      exactRowsPerDay: true,
    });
    sim.setLatency(20);
    dir = await mkdtemp(join(tmpdir(), 'gate-'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("never has more cost pages asked at once than the concurrency times a unit's ranges, and exports every unit", async () => {
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent({ connect: { timeout: 2_000 } }),
    });
    let inFlight = 0;
    let most = 0;
    const receive = client.receive.bind(client);
    client.receive = ((path: string, body: Record<string, unknown>, opts) => {
      const answer = receive(path, body, opts);
      if (path !== '/cost-analysis/cost/list') return answer;
      most = Math.max(most, ++inFlight);
      return answer.finally(() => inFlight--);
    }) as typeof client.receive;

    const summary = await runCostExport(
      { client, sink: dirSink(dir), concurrency: 2, unifiedCosts: false, focus: false },
      { from, to },
    );

    expect(summary).toMatchObject({ written: 8, failed: 0, rows: 8 * 2_500 });
    // Two places, two ranges of ids a unit: four pages at once, never more.
    expect(COST_ID_SPLIT).toHaveLength(1);
    expect(most).toBe(2 * 2);
    expect(inFlight).toBe(0);
  });
});
