// `check` on an endpoint with more than the API base: a path, a query string, a fragment. Its
// answers to 401, 403, 404, 500, 502 and redirects are rows of test/system/cli/bad-input-matrix.test.ts.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

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
