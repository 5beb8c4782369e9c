// The inventory run over a scripted list source on loopback HTTP and a directory sink: drift redone, bounded row
// groups, empty tables removed, failures contained.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { type InventoryRunDeps, runInventoryExport } from '../../../functions/lib/inventory/run.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { exportTables } from '../../../functions/lib/tables/all-tables.ts';
import { inventoryTables } from '../../../functions/lib/tables/inventory.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';

type Body = {
  query: { page: { start: number; limit: number }; filter?: Array<{ k: string; v: unknown; o: string }> };
};
type Answer = { results?: Record<string, unknown>[]; total_count?: number };

const DAY = '2026-05-01';
const DOMAIN = { domainId: 'domain-000000000001', workspaceId: '*' };

const services = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    cloud_service_id: `cloud-svc-${String(i).padStart(12, '0')}`,
    state: 'ACTIVE',
    data: { hardware: { core: 2, memory: 8 } },
  }));

/**
 * A list source over loopback HTTP answering each verb from its records (1-based row offsets, at
 * most `limit` rows a page, `{}` for nothing; a keyset page's `<id> gt <last>` keeps the rows
 * after it, and total_count counts them), read by the real client; `tweak` changes answers.
 */
const servers: Server[] = [];
const dispatcher = new Agent({ connect: { timeout: 2_000 } });
async function listSource(
  tables: Record<string, Record<string, unknown>[]>,
  tweak?: (path: string, a: Answer) => Answer,
) {
  const calls: Array<{ path: string; body: Body }> = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    calls.push({ path, body });
    const after = body.query.filter?.find((c) => c.o === 'gt');
    const records = (tables[path] ?? []).filter((r) => !after || String(r[after.k]) > String(after.v));
    const { start, limit } = body.query.page;
    const answer: Answer =
      records.length === 0
        ? {}
        : { results: records.slice(start - 1, start - 1 + limit), total_count: records.length };
    const text = JSON.stringify(tweak ? tweak(path, answer) : answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new CloudforetClient({
    endpoint: `http://127.0.0.1:${port}`,
    token: 'test-token',
    dispatcher,
  });
  return { client, calls };
}

const CS = '/inventory/cloud-service/list';
const REGIONS = '/inventory/region/list';

describe('runInventoryExport', () => {
  afterAll(() => dispatcher.close());
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'inventory-run-'));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await rm(dir, { recursive: true, force: true });
  });

  const deps = (client: CloudforetClient, extra: Partial<InventoryRunDeps> = {}): InventoryRunDeps => ({
    client,
    sink: dirSink(dir),
    credential: DOMAIN,
    ...extra,
  });
  const rowsOf = async (key: string) => readWithArrow(new Uint8Array(await readFile(join(dir, key)))).rows;

  it('redoes a table whose total_count moved while paging, publishing one consistent result', async () => {
    let drifted = false;
    const { client } = await listSource({ [CS]: services(2500) }, (path, answer) => {
      if (path !== CS || drifted || answer.results?.[0]?.cloud_service_id !== 'cloud-svc-000000001000')
        return answer;
      drifted = true;
      return { ...answer, total_count: 2501 };
    });

    const summary = await runInventoryExport(deps(client), { snapshotDate: DAY });

    expect(summary.unitRetries).toBe(1);
    expect(summary.tables.cloud_services).toMatchObject({ outcome: 'written', rows: 2500 });
    expect((await rowsOf(`cloud_services/snapshot_date=${DAY}/domain.parquet`)).length).toBe(2500);
  });

  it('fails a table that keeps drifting, leaves its previous object, and publishes the others', async () => {
    const first = await listSource({
      [CS]: services(1500),
      [REGIONS]: [{ region_id: 'region-000000000001' }],
    });
    await runInventoryExport(deps(first.client), { snapshotDate: DAY });
    const { client } = await listSource(
      { [CS]: services(2000), [REGIONS]: [{ region_id: 'region-000000000002' }] },
      (path, a) =>
        path === CS && a.results?.[0]?.cloud_service_id !== 'cloud-svc-000000000000'
          ? { ...a, total_count: 1999 }
          : a,
    );

    const summary = await runInventoryExport(deps(client, { unitAttempts: 2 }), { snapshotDate: DAY });

    expect(summary.failures).toEqual([
      expect.objectContaining({ table: 'cloud_services', code: 'PAGING_DRIFT', attempts: 2 }),
    ]);
    expect(summary.tables.cloud_services).toMatchObject({ outcome: 'failed', rows: 0 });
    expect((await rowsOf(`cloud_services/snapshot_date=${DAY}/domain.parquet`)).length).toBe(1500);
    expect((await rowsOf(`regions/snapshot_date=${DAY}/domain.parquet`))[0]!.region_id).toBe(
      'region-000000000002',
    );
  });

  it('writes cloud services in row groups of 10,000 rows', async () => {
    const { client } = await listSource({ [CS]: services(25_000) });

    await runInventoryExport(deps(client), { snapshotDate: DAY });
    const bytes = await readFile(join(dir, `cloud_services/snapshot_date=${DAY}/domain.parquet`));
    const metadata = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    );

    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([10_000, 10_000, 5_000]);
  });

  it('keeps the published snapshot of a table that then lists nothing: an empty answer proves nothing', async () => {
    await runInventoryExport(
      deps((await listSource({ [REGIONS]: [{ region_id: 'region-000000000001' }] })).client),
      {
        snapshotDate: DAY,
      },
    );
    const object = join(dir, `regions/snapshot_date=${DAY}/domain.parquet`);
    const before = await readFile(object);

    const summary = await runInventoryExport(deps((await listSource({})).client), { snapshotDate: DAY });
    const manifest = JSON.parse(
      await readFile(join(dir, `_manifests/regions/snapshot_date=${DAY}/domain.json`), 'utf8'),
    );

    expect(summary.tables.regions).toEqual({ outcome: 'kept', rows: 0, bytes: 0, key: null });
    expect(await readFile(object)).toEqual(before);
    expect(manifest).toMatchObject({
      table: 'regions',
      key: `regions/snapshot_date=${DAY}/domain.parquet`,
      rows: 1,
    });
  });

  it('writes no object for a table that lists nothing where none is published, and says so in its manifest', async () => {
    const day = '2026-10-09';

    const summary = await runInventoryExport(deps((await listSource({})).client), { snapshotDate: day });
    const manifest = JSON.parse(
      await readFile(join(dir, `_manifests/regions/snapshot_date=${day}/domain.json`), 'utf8'),
    );

    expect(summary.tables.regions).toEqual({ outcome: 'empty', rows: 0, bytes: 0, key: null });
    await expect(readFile(join(dir, `regions/snapshot_date=${day}/domain.parquet`))).rejects.toThrow(
      /ENOENT/,
    );
    expect(manifest).toMatchObject({ table: 'regions', key: null, rows: 0 });
  });

  it('sorts every list on its id and filters on state only with includeInactive', async () => {
    const plain = await listSource({});
    const inactive = await listSource({});

    await runInventoryExport(deps(plain.client), { snapshotDate: DAY });
    await runInventoryExport(deps(inactive.client), { snapshotDate: DAY, includeInactive: true });

    const sorts = Object.fromEntries(plain.calls.map((c) => [c.path, JSON.stringify(c.body.query)]));
    expect(sorts[CS]).toBe(
      '{"sort":[{"key":"cloud_service_id","desc":false}],"page":{"start":1,"limit":1000}}',
    );
    expect(sorts['/cost-analysis/data-source-account/list']).toContain(
      '[{"key":"data_source_id","desc":false},{"key":"account_id","desc":false}]',
    );
    expect(inactive.calls.find((c) => c.path === CS)!.body.query.filter).toEqual([
      { k: 'state', v: ['ACTIVE', 'DISCONNECTED', 'DELETED'], o: 'in' },
    ]);
    expect(inactive.calls.find((c) => c.path === REGIONS)!.body.query.filter).toBeUndefined();
  });

  it('registers every inventory table for the Glue catalogue', () => {
    const names = exportTables.map((t) => t.name);

    expect(names).toEqual(expect.arrayContaining(inventoryTables.map((t) => t.name)));
    // report_adjustments (a cost-report table) is snapshot-partitioned too: count only inventory's.
    const inventoryNames = new Set(inventoryTables.map((t) => t.name));
    const registered = exportTables.filter((t) => inventoryNames.has(t.name));
    expect(registered.map((t) => t.partitionKey)).toEqual(inventoryTables.map(() => 'snapshot_date'));
    expect(registered.length).toBe(12);
  });
});
