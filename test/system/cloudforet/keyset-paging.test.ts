// Keyset paging of cost/list against the simulator's model of MongoDB: a sorted page holds
// start - 1 + limit rows in a blocking sort, so offsets deep into a large day fail past the sort
// memory limit, while keyset pages (cost_id gt the last id, from row 1) hold one page each.
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { listPages } from '../../../functions/lib/cloudforet/pager.ts';
import { costDayRequest } from '../../../functions/lib/costs/days/export-day.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { runInventoryExport } from '../../../functions/lib/inventory/run.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { inventorySources } from '../../../functions/lib/tables/inventory.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_0 = monthBack(0);
const MONTH_2 = monthBack(2);

const DAY = `${MONTH_2}-14`;
const COST_LIST = '/cost-analysis/cost/list';
const dispatcher = new Agent({ connect: { timeout: 2_000 } });

describe('keyset paging of a large cost day', () => {
  let sim: Simulator;
  let dir: string;
  let client: CloudforetClient;
  let ds: string;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 8,
      dataSources: 1,
      from: DAY,
      to: DAY,
      rowsPerDay: 40_000,
      exactRowsPerDay: true,
    });
    sim.setSortLimit(20_000);
    dir = await mkdtemp(join(tmpdir(), 'keyset-'));
    client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher,
      retry: { attempts: 1 },
    });
    ds = sim.dataSourceIds()[0]!;
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('(e) exports a 40,000-row day under a 20,000-row sort limit; the server never sorts more than 1,000', async () => {
    sim.resetRequestLog();

    const summary = await runCostExport({ client, sink: dirSink(dir) }, { from: DAY, to: DAY });

    expect(summary).toMatchObject({ written: 1, failed: 0, rows: 40_000, unitRetries: 0 });
    const pages = sim.requests.filter((r) => r.path === COST_LIST);
    // Two ranges of ids paged at once (COST_ID_SPLIT), each ending in a page of fewer than 1,000.
    expect(pages).toHaveLength(41);
    expect(Math.max(...pages.map((r) => r.sortHeld ?? 0))).toBe(1_000);
    expect(pages.every((r) => r.examined === 40_000)).toBe(true);
  });

  it('offset paging of the same day fails once the offset passes the sort limit, as MongoDB does', async () => {
    const offsets = { ...costDayRequest(ds, DAY), keyset: false };
    let rows = 0;

    const error = await (async () => {
      for await (const page of listPages(client, offsets)) rows += page.length;
    })().catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'CLOUDFORET_ERROR_DB_QUERY' });
    expect(rows).toBeLessThanOrEqual(20_000);
    const held = sim.requests.filter((r) => r.path === COST_LIST && r.status === 500).map((r) => r.sortHeld);
    expect(Math.min(...(held as number[]))).toBeGreaterThan(20_000);
    // Pages asked ahead were aborted by the client, but the server logs them when it has answered:
    // wait until it has, so that no record of this test lands in the next one's log.
    await quiet(sim);
  });

  it('asks each keyset page after the last id of the page before, from row 1, in two ranges at once', async () => {
    sim.resetRequestLog();
    const pages: string[][] = [];

    for await (const page of listPages(client, costDayRequest(ds, DAY))) {
      pages.push(page.map((row) => String(row.cost_id)));
    }

    const bodies = sim.requests
      .filter((r) => r.path === COST_LIST)
      .map((r) => r.body as { query: { page: { start: number; limit: number }; filter: unknown[] } });
    const ids = pages.flat();
    expect(ids).toHaveLength(40_000);
    expect(new Set(ids).size).toBe(40_000);
    expect(bodies.every((b) => b.query.page.start === 1 && b.query.page.limit === 1_000)).toBe(true);
    const day = { k: 'billed_date', v: DAY, o: 'eq' };
    const below = { k: 'cost_id', v: 'cost-8', o: 'lt' };
    const from = { k: 'cost_id', v: 'cost-8', o: 'gte' };
    // Both ranges' first pages leave at once, before any page has come.
    expect(bodies.slice(0, 2).map((b) => b.query.filter)).toEqual(
      expect.arrayContaining([
        [day, below],
        [day, from],
      ]),
    );
    // Every page but each range's last is followed by a request after its last id, in its range.
    const low = pages.filter((p) => p[0]! < 'cost-8');
    const high = pages.filter((p) => p[0]! >= 'cost-8');
    expect(low.flat().every((id) => id < 'cost-8')).toBe(true);
    expect(high.flat().every((id) => id >= 'cost-8')).toBe(true);
    for (const [range, bound] of [
      [low, below],
      [high, from],
    ] as const) {
      for (const page of range.slice(0, -1)) {
        const after = { k: 'cost_id', v: page.at(-1), o: 'gt' };
        expect(bodies.map((b) => b.query.filter)).toContainEqual([day, bound, after]);
      }
      // Each range's ids ascend across its pages.
      const flat = range.flat();
      expect(flat).toEqual([...flat].sort());
    }
  });

  it("keeps the other range's page unparsed until its turn, its next page already asked for", async () => {
    // A page parsed early is held as objects (~3 MB a cost page) through the other range's page.
    let parsed = 0;
    const counting = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher });
    const receive = counting.receive.bind(counting);
    counting.receive = (async (...args: Parameters<typeof receive>) => {
      const pending = await receive(...args);
      const read = () => {
        parsed++;
        return pending.read();
      };
      return { ...pending, read };
    }) as typeof counting.receive;
    sim.resetRequestLog();
    const costPages = () => sim.requests.filter((r) => r.path === COST_LIST).length;
    const pages = listPages(counting, costDayRequest(ds, DAY))[Symbol.asyncIterator]();

    expect((await pages.next()).value).toHaveLength(1_000);
    // Both ranges' first pages came, and each range's second page has been asked for.
    await vi.waitFor(() => expect(costPages()).toBe(4));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(parsed).toBe(1);
    expect((await pages.next()).value).toHaveLength(1_000);
    expect(parsed).toBe(2);
    await pages.return(undefined);
  });

  it("writes each page's next request before the page is parsed and handed over", async () => {
    // undici writes a request on a reused keep-alive socket from a setImmediate: asked just before
    // a page's parse and encode, it left after them (~8 ms a page at 100 ms a page).
    const events: string[] = [];
    const sent = () => events.push('sent');
    const oneSocket = new Agent({ connect: { timeout: 2_000 }, connections: 1 });
    const logging = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: oneSocket,
    });
    const receive = logging.receive.bind(logging);
    logging.receive = (async (...args: Parameters<typeof receive>) => {
      const pending = await receive(...args);
      const read = () => {
        events.push('parsed');
        return pending.read();
      };
      return { ...pending, read };
    }) as typeof logging.receive;
    const oneRange = { ...costDayRequest(ds, DAY), split: undefined };
    diagnostics.subscribe('undici:client:sendHeaders', sent);
    try {
      let pages = 0;
      for await (const page of listPages(logging, oneRange)) {
        pages++;
        expect(page.length).toBeGreaterThan(0);
      }
      expect(pages).toBe(40);
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', sent);
      await oneSocket.close();
    }

    // Every page but the last: its next request written before it is parsed, so by the time the
    // k-th page is parsed, k + 1 requests have been written (one socket: no connect to wait for).
    let written = 0;
    let parsedPages = 0;
    for (const event of events) {
      if (event === 'sent') written++;
      if (event === 'parsed' && ++parsedPages < 40)
        expect(written, `page ${parsedPages}`).toBe(parsedPages + 1);
    }
    expect(written).toBe(40);
  });

  it('writes the pages asked ahead by offset before the page is handed over', async () => {
    // The offset listing asks its pages ahead after parsing a page (PAGES_AHEAD): they too must
    // leave before the caller's work on that page, not after it.
    const events: string[] = [];
    const sent = () => events.push('sent');
    const oneSocket = new Agent({ connect: { timeout: 2_000 }, connections: 1 });
    const offsets = { ...costDayRequest(ds, DAY), keyset: false };
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: oneSocket,
    });
    diagnostics.subscribe('undici:client:sendHeaders', sent);
    try {
      let handed = 0;
      for await (const page of listPages(client, offsets)) {
        expect(page).toHaveLength(1_000);
        events.push('handed');
        if (++handed === 8) break;
      }
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', sent);
      await oneSocket.close();
      await quiet(sim);
    }

    // When the k-th page is handed over, the request for page k + 1 has been written (one socket
    // and one request at a time on it: the page after that waits for this answer).
    let written = 0;
    let handed = 0;
    for (const event of events) {
      if (event === 'sent') {
        written++;
        continue;
      }
      handed++;
      expect(written, `page ${handed}`).toBeGreaterThanOrEqual(handed + 1);
    }
    expect(handed).toBe(8);
  });

  it('fails with drift when the rows left do not fall by exactly the rows received (a re-sync)', async () => {
    sim.resyncDuringPaging({ afterRequests: 3, dataSourceId: ds, date: DAY });

    const error = await (async () => {
      for await (const _ of listPages(client, costDayRequest(ds, DAY))) void _;
    })().catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'PAGING_DRIFT' });
    expect(String((error as Error).message)).toContain('rows after cost_id');
  });
});

