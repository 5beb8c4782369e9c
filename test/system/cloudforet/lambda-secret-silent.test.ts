// The functions read their client_secret from Secrets Manager: one that answers nothing (a VPC
// without its endpoint) fails the invocation in a bounded time, saying so, instead of holding it
// to the Lambda timeout with no word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { invoke } from '../../support/bad-input-lambda.ts';
import { YESTERDAY } from '../../support/bad-input-row.ts';

let silent: RawServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => {
  await silent.close();
});

describe('a function whose Secrets Manager answers nothing', () => {
  it('fails within its attempts of CLOUDFORET_TIMEOUT_MS each, naming the silence', async () => {
    const started = performance.now();

    const said = await invoke(
      'cost-export',
      { date: YESTERDAY },
      {
        AWS_ENDPOINT_URL_SECRETS_MANAGER: silent.url,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        CLOUDFORET_SECRET_ID: 'cloudforet/silent-test',
        CLOUDFORET_TIMEOUT_MS: '1000',
      },
    );

    const seconds = (performance.now() - started) / 1000;
    expect(said.code).toBe('SECRET_FETCH_FAILED');
    expect(said.text).toMatch(
      /Secrets Manager \(us-east-1\) answered nothing in time, every attempt timed out/,
    );
    // Three attempts of 1 s and the SDK's backoff between them.
    expect(seconds).toBeLessThan(15);
    expect(silent.connections).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
