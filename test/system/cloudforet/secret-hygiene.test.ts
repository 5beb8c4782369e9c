// The client_secret is a bearer token: it must never appear in a log line, an error (message,
// cause chain, stack, however serialized), a summary or CLI output, even at LOG_LEVEL=debug.
// The fault matrix and bad-input suites scan their own logs, errors and summaries the same way.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { Context } from 'aws-lambda';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../cli/main.ts';
import { handler } from '../../../functions/cost-export.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { createLogger } from '../../../functions/lib/log.ts';
import { type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { type FaultKind, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { captureLogs, expectNoSecret } from '../../support/log-capture.ts';

const YESTERDAY = addDays(utcDay(new Date()), -1);
const FROM = addDays(YESTERDAY, -2);
const COST_LIST = '/cost-analysis/cost/list';

/** Every way an error gets written down: JSON, util.inspect (cause chain, hidden fields), String, stack. */
function renderings(error: unknown): string[] {
  const e = error as Error & { cause?: unknown };
  return [
    JSON.stringify(error),
    JSON.stringify({ ...e, message: e.message, cause: inspect(e.cause, { depth: 8 }) }),
    inspect(error, { depth: 8, showHidden: true }),
    String(error),
    e.stack ?? '',
  ];
}

describe('the client_secret stays secret', () => {
  let local: LocalAws;
  const stdout: string[] = [];

  beforeAll(async () => {
    local = await startLocalAws({ seed: 61, dataSources: 2, from: FROM, to: YESTERDAY, rowsPerDay: 1_100 });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await local.stop();
  });

  it('the handler at LOG_LEVEL=debug never logs the token or an Authorization header, through retries and failures', async () => {
    const restore = local.applyEnv({ LOG_LEVEL: 'debug' });
    for (const kind of ['503', 'reset', 'badjson', 'truncated'] as const)
      local.simulator.injectFault({ path: COST_LIST, kind, afterRequests: 1 });
    local.simulator.injectFault({ path: COST_LIST, kind: '401', afterRequests: 2 });
    stdout.length = 0;

    const failure = await handler({ from: FROM, to: YESTERDAY }, { awsRequestId: 'req-hygiene' } as Context)
      .then(() => undefined)
      .catch((error: unknown) => error)
      .finally(restore);

    expect(failure).toMatchObject({ code: 'RUN_FAILED' });
    expect(stdout.some((line) => line.includes('"level":"warn"'))).toBe(true);
    expect(stdout.some((line) => line.includes('"level":"error"'))).toBe(true);
    expectNoSecret([...stdout, ...renderings(failure)], local.token);
    for (const line of stdout) {
      expect(line).not.toMatch(/authorization|bearer/i);
      expect(line, 'the scrubber had to catch a token: something tried to log it').not.toContain(
        '[REDACTED]',
      );
    }
  });

  it.each<FaultKind | 'timeout' | 'refused'>([
    '401',
    '429',
    '503',
    '504',
    'reset',
    'badjson',
    'truncated',
    'timeout',
    'refused',
  ])('a CloudforetApiError after %s carries no token in its message, cause chain or stack', async (kind) => {
    // A simulator and a pool of its own: no fault or connection of another test can answer for this one.
    const sim = await startSimulator({ seed: 62, dataSources: 1 });
    const dispatcher = new Agent();
    const token = sim.issueToken();
    const endpoint = kind === 'refused' ? 'http://127.0.0.1:9' : sim.url;
    // undici checks timeouts on a coarse timer (about 0.5-1 s): the answer comes well after that.
    if (kind === 'timeout') sim.injectFault({ kind: 'slow', delayMs: 3_000, times: 2 });
    else if (kind !== 'refused') sim.injectFault({ kind, times: 2 });
    const logs = captureLogs();
    const client = new CloudforetClient({
      endpoint,
      token,
      dispatcher,
      headersTimeoutMs: 200,
      retry: { attempts: 2 },
      sleep: async () => {},
      log: createLogger({ level: 'debug', write: logs.write }),
    });

    const error = await client
      .call('/cost-analysis/data-source/list', {})
      .catch((e: unknown) => e)
      .finally(() => Promise.all([dispatcher.close(), sim.close()]));

    expect(error).toMatchObject({ name: 'CloudforetApiError' });
    expectNoSecret([...renderings(error), ...logs.lines], token);
  });

  it('an unparsable or malformed secret is never quoted back, in the error or the logs', async () => {
    const [header, payload] = local.token.split('.');
    const almost = `${header}.${payload}`;
    for (const value of [`{"client_secret": "${almost}`, almost, `  ${almost}.`]) {
      local.secrets.set('cloudforet/malformed', value);
      stdout.length = 0;
      const env = {
        CLOUDFORET_SECRET_ID: 'cloudforet/malformed',
        SECRET_TTL_SECONDS: '0',
        LOG_LEVEL: 'debug',
      };
      const restore = local.applyEnv(env);

      const error = await handler({ date: YESTERDAY })
        .catch((e: unknown) => e)
        .finally(restore);

      expect(error).toMatchObject({ name: 'SecretError' });
      expectNoSecret([...renderings(error), ...stdout], local.token);
    }
  });

  it('the CLI prints no token in its summary, its errors or its debug log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hygiene-cli-'));
    const secretFile = join(dir, 'app.json');
    await writeFile(secretFile, consoleAppJson(local.token));
    local.simulator.injectFault({ path: COST_LIST, kind: '401', afterRequests: 1 });
    const io = fakeIo();
    const args = ['costs', '--endpoint', local.simulator.url, '--secret-file', secretFile, '--out', dir];

    const code = await main(
      [...args, '--from', FROM, '--to', YESTERDAY, '--json'],
      { LOG_LEVEL: 'debug' },
      io,
    );

    expect(code).toBe(1);
    expect(io.out()).toContain('ERROR_AUTHENTICATE_FAILURE');
    expectNoSecret([io.out(), io.err()], local.token);
    await rm(dir, { recursive: true, force: true });
  });
});