describe('keyset paging of a large cloud-service inventory', () => {
  const CS_LIST = '/inventory/cloud-service/list';
  const SERVICES = 25_000;
  let sim: Simulator;
  let dir: string;
  let client: CloudforetClient;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, dataSources: 1, cloudServices: SERVICES });
    sim.setSortLimit(10_000);
    dir = await mkdtemp(join(tmpdir(), 'keyset-inventory-'));
    client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher,
      retry: { attempts: 1 },
    });
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports every active cloud service under a sort limit smaller than the listing; no sort holds more than a page', async () => {
    sim.resetRequestLog();
    const domain = { domainId: sim.domainId, workspaceId: '*' };

    const summary = await runInventoryExport(
      { client, sink: dirSink(dir), credential: domain },
      { snapshotDate: `${MONTH_0}-01` },
    );

    const active = [...sim.cloudServiceTruth().values()].reduce((a, b) => a + b, 0);
    expect(active).toBeGreaterThan(10_000);
    expect(summary.tables.cloud_services).toMatchObject({ outcome: 'written', rows: active });
    const pages = sim.requests.filter((r) => r.path === CS_LIST);
    expect(pages).toHaveLength(Math.ceil(active / 1_000));
    expect(Math.max(...pages.map((r) => r.sortHeld ?? 0))).toBe(1_000);
  });

  it('offset paging of the same listing fails once the offset passes the sort limit', async () => {
    const list = inventorySources.find((s) => s.table.name === 'cloud_services')!.list;
    let rows = 0;

    const error = await (async () => {
      for await (const page of listPages(client, { ...list, keyset: false })) rows += page.length;
    })().catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'CLOUDFORET_ERROR_DB_QUERY' });
    expect(rows).toBeLessThanOrEqual(10_000);
    await quiet(sim);
  });
});

/** Resolves once the simulator has logged no new request for 300 ms. */
async function quiet(sim: Simulator): Promise<void> {
  for (let seen = -1; seen !== sim.requests.length; ) {
    seen = sim.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
