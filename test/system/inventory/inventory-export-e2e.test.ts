// The inventory Lambda handler end to end, invoked as Lambda would: simulator, s3rver, Secrets Manager.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/inventory-export.ts';
import { utcDay } from '../../../functions/lib/dates.ts';
import { inventoryTables } from '../../../functions/lib/tables/inventory.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { queryDuckDB, type Row, readWithArrow } from '../../../harness/parquet-readers.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { downloadPrefix } from '../../support/export-reader.ts';
import { expectNoSecret } from '../../support/log-capture.ts';

// A snapshot is always of today (Cloudforet lists its inventory only as it is now).
const DAY = utcDay(new Date());
const context = (id: string) => ({ awsRequestId: id, functionName: 'inventory-export' }) as Context;
/** The fields of a simulated cloud service these tests look at. */
interface ServiceRecord {
  cloud_service_id: string;
  name: string;
  cloud_service_group: string;
  cloud_service_type: string;
  instance_type?: string;
  instance_size?: number;
  ip_addresses?: string[];
  tags?: Record<string, Record<string, string>>;
  tag_keys?: Record<string, string[]>;
  reference: { resource_id: string; external_link: string };
  collection_info: { collector_id: string; last_collected_at: string };
  created_at: string;
  data: {
    hardware?: { core: number; memory: number };
    compute?: { instance_state: string; az: string; launched_at: string };
    os?: { os_type: string; os_distro: string };
    instances?: unknown[];
  };
}

/** Every row of every published object, keyed by table, read with Arrow. */
async function publishedRows(local: LocalAws, day: string): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const table of inventoryTables) {
    const key = `${PREFIX}/${table.name}/snapshot_date=${day}/domain.parquet`;
    out[table.name] = readWithArrow(await getObjectBytes(local.s3.client, BUCKET, key)).rows;
  }
  return out;
}

const serviceRecords = (local: LocalAws) =>
  local.simulator.cloudServiceRecords() as unknown as ServiceRecord[];

/** launched_at as UTC milliseconds, computed apart from the exporter: no zone means UTC. */
const utcMs = (value: string) => Date.parse(/Z|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);

