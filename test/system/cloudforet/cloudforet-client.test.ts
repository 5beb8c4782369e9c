// The client and pager against the simulator over real HTTP. Every test has its own simulator,
// connection pool and record of backoff delays: nothing carries from one test to the next.
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages } from '../../../functions/lib/cloudforet/pager.ts';
import { CloudforetApiError, PagingDriftError } from '../../../functions/lib/errors.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

const DAY = '2026-09-10';
const EMPTY_DAY = '2026-09-20';
let dispatcher: Agent;
/** The backoff delays the current test's clients asked for (sleeps are skipped, not waited). */
let delays: number[];
beforeEach(() => {
  dispatcher = new Agent({ connect: { timeout: 2_000 } });
  delays = [];
});
afterEach(() => dispatcher.close());

function clientFor(
  sim: Simulator,
  token = sim.issueToken(),
  extra: Partial<ConstructorParameters<typeof CloudforetClient>[0]> = {},
) {
  return new CloudforetClient({
    endpoint: sim.url,
    token,
    dispatcher,
    credentialSource: "secret 'cloudforet/test'",
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...extra,
  });
}

function costDay(sim: Simulator, date: string, pageLimit?: number): ListRequest {
  return {
    path: '/cost-analysis/cost/list',
    params: { data_source_id: sim.dataSourceIds()[0] },
    filter: [{ k: 'billed_date', v: date, o: 'eq' }],
    idKey: 'cost_id',
    pageLimit,
  };
}

async function collect(pages: AsyncGenerator<ApiRecord[]>): Promise<ApiRecord[]> {
  const rows: ApiRecord[] = [];
  for await (const page of pages) rows.push(...page);
  return rows;
}

describe('paging against the simulator', () => {
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator({
      seed: 5,
      dataSources: 1,
      from: DAY,
      to: DAY,
      rowsPerDay: 2_500,
      exactRowsPerDay: true,
    });
  });
  afterEach(() => sim.close());

  it('pages 2,500 rows at row offsets 1, 1001, 2001 even when asking for 5,000 a page', async () => {
    const rows = await collect(listPages(clientFor(sim), costDay(sim, DAY, 5_000)));

    const starts = sim.requests.map(
      (r) => (r.body as { query: { page: { start: number } } }).query.page.start,
    );
    expect(rows).toHaveLength(2_500);
    expect(rows.map((r) => r.cost_id)).toEqual(
      sim.costRows(sim.dataSourceIds()[0]!, DAY).map((r) => r.cost_id),
    );
    expect(starts).toEqual([1, 1001, 2001]);
  });

  it('yields nothing for a day with no rows ({} from the server) after one request', async () => {
    const rows = await collect(listPages(clientFor(sim), costDay(sim, EMPTY_DAY)));

    expect(rows).toEqual([]);
    expect(sim.requests).toHaveLength(1);
  });

  it('sends only fields the verb defines: data_source_id and query{sort,page,filter}', async () => {
    await collect(listPages(clientFor(sim), costDay(sim, DAY)));

    for (const { body, status } of sim.requests) {
      expect(status).toBe(200);
      expect(Object.keys(body as object).sort()).toEqual(['data_source_id', 'query']);
      expect(Object.keys((body as { query: object }).query).sort()).toEqual(['filter', 'page', 'sort']);
    }
  });

  it('raises a retryable drift error when the source re-syncs mid-paging', async () => {
    sim.resyncDuringPaging({
      path: '/cost-analysis/cost/list',
      afterRequests: 1,
      dataSourceId: sim.dataSourceIds()[0]!,
      date: DAY,
      change: { rowDelta: 3 },
    });

    const failure = await collect(listPages(clientFor(sim), costDay(sim, DAY))).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(PagingDriftError);
    expect(failure).toMatchObject({ code: 'PAGING_DRIFT', retryable: true });
  });

  it('raises drift when an empty answer arrives in the middle of paging', async () => {
    sim.injectFault({ path: '/cost-analysis/cost/list', kind: 'empty', afterRequests: 1 });

    const failure = await collect(listPages(clientFor(sim), costDay(sim, DAY))).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(PagingDriftError);
  });
});

