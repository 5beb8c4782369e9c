// A 2xx is an answer only when it can be the verb's answer. Cloudforet answers an empty list as
// `{}`; a gateway's error, a proxy's page or `"results": null` is a failed request, retried as
// a 5xx is and then failed, never taken for an empty list.
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnalyzeRequest, analyzePages } from '../../../functions/lib/cloudforet/analyze-pages.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { type ApiRecord, listPages } from '../../../functions/lib/cloudforet/pager.ts';
import { type CannedApi, startCannedApi } from '../../../harness/canned-api.ts';

const PATH = '/cost-analysis/cost/list';
let dispatcher: Agent;
let api: CannedApi | undefined;
beforeEach(() => {
  dispatcher = new Agent({ connect: { timeout: 2_000 } });
});
afterEach(async () => {
  await api?.close();
  api = undefined;
  await dispatcher.close();
});

async function answering(body: string, contentType = 'application/json'): Promise<CloudforetClient> {
  api = await startCannedApi({ status: 200, contentType, body });
  return new CloudforetClient({
    endpoint: api.url,
    token: 'test-token',
    dispatcher,
    retry: { attempts: 3 },
    sleep: async () => {},
  });
}

async function collect(pages: AsyncGenerator<ApiRecord[]>): Promise<ApiRecord[]> {
  const rows: ApiRecord[] = [];
  for await (const page of pages) rows.push(...page);
  return rows;
}

const listing = { path: PATH, idKey: 'cost_id' };
const usage: AnalyzeRequest = {
  path: '/cost-analysis/budget-usage/analyze',
  groupBy: ['budget_id'],
  fields: {},
  sort: [],
  identify: String,
};

describe('a 200 that is not an answer', () => {
  it.each([
    ['{"detail": "x"}', 'an error body (key detail)'],
    ['{"error": {"message": "upstream failed"}}', 'an error body (key error)'],
    ['{"code": "UNAVAILABLE", "results": []}', 'an error body (key code)'],
    ['{"results": null}', '"results": null, not a list'],
    ['{"results": {"cost_id": "cost-000000000001"}}', '"results": object, not a list'],
    ['{"results": [], "total_count": "12"}', '"total_count": string, not a number'],
    ['"text"', 'JSON that is not an object (a string)'],
    ['[]', 'JSON that is not an object (an array)'],
    ['null', 'JSON that is not an object (null)'],
  ])('retries %s, then fails as no answer', async (body, what) => {
    const client = await answering(body);

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER', status: 200, retryable: true });
    expect((failure as Error).message).toBe(
      `cloudforet: /cost-analysis/cost/list answered 200 with ${what} (starts '${body.slice(0, 40)}'), ` +
        'which is no answer of this verb (an empty list is {}): ' +
        'check what stands between here and the API (a proxy or gateway reporting a failure as a success)',
    );
    expect(api!.paths).toHaveLength(3);
  });

  it('retries an HTML page, then fails as no answer and names the console address', async () => {
    const client = await answering('<html><body>Maintenance</body></html>', 'text/html');

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER', status: 200, retryable: true });
    expect((failure as Error).message).toBe(
      "cloudforet: /cost-analysis/cost/list answered 200 with a body that is not JSON (37 bytes, starts '<html><body>Maintenance</body></html>'): " +
        "check that the endpoint is Cloudforet's HTTP API (the console's CONSOLE_API_V2.ENDPOINT), not the console's web address",
    );
    expect(api!.paths).toHaveLength(3);
  });

  it('fails a listing whose pages answer "results": null, after the attempts of its request', async () => {
    const client = await answering('{"results": null}');

    const failure = await collect(listPages(client, listing)).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect(api!.paths).toHaveLength(3);
  });

  it('fails a listing whose first page counts rows but holds none', async () => {
    const client = await answering('{"total_count": 5}');

    const failure = await collect(listPages(client, listing)).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect((failure as Error).message).toContain('with "total_count": 5 and no "results" for rows from 1');
    expect(api!.paths).toHaveLength(3);
  });

  it('fails a keyset listing whose page counts rows but holds none', async () => {
    const client = await answering('{"total_count": 5}');

    const failure = await collect(listPages(client, { ...listing, keyset: true })).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect(api!.paths).toHaveLength(3);
  });

  it('fails an analyze page that says more but holds no results', async () => {
    const client = await answering('{"more": true}');

    const failure = await collect(analyzePages(client, usage)).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NOT_AN_ANSWER' });
    expect((failure as Error).message).toContain('with "more": true and no "results"');
    expect(api!.paths).toHaveLength(3);
  });
});

describe('an empty answer', () => {
  it('takes {} as an empty list, after one request', async () => {
    const client = await answering('{}');

    const rows = await collect(listPages(client, listing));

    expect(rows).toEqual([]);
    expect(api!.paths).toHaveLength(1);
  });

  it('takes {} as an empty keyset listing, after one request', async () => {
    const client = await answering('{}');

    const rows = await collect(listPages(client, { ...listing, keyset: true }));

    expect(rows).toEqual([]);
    expect(api!.paths).toHaveLength(1);
  });

  it('takes {} as an empty analyze answer, after one request', async () => {
    const client = await answering('{}');

    const rows = await collect(analyzePages(client, usage));

    expect(rows).toEqual([]);
    expect(api!.paths).toHaveLength(1);
  });
});