describe('inventory export handler', () => {
  let local: LocalAws;
  let restoreEnv: () => void;
  let rows: Record<string, Row[]>;
  const logs: string[] = [];

  beforeAll(async () => {
    local = await startLocalAws({ seed: 21, cloudServices: 1500, workspaces: 2 });
    restoreEnv = local.applyEnv();
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      logs.push(String(chunk));
      return true;
    });
    await handler({ snapshotDate: DAY }, context('req-inv-1'));
    rows = await publishedRows(local, DAY);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    restoreEnv();
    await local.stop();
  });

  it('exports as many cloud services per provider/group/type as the source holds', () => {
    const counts = new Map<string, number>();
    for (const r of rows.cloud_services!) {
      const key = `${r.provider}/${r.cloud_service_group}/${r.cloud_service_type}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }

    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(local.simulator.cloudServiceTruth()));
    expect(new Set(rows.cloud_services!.map((r) => r.cloud_service_id)).size).toBe(
      rows.cloud_services!.length,
    );
  });

  it('maps a VM to typed convenience columns, flattened reference and collection_info, and JSON', () => {
    const vm = serviceRecords(local).find(
      (r) => r.cloud_service_group === 'EC2' && r.data.compute?.launched_at.includes('+'),
    )!;
    const { hardware, compute, os } = vm.data as Required<ServiceRecord['data']>;

    const row = rows.cloud_services!.find((r) => r.cloud_service_id === vm.cloud_service_id)!;

    expect(row).toMatchObject({
      name: vm.name,
      state: 'ACTIVE',
      instance_type: vm.instance_type,
      instance_size: vm.instance_size,
      cpu_cores: hardware.core,
      memory_gb: hardware.memory,
      instance_state: compute.instance_state,
      availability_zone: compute.az,
      launched_at: utcMs(compute.launched_at),
      os_type: os.os_type,
      os_distro: os.os_distro,
      reference_resource_id: vm.reference.resource_id,
      reference_external_link: vm.reference.external_link,
      collection_info_collector_id: vm.collection_info.collector_id,
      collection_info_last_collected_at: Date.parse(vm.collection_info.last_collected_at),
      created_at: Date.parse(vm.created_at),
      deleted_at: null,
    });
    expect(JSON.parse(String(row.data))).toEqual(vm.data);
    expect(JSON.parse(String(row.ip_addresses))).toEqual(vm.ip_addresses);
    expect(JSON.parse(String(row.tag_keys))).toEqual(vm.tag_keys);
  });

  it('reads a launched_at with no zone as UTC', () => {
    const vm = serviceRecords(local).find((r) => /T\d\d:\d\d:\d\d$/.test(r.data.compute?.launched_at ?? ''))!;

    const row = rows.cloud_services!.find((r) => r.cloud_service_id === vm.cloud_service_id)!;

    expect(row.launched_at).toBe(Date.parse(`${vm.data.compute!.launched_at}Z`));
  });

  it('keeps a security group data.instances in JSON and leaves the VM columns null', () => {
    const sg = serviceRecords(local).find(
      (r) => r.cloud_service_type === 'SecurityGroup' && (r.data.instances?.length ?? 0) > 1,
    )!;

    const row = rows.cloud_services!.find((r) => r.cloud_service_id === sg.cloud_service_id)!;

    expect(JSON.parse(String(row.data)).instances).toEqual(sg.data.instances);
    expect(row).toMatchObject({
      cpu_cores: null,
      memory_gb: null,
      launched_at: null,
      os_type: null,
      instance_type: null,
    });
    expect(row.ip_addresses).toBe('[]');
  });

  it("keeps tag keys with ':', '/', '.', spaces and non-ASCII inside the tags JSON", () => {
    const byId = new Map(rows.cloud_services!.map((r) => [r.cloud_service_id, r]));
    const records = serviceRecords(local);

    const keys = new Set(
      records.flatMap((r) => Object.values(r.tags ?? {}).flatMap((t) => Object.keys(t as object))),
    );

    expect([...keys]).toEqual(
      expect.arrayContaining(['team:cost-center', 'k8s.io/role', 'Owner Name', '팀']),
    );
    for (const r of records) expect(JSON.parse(String(byId.get(r.cloud_service_id)!.tags))).toEqual(r.tags);
  });

  it('agrees with DuckDB on every file, read as a hive-partitioned dataset', async () => {
    const { dir } = await downloadPrefix(local.s3.client, BUCKET, `${PREFIX}/`);
    const published = await publishedRows(local, DAY); // as they are now: another test may re-run the day

    for (const table of inventoryTables) {
      const glob = join(dir, table.name, '*', '*.parquet');
      const duck = await queryDuckDB(
        `SELECT * REPLACE (CAST(snapshot_date AS VARCHAR) AS snapshot_date) FROM read_parquet('${glob}', hive_partitioning = true)`,
      );
      const arrow = published[table.name]!.map((r) => ({ ...r, snapshot_date: DAY }));
      const normalised = duck.rows.map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.getTime() : v])),
      );
      expect(normalised, table.name).toEqual(arrow);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the declared column types and keeps snapshot_date out of the files', async () => {
    const { dir } = await downloadPrefix(local.s3.client, BUCKET, `${PREFIX}/`);
    const duckType = {
      string: 'VARCHAR',
      json: 'VARCHAR',
      double: 'DOUBLE',
      timestamp: 'TIMESTAMP WITH TIME ZONE',
    };

    for (const table of inventoryTables) {
      const path = join(dir, table.name, `snapshot_date=${DAY}`, 'domain.parquet');
      const { rows: described } = await queryDuckDB(
        `DESCRIBE SELECT * FROM read_parquet('${path}', hive_partitioning = false)`,
      );
      const schema = Object.fromEntries(described.map((r) => [r.column_name, r.column_type]));
      const declared = Object.fromEntries(
        table.columns.map((c) => [c.name, duckType[c.type as keyof typeof duckType]]),
      );
      expect(schema, table.name).toEqual(declared);
      expect(schema).not.toHaveProperty('snapshot_date');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('fills regions, data sources with currency, and accounts with is_sync', () => {
    expect(rows.regions!.length).toBe(2 * 10);
    expect(rows.data_sources!.map((r) => r.currency)).toEqual(expect.arrayContaining(['USD', 'KRW']));
    expect(
      rows.data_sources!.every((r) => typeof r.plugin_id === 'string' && JSON.parse(String(r.schedule))),
    ).toBe(true);
    expect(rows.data_source_accounts!.every((r) => r.is_sync === 'true' && r.v_workspace_id)).toBe(true);
  });

  it('writes a manifest per table under _manifests, after the data', async () => {
    const key = `${PREFIX}/_manifests/cloud_services/snapshot_date=${DAY}/domain.json`;

    const manifest = JSON.parse(Buffer.from(await getObjectBytes(local.s3.client, BUCKET, key)).toString());

    expect(manifest).toMatchObject({
      table: 'cloud_services',
      partition: DAY,
      scope: `domain ${local.simulator.domainId}`,
      key: `cloud_services/snapshot_date=${DAY}/domain.parquet`,
      rows: rows.cloud_services!.length,
      includeInactive: false,
      schemaVersion: 1,
    });
  });

  it('replaces the objects when the same day runs again: same keys, no duplicate rows', async () => {
    const before = await listKeys(local.s3.client, BUCKET, `${PREFIX}/`);

    const summary = await handler({ snapshotDate: DAY }, context('req-inv-2'));
    const after = await listKeys(local.s3.client, BUCKET, `${PREFIX}/`);
    const again = await publishedRows(local, DAY);
    const manifestKey = `${PREFIX}/_manifests/regions/snapshot_date=${DAY}/domain.json`;
    const manifest = JSON.parse(
      Buffer.from(await getObjectBytes(local.s3.client, BUCKET, manifestKey)).toString(),
    );

    const data = (keys: string[]) => keys.filter((k) => !k.startsWith(`${PREFIX}/ledger/`)).sort();
    const ledgerRows = (keys: string[]) => keys.length - data(keys).length;
    expect(data(after)).toEqual(data(before));
    expect(ledgerRows(after) - ledgerRows(before)).toBe(Object.keys(summary.tables).length);
    expect(again.cloud_services!.length).toBe(rows.cloud_services!.length);
    expect(summary.tables.cloud_services).toMatchObject({
      outcome: 'written',
      rows: rows.cloud_services!.length,
    });
    expect(manifest.runId).toBe('req-inv-2');
  });

  it('never logs the client secret', () => {
    expect(logs.length).toBeGreaterThan(3);
    expectNoSecret(logs, local.token);
  });
});
