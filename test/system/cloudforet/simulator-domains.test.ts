// One simulated endpoint serving several domains: each app's token names its domain, that domain's
// key verifies it, and every verb answers that domain's records alone (data sources, workspaces,
// cost rows, cost reports, identity); a workspace app of one domain sees its workspace alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DomainsSimulator,
  type Simulator,
  startDomainsSimulator,
  startSimulator,
} from '../../../harness/simulator/index.ts';

const FROM = '2026-03-01';
const TO = '2026-03-03';

let endpoint: DomainsSimulator;
let acme: Simulator;
let beta: Simulator;

async function post(path: string, body: unknown, token?: string) {
  const res = await fetch(`${endpoint.url}${path}`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
const results = (json: Record<string, unknown>) => (json.results ?? []) as Record<string, unknown>[];

beforeAll(async () => {
  endpoint = await startDomainsSimulator({
    domains: [
      { seed: 31, dataSources: 2, workspaces: 2, from: FROM, to: TO, rowsPerDay: 5 },
      { seed: 32, dataSources: 3, workspaces: 3, from: FROM, to: TO, rowsPerDay: 4 },
    ],
  });
  [acme, beta] = endpoint.domains as [Simulator, Simulator];
});
afterAll(() => endpoint.close());

describe('a simulator of several domains', () => {
  it('gives each domain its own id, data sources and workspaces, all at one url', () => {
    expect(acme.url).toBe(endpoint.url);
    expect(beta.url).toBe(endpoint.url);
    expect(acme.domainId).not.toBe(beta.domainId);
    expect(endpoint.domain(beta.domainId)).toBe(beta);
    expect(acme.dataSourceIds()).toHaveLength(2);
    expect(beta.dataSourceIds()).toHaveLength(3);
    expect(acme.dataSourceIds().filter((id) => beta.dataSourceIds().includes(id))).toEqual([]);
    expect(acme.workspaceIds().filter((id) => beta.workspaceIds().includes(id))).toEqual([]);
  });

  it("answers each domain app's data-source and workspace lists with its own domain's alone", async () => {
    for (const sim of [acme, beta]) {
      const sources = await post('/cost-analysis/data-source/list', {}, sim.issueToken());
      const workspaces = await post('/identity/workspace/list', {}, sim.issueToken());

      expect(
        results(sources.json)
          .map((r) => r.data_source_id)
          .sort(),
      ).toEqual(sim.dataSourceIds());
      expect(
        results(workspaces.json)
          .map((r) => r.workspace_id)
          .sort(),
      ).toEqual(sim.workspaceIds().sort());
      expect(new Set(results(workspaces.json).map((r) => r.domain_id))).toEqual(new Set([sim.domainId]));
    }
  });

  it("lists a domain's cost rows with its token and refuses its data source to the other domain", async () => {
    const [source] = beta.dataSourceIds();
    const query = { data_source_id: source, query: { filter: [{ k: 'billed_date', v: FROM, o: 'eq' }] } };

    const own = await post('/cost-analysis/cost/list', query, beta.issueToken());
    const other = await post('/cost-analysis/cost/list', query, acme.issueToken());

    expect(results(own.json)).toEqual(beta.costRows(source!, FROM));
    expect(results(own.json).length).toBeGreaterThan(0);
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.json)).toContain('ERROR_NOT_FOUND');
  });

  it("keeps each domain's cost reports its own", async () => {
    const made = acme.runCostReportJob('2026-03', 'DONE');

    const acmeReports = await post('/cost-analysis/cost-report/list', {}, acme.issueToken());
    const betaReports = await post('/cost-analysis/cost-report/list', {}, beta.issueToken());

    expect(made.length).toBeGreaterThan(0);
    expect(results(acmeReports.json).map((r) => r.cost_report_id)).toEqual(made.map((r) => r.cost_report_id));
    expect(results(betaReports.json)).toEqual([]);
    expect(beta.costReportTruth().reports).toEqual([]);
  });

  it("answers a workspace app beside the domain apps with its one workspace's records", async () => {
    const workspaceId = beta.workspaceIds()[1]!;
    const token = beta.issueToken({ role: 'WORKSPACE_OWNER', workspaceId });

    const projects = await post('/identity/project/list', {}, token);

    expect(results(projects.json).length).toBeGreaterThan(0);
    expect(results(projects.json)).toEqual(beta.records('projects', workspaceId));
  });

  it('answers get-public-key as identity does to a caller without a system token: ERROR_UNKNOWN', async () => {
    const tokenless = await post('/identity/domain/get-public-key', { domain_id: acme.domainId });
    const app = await post(
      '/identity/domain/get-public-key',
      { domain_id: acme.domainId },
      acme.issueToken(),
    );

    for (const answer of [tokenless, app]) {
      expect(answer.status).toBe(500);
      expect(answer.json).toEqual({ detail: { code: 'ERROR_UNKNOWN', message: ' Invalid System Token' } });
    }
  });

  it('answers a token of a domain it does not serve as Cloudforet does: that domain not found', async () => {
    const elsewhere = await startSimulator({ seed: 33, dataSources: 1, from: FROM, to: TO });
    try {
      const stranger = await post('/cost-analysis/data-source/list', {}, elsewhere.issueToken());

      expect(stranger.status).toBe(404);
      expect(stranger.json).toEqual({
        detail: {
          code: 'ERROR_NOT_FOUND',
          message: ` Resource cannot be found or access is denied. (domain_id = ${elsewhere.domainId})`,
        },
      });
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses a token signed with another key for a domain it serves: 401', async () => {
    const forged = await post('/cost-analysis/data-source/list', {}, acme.issueToken({ badSignature: true }));

    expect(forged.status).toBe(401);
    expect(JSON.stringify(forged.json)).toContain('ERROR_AUTHENTICATE_FAILURE');
  });

  it("applies a domain's injected faults and logs its requests to that domain alone", async () => {
    acme.resetRequestLog();
    beta.resetRequestLog();
    acme.injectFault({ path: '/cost-analysis/data-source/list', kind: '503' });

    const first = await post('/cost-analysis/data-source/list', {}, beta.issueToken());
    const second = await post('/cost-analysis/data-source/list', {}, acme.issueToken());

    expect([first.status, second.status]).toEqual([200, 503]);
    expect(acme.requests.map((r) => r.status)).toEqual([503]);
    expect(beta.requests.map((r) => r.status)).toEqual([200]);
  });

  it('refuses two domains with one seed, which would be one domain twice', async () => {
    await expect(startDomainsSimulator({ domains: [{ seed: 4 }, { seed: 4 }] })).rejects.toThrow(
      /each domain needs its own seed; repeated: 4/,
    );
  });
});
