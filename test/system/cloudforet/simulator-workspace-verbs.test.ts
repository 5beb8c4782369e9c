// The simulator's workspace verbs as identity's WorkspaceService defines them: list for a domain
// app only; analyze for a domain app and a workspace owner, who sees only its own workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const ANALYZE = '/identity/workspace/analyze';
const BY_NAME = {
  query: {
    group_by: ['workspace_id', 'name', 'state'],
    fields: { n: { operator: 'count' } },
    sort: [{ key: 'name', desc: false }],
  },
};

let sim: Simulator;

async function post(path: string, body: unknown, token: string) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const token = (role: 'WORKSPACE_OWNER' | 'WORKSPACE_MEMBER', index: number) =>
  sim.issueToken({ role, workspaceId: sim.workspaceIds()[index]! });

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, workspaces: 3, cloudServices: 10 });
});
afterAll(() => sim.close());

describe('identity/workspace/analyze', () => {
  it("answers a workspace owner with its own workspace's id, name and state only", async () => {
    const { status, json } = await post(ANALYZE, BY_NAME, token('WORKSPACE_OWNER', 1));

    expect(status).toBe(200);
    expect(json).toEqual({
      results: [
        { workspace_id: sim.workspaceIds()[1], name: 'Données & Analytics / "Σ"', state: 'ENABLED', n: 1 },
      ],
    });
  });

  it('answers a domain app with every workspace', async () => {
    const { json } = await post(ANALYZE, BY_NAME, sim.issueToken());

    expect((json['results'] as { name: string }[]).map((r) => r.name)).toEqual([
      'Données & Analytics / "Σ"',
      'Platform',
      'Workspace 3 — 東京',
    ]);
  });

  it('refuses a workspace member with 403 ERROR_PERMISSION_DENIED', async () => {
    const { status, json } = await post(ANALYZE, BY_NAME, token('WORKSPACE_MEMBER', 0));

    expect(status).toBe(403);
    expect(json).toEqual({ detail: { code: 'ERROR_PERMISSION_DENIED', message: ' Permission denied.' } });
  });

  it('answers {results, more} when the query pages, without total_count', async () => {
    const paged = { query: { ...BY_NAME.query, page: { start: 1, limit: 2 } } };

    const { json } = await post(ANALYZE, paged, sim.issueToken());

    expect(Object.keys(json)).toEqual(['results', 'more']);
    expect(json['more']).toBe(true);
  });

  it('answers 400 ERROR_REQUIRED_PARAMETER without fields', async () => {
    const { status, json } = await post(ANALYZE, {}, token('WORKSPACE_OWNER', 0));

    expect(status).toBe(400);
    expect((json['detail'] as { code: string }).code).toBe('ERROR_REQUIRED_PARAMETER');
  });

  it('answers 500 ERROR_UNKNOWN for a top-level workspace_id (WorkspaceAnalyzeQuery has query only)', async () => {
    const { status, json } = await post(
      ANALYZE,
      { ...BY_NAME, workspace_id: sim.workspaceIds()[0] },
      sim.issueToken(),
    );

    expect(status).toBe(500);
    expect((json['detail'] as { code: string }).code).toBe('ERROR_UNKNOWN');
  });
});

describe('identity/workspace/list', () => {
  it('refuses a workspace owner with 403 ERROR_PERMISSION_DENIED', async () => {
    const { status, json } = await post('/identity/workspace/list', {}, token('WORKSPACE_OWNER', 0));

    expect(status).toBe(403);
    expect((json['detail'] as { code: string }).code).toBe('ERROR_PERMISSION_DENIED');
  });
});