describe('retries and errors against the simulator', () => {
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator({
      seed: 6,
      dataSources: 1,
      from: DAY,
      to: DAY,
      rowsPerDay: 10,
      exactRowsPerDay: true,
    });
  });
  afterEach(() => sim.close());
  const list = (client: CloudforetClient) => client.call('/cost-analysis/data-source/list', {});

  it.each(['503', '500', '504', 'reset', 'badjson', 'truncated'] as const)(
    'retries a %s and then succeeds',
    async (kind) => {
      sim.injectFault({ path: '/cost-analysis/data-source/list', kind, times: 2 });
      const client = clientFor(sim);

      const answer = await list(client);

      expect(answer.results).toHaveLength(1);
      expect(client.retries).toBe(2);
      expect(delays).toHaveLength(2);
    },
  );

  it('gives up after the bounded number of attempts with the last error', async () => {
    sim.injectFault({ path: '/cost-analysis/data-source/list', kind: '503', times: 3 });
    const client = clientFor(sim, undefined, { retry: { attempts: 3 } });

    const failure = await list(client).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ERROR_GRPC_CONNECTION', status: 503, retryable: true });
    expect(sim.requests).toHaveLength(3);
  });

  it('honours Retry-After from a proxy answering 429', async () => {
    sim.injectFault({ path: '/cost-analysis/data-source/list', kind: '429' });

    await list(clientFor(sim));

    expect(delays[0]).toBeGreaterThanOrEqual(1_000);
  });

  it('retries an answer slower than the timeout', async () => {
    sim.injectFault({ path: '/cost-analysis/data-source/list', kind: 'slow', delayMs: 1_500 });
    const client = clientFor(sim, undefined, { headersTimeoutMs: 300 });

    const answer = await list(client);

    expect(answer.results).toHaveLength(1);
    expect(client.retries).toBe(1);
  });

  it('does not retry 401 and says which secret to fix', async () => {
    const expired = sim.issueToken({ expiresInSeconds: -60 });

    const failure = await list(clientFor(sim, expired)).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(CloudforetApiError);
    expect(failure).toMatchObject({
      code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE',
      status: 401,
      retryable: false,
    });
    expect(String((failure as Error).message)).toContain("secret 'cloudforet/test' is invalid or expired");
    expect(String((failure as Error).message)).not.toContain(expired);
    expect(sim.requests).toHaveLength(1);
  });

  it('does not retry 403 and says the role lacks access', async () => {
    const member = sim.issueToken({ role: 'WORKSPACE_MEMBER', workspaceId: sim.workspaceIds()[0]! });

    const failure = await clientFor(sim, member)
      .call('/identity/workspace/list', {})
      .catch((e: unknown) => e);

    expect(failure).toMatchObject({
      code: 'CLOUDFORET_ERROR_PERMISSION_DENIED',
      status: 403,
      retryable: false,
    });
    expect(String((failure as Error).message)).toContain("app's role cannot use this API");
    expect(sim.requests).toHaveLength(1);
  });

  it('does not retry 404 and names the path', async () => {
    const failure = await clientFor(sim)
      .call('/cost-analysis/data-source/get', { data_source_id: 'ds-000000000000' })
      .catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ERROR_NOT_FOUND', status: 404, retryable: false });
    expect(String((failure as Error).message)).toContain('/cost-analysis/data-source/get');
    expect(sim.requests).toHaveLength(1);
  });

  it('names a token of a domain the endpoint lacks, from its answer alone: one request', async () => {
    const elsewhere = await startSimulator({ seed: 9, dataSources: 1, from: DAY, to: DAY });
    const stranger = elsewhere.issueToken();
    await elsewhere.close();

    const failure = await list(clientFor(sim, stranger, { credentialDomainId: elsewhere.domainId })).catch(
      (e: unknown) => e,
    );

    expect(failure).toMatchObject({ code: 'CLOUDFORET_DOMAIN_UNKNOWN', status: 404, retryable: false });
    expect(String((failure as Error).message)).toContain(
      `is of domain ${elsewhere.domainId}, which ${sim.url} does not know: it is an app of another Cloudforet or another domain`,
    );
    expect(sim.requests).toHaveLength(1);
  });

  it("keeps a not-found of anything but the token's domain a plain not-found", async () => {
    const failure = await clientFor(sim, undefined, { credentialDomainId: sim.domainId })
      .call('/cost-analysis/data-source/get', { data_source_id: 'ds-000000000000' })
      .catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ERROR_NOT_FOUND', status: 404 });
    expect(String((failure as Error).message)).not.toContain('does not know');
  });
});
