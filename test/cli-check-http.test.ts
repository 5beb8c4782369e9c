// `check`, the first command a user runs, on every kind of HTTP error answer: one line that names
// what answered and what to do, the exit code costs gives, and the very same words as costs.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { type Simulator, startSimulator } from '../harness/simulator/index.ts';
import { type CannedAnswer, permissionDenied, routeNotFound, startCannedApi } from '../harness/canned-api.ts';
import { fakeIo } from './support/fake-io.ts';
import { appFolder, makeTestToken } from '../harness/tokens.ts';

let dir: string;
let secretFile: string;

/** The last stderr line (the error) and the exit code of one command against one endpoint. */
async function run(command: 'check' | 'costs', endpoint: string) {
  const io = fakeIo();

  const exit = await main(
    [command, '--endpoint', endpoint, '--secret-file', secretFile, '--out', join(dir, 'out')],
    {},
    io,
  );

  const lines = io.err().trim().split('\n');
  return { exit, last: lines[lines.length - 1] ?? '', err: io.err() };
}

const json = (status: number, detail: unknown): CannedAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify({ detail }),
});
const html = (status: number, title: string): CannedAnswer => ({
  status,
  contentType: 'text/html',
  body: `<html><head><title>${title}</title></head><body><h1>${title}</h1><hr>nginx</body></html>\n`,
});

const answers: ReadonlyArray<[string, CannedAnswer, number, RegExp]> = [
  [
    '401 with Cloudforet error body',
    json(401, { code: 'ERROR_AUTHENTICATE_FAILURE', message: 'Token is invalid or expired.' }),
    2,
    /401 ERROR_AUTHENTICATE_FAILURE .* the client_secret in file '.*app\.json' is invalid or expired: create a new client secret/,
  ],
  [
    '401 without body',
    { status: 401, contentType: 'text/plain', body: '' },
    2,
    /401 for .* is invalid or expired/,
  ],
  ['403', permissionDenied, 2, /403 ERROR_PERMISSION_DENIED .* the app's role cannot use this API/],
  ['404 route', routeNotFound, 2, /404 for .* has no such API route .*with no path after it/],
  [
    '500',
    { status: 500, contentType: 'text/plain', body: 'oops' },
    1,
    /500 for .* the API failed on its side/,
  ],
  [
    '502 proxy error page',
    html(502, '502 Bad Gateway'),
    1,
    /502 for .* an HTML page titled '502 Bad Gateway' came from a proxy or gateway in front of the API/,
  ],
  [
    '404 HTML page',
    html(404, '404 Not Found'),
    2,
    /answered with an HTML page titled '404 Not Found', not the API's JSON/,
  ],
  [
    '302 redirect',
    { status: 302, contentType: 'text/html', body: '' },
    2,
    /302 for .* redirects: .*console web address/,
  ],
];

describe('check on HTTP error answers', () => {
  beforeAll(async () => {
    ({ dir, secretFile } = await appFolder('check-http', makeTestToken()));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(answers)(
    '%s: names the cause as costs does, with its exit code',
    async (_, answer, exit, words) => {
      const api = await startCannedApi(answer);

      const check = await run('check', api.url);
      const costs = await run('costs', api.url).finally(() => api.close());

      expect(check.exit).toBe(exit);
      expect(check.last).toMatch(words);
      expect(check.last).toMatch(/^cloudforet-export: cloudforet: \d{3} /);
      expect(check.err).not.toMatch(/UNEXPECTED|Cannot read properties|\n {4}at /);
      expect(costs.exit).toBe(exit);
      expect(costs.last).toBe(check.last);
    },
    30_000,
  );
});

describe('check on an endpoint with more than the API base', () => {
  let simulator: Simulator;

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 3, dataSources: 1 });
    ({ dir, secretFile } = await appFolder('check-extra', simulator.issueToken()));
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names an extra path as a route the API does not have', async () => {
    const check = await run('check', `${simulator.url}/v2/api`);

    expect(check.exit).toBe(2);
    expect(check.last).toMatch(
      new RegExp(`404 for /cost-analysis/data-source/list — ${simulator.url}/v2/api has no such API route`),
    );
  });

  it.each([
    ['?region=1', /has a query string \(\?region=1\)/],
    ['#top', /has a fragment \(#top\)/],
  ])('refuses an endpoint with %s before any request', async (tail, words) => {
    const asked = simulator.requests.length;

    const check = await run('check', `${simulator.url}/${tail}`);
    const costs = await run('costs', `${simulator.url}/${tail}`);

    expect(check.exit).toBe(2);
    expect(check.last).toMatch(words);
    expect(check.last).toMatch(/\[CLI_USAGE\]$/);
    expect(costs.last).toBe(check.last);
    expect(simulator.requests.length).toBe(asked);
  });
});
