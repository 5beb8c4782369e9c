// How the simulator's gateway judges requests: unknown fields, required parameters, tokens,
// roles and workspace scope, as Cloudforet does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const COST_LIST = '/cost-analysis/cost/list';

let sim: Simulator;
let admin: string;
let ds: string;

async function post(path: string, body: unknown, token = admin, raw?: string) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const code = (json: Record<string, unknown>) => (json['detail'] as { code?: string } | undefined)?.code;
const results = (json: Record<string, unknown>) => (json['results'] ?? []) as Record<string, unknown>[];

beforeAll(async () => {
  sim = await startSimulator({
    from: '2024-03-01',
    to: '2024-03-03',
    rowsPerDay: 100,
    exactRowsPerDay: true,
  });
  admin = sim.issueToken();
  ds = sim.dataSourceIds()[0]!;
});
afterAll(() => sim.close());

describe('request validation', () => {
  it('answers 500 ERROR_UNKNOWN for an unknown top-level field', async () => {
    const { status, json } = await post(COST_LIST, { data_source_id: ds, page_size: 10 });

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_UNKNOWN');
  });

  it('answers 500 ERROR_UNKNOWN for an unknown query field', async () => {
    const { status, json } = await post(COST_LIST, { data_source_id: ds, query: { limit: 10 } });

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_UNKNOWN');
  });

  it('answers 500 ERROR_UNKNOWN for a body that is not JSON', async () => {
    const { status, json } = await post(COST_LIST, undefined, admin, 'data_source_id=x');

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_UNKNOWN');
  });

  it('answers 500 ERROR_UNKNOWN for a sort that is not a list', async () => {
    const { status, json } = await post(COST_LIST, {
      data_source_id: ds,
      query: { sort: { key: 'cost_id' } },
    });

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_UNKNOWN');
  });

  it('ignores a top-level billed_date', async () => {
    const { json } = await post(COST_LIST, {
      data_source_id: ds,
      billed_date: '2024-03-01',
      query: { count_only: true },
    });

    expect(json).toEqual({ total_count: 300 });
  });

  it('answers 400 ERROR_REQUIRED_PARAMETER without data_source_id', async () => {
    const { status, json } = await post(COST_LIST, { query: {} });

    expect(status).toBe(400);
    expect(json).toEqual({
      detail: { code: 'ERROR_REQUIRED_PARAMETER', message: ' Required parameter. (key = data_source_id)' },
    });
  });

  it('answers 404 ERROR_NOT_FOUND for an unknown data source', async () => {
    const { status, json } = await post(COST_LIST, { data_source_id: 'ds-000000000000' });

    expect(status).toBe(404);
    expect(code(json)).toBe('ERROR_NOT_FOUND');
  });

  it('answers 500 ERROR_UNSUPPORTED_API for an unknown three-segment path', async () => {
    const { status, json } = await post('/cost-analysis/cost/export', {});

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_UNSUPPORTED_API');
  });

  it('answers 404 Not Found for other paths', async () => {
    const { status, json } = await post('/v1/cost-analysis/cost/list', {});

    expect(status).toBe(404);
    expect(json).toEqual({ detail: 'Not Found' });
  });

  it('answers 400 ERROR_OPERATOR_LIST_VALUE_TYPE for in with a scalar', async () => {
    const query = { filter: [{ k: 'provider', v: 'aws', o: 'in' }] };

    const { status, json } = await post(COST_LIST, { data_source_id: ds, query });

    expect(status).toBe(400);
    expect(code(json)).toBe('ERROR_OPERATOR_LIST_VALUE_TYPE');
  });

  it('answers 500 ERROR_DB_QUERY for an unknown operator', async () => {
    const query = { filter: [{ k: 'provider', v: 'aws', o: 'like' }] };

    const { status, json } = await post(COST_LIST, { data_source_id: ds, query });

    expect(status).toBe(500);
    expect(code(json)).toBe('ERROR_DB_QUERY');
  });

  it('answers 500 for a filter spelling key both ways', async () => {
    const query = { filter: [{ k: 'provider', key: 'provider', v: 'aws', o: 'eq' }] };

    const { status } = await post(COST_LIST, { data_source_id: ds, query });

    expect(status).toBe(500);
  });

  it('filters on dotted keys and date ranges', async () => {
    const query = {
      filter: [
        { key: 'billed_date', value: '2024-03-02', operator: 'gte' },
        { key: 'tags.team', value: 'platform', operator: 'eq' },
      ],
    };

    const { json } = await post(COST_LIST, { data_source_id: ds, query });

    const expected = ['2024-03-02', '2024-03-03']
      .flatMap((d) => sim.costRows(ds, d))
      .filter((r) => (r['tags'] as Record<string, string> | undefined)?.['team'] === 'platform');
    expect(expected.length).toBeGreaterThan(0);
    expect(json['total_count']).toBe(expected.length);
  });
});

describe('authentication and scope', () => {
  it.each([
    ['missing', ''],
    ['malformed', 'not-a-jwt'],
    ['expired', 'expired'],
    ['badly signed', 'bad'],
  ])('answers 401 ERROR_AUTHENTICATE_FAILURE for a %s token', async (_, kind) => {
    const token =
      kind === 'expired'
        ? sim.issueToken({ expiresInSeconds: -60 })
        : kind === 'bad'
          ? sim.issueToken({ badSignature: true })
          : kind;

    const { status, json } = await post('/cost-analysis/data-source/list', {}, token);

    expect(status).toBe(401);
    expect(code(json)).toBe('ERROR_AUTHENTICATE_FAILURE');
  });

  it('answers 403 for identity/workspace/list with a workspace token', async () => {
    const member = sim.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId: sim.workspaceIds()[0]! });

    const { status, json } = await post('/identity/workspace/list', {}, member);

    expect(status).toBe(403);
    expect(code(json)).toBe('ERROR_PERMISSION_DENIED');
  });

  it('lists workspaces for a domain token', async () => {
    const { json } = await post('/identity/workspace/list', {});

    expect(results(json).map((w) => w['workspace_id'])).toEqual(sim.workspaceIds());
  });

  it('shows a workspace token only the cost rows of its workspace, virtual ones included', async () => {
    const routed = sim
      .dataSourceIds()
      .find((id) => sim.costRows(id, '2024-03-01')[0]?.['workspace_id']?.toString().startsWith('v-'))!;
    const workspaceId = sim.workspaceIds()[1]!;
    const owner = sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId });
    const accounts = results(
      (await post('/cost-analysis/data-source-account/list', { data_source_id: routed })).json,
    );
    const mine = new Set(
      accounts.filter((a) => a['workspace_id'] === workspaceId).map((a) => a['v_workspace_id']),
    );

    const { json } = await post(
      COST_LIST,
      { data_source_id: routed, query: { filter: [{ k: 'billed_date', v: '2024-03-01', o: 'eq' }] } },
      owner,
    );

    const expected = sim.costRows(routed, '2024-03-01').filter((r) => mine.has(r['workspace_id']));
    expect(expected.length).toBeGreaterThan(0);
    expect(json['total_count']).toBe(expected.length);
    expect(results(json).every((r) => mine.has(r['workspace_id']))).toBe(true);
  });

  it('shows a workspace token only the cloud services of its workspace', async () => {
    const workspaceId = sim.workspaceIds()[0]!;
    const member = sim.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId });

    const { json } = await post('/inventory/cloud-service/list', { query: { count_only: true } }, member);

    expect(json['total_count']).toBe(sim.cloudServiceRecords({ workspaceId }).length);
  });
});
