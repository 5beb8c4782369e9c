// The simulator's inventory verbs against its own ground truth: hidden retired resources,
// the 1,000-row cap, get-only metadata, nested tags and per-workspace regions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const SERVICES = '/inventory/cloud-service/list';

let sim: Simulator;
let token: string;

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

const results = (json: Record<string, unknown>) => (json['results'] ?? []) as Record<string, unknown>[];

async function listAll(query: object = {}): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let start = 1; ; start += 1000) {
    const page = results(
      await post(SERVICES, { query: { ...query, sort: [{ key: 'cloud_service_id' }], page: { start } } }),
    );
    rows.push(...page);
    if (page.length < 1000) return rows;
  }
}

beforeAll(async () => {
  sim = await startSimulator({ cloudServices: 2_500, workspaces: 3 });
  token = sim.issueToken();
});
afterAll(() => sim.close());

describe('cloud-service/list', () => {
  it('hides retired resources unless the query filters on state', async () => {
    const hidden = await post(SERVICES, { query: { count_only: true } });
    const shown = await post(SERVICES, {
      query: { count_only: true, filter: [{ k: 'state', v: 'ACTIVE', o: 'not' }] },
    });

    expect(hidden).toEqual({ total_count: 2250 });
    expect(shown).toEqual({ total_count: 250 });
  });

  it('caps a page at 1,000 rows', async () => {
    const json = await post(SERVICES, { query: { page: { start: 2001, limit: 5000 } } });

    expect(results(json)).toHaveLength(250);
    expect(json['total_count']).toBe(2250);
  });

  it('pages exactly the records cloudServiceRecords reports', async () => {
    const rows = await listAll({
      filter: [{ k: 'state', v: ['ACTIVE', 'DELETED', 'DISCONNECTED'], o: 'in' }],
    });

    expect(rows).toEqual(sim.cloudServiceRecords({ includeInactive: true }));
  });

  it('counts per provider/group/type as cloudServiceTruth does', async () => {
    const counts = new Map<string, number>();

    for (const r of await listAll()) {
      const key = `${r['provider']}/${r['cloud_service_group']}/${r['cloud_service_type']}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }

    expect(counts).toEqual(sim.cloudServiceTruth());
  });

  it('leaves metadata out of list answers and puts it in get', async () => {
    const [first] = results(await post(SERVICES, { query: { page: { limit: 1 } } }));

    const got = await post('/inventory/cloud-service/get', { cloud_service_id: first!['cloud_service_id'] });

    expect('metadata' in first!).toBe(false);
    expect(got['metadata']).toBeTypeOf('object');
    expect({ ...got, metadata: undefined }).toEqual({ ...first, metadata: undefined });
  });

  it('nests tags and tag_keys by provider', async () => {
    const [vm] = results(
      await post(SERVICES, {
        query: { filter: [{ k: 'tags.aws.Name', v: true, o: 'exists' }], page: { limit: 1 } },
      }),
    );

    const tags = vm!['tags'] as Record<string, Record<string, string>>;
    expect(Object.keys(tags)).toEqual(['aws']);
    expect((vm!['tag_keys'] as Record<string, string[]>)['aws']).toEqual(Object.keys(tags['aws']!));
  });

  it('filters VMs on dotted data keys', async () => {
    const filter = [{ k: 'data.hardware.core', v: 8, o: 'gte' }];

    const rows = await listAll({ filter });

    const expected = sim
      .cloudServiceRecords()
      .filter((r) => ((r['data'] as { hardware?: { core: number } }).hardware?.core ?? 0) >= 8);
    expect(rows.map((r) => r['cloud_service_id'])).toEqual(expected.map((r) => r['cloud_service_id']));
  });

  it('carries some data values longer than 10 KB', () => {
    const long = sim
      .cloudServiceRecords()
      .filter((r) =>
        Object.values(r['data'] as object).some((v) => typeof v === 'string' && v.length > 10_000),
      );

    expect(long.length).toBeGreaterThan(0);
  });
});

describe('region/list', () => {
  it('holds each region once per workspace', async () => {
    const json = await post('/inventory/region/list', {
      query: { filter: [{ k: 'region_code', v: 'us-east-1', o: 'eq' }] },
    });

    expect(
      results(json)
        .map((r) => r['workspace_id'])
        .sort(),
    ).toEqual([...sim.workspaceIds()].sort());
    expect(results(json).map((r) => r['region_key'])).toEqual([
      'aws.us-east-1',
      'aws.us-east-1',
      'aws.us-east-1',
    ]);
  });
});

describe('cost-analysis catalogue', () => {
  it('lists every data source with its currency where the plugin names one', async () => {
    const json = await post('/cost-analysis/data-source/list', {});

    const currencies = Object.fromEntries(
      results(json).map((d) => [
        d['provider'],
        (d['plugin_info'] as { metadata: { currency?: string } }).metadata.currency,
      ]),
    );
    expect(currencies).toEqual({ aws: 'USD', google_cloud: 'KRW', azure: undefined });
  });

  it('maps one routed account to no workspace', async () => {
    const json = await post('/cost-analysis/data-source-account/list', {});

    const unlinked = results(json).filter((a) => !('workspace_id' in a));
    expect(unlinked).toHaveLength(1);
    expect(String(unlinked[0]!['v_workspace_id'])).toMatch(/^v-workspace-[0-9a-f]{12}$/);
  });
});
