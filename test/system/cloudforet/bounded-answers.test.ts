// Every request is bounded as a whole: in time (headers and body within the deadline, however
// the bytes trickle) and in size (an answer past the limit is dropped, not buffered). Both fail
// retryably, with the attempts the client has, against real servers on loopback.
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudforetClient, type CloudforetClientOptions } from '../../../functions/lib/cloudforet/client.ts';
import { type StreamingApi, startLargeAnswerApi, startTricklingApi } from '../../../harness/streaming-api.ts';

const MiB = 1024 * 1024;
const PATH = '/cost-analysis/cost/list';
let dispatcher: Agent;
let api: StreamingApi | undefined;
beforeEach(() => {
  dispatcher = new Agent({ connect: { timeout: 2_000 } });
});
afterEach(async () => {
  await api?.close();
  api = undefined;
  await dispatcher.close();
});

function clientFor(server: StreamingApi, extra: Partial<CloudforetClientOptions> = {}) {
  return new CloudforetClient({
    endpoint: server.url,
    token: 'test-token',
    dispatcher,
    retry: { attempts: 3 },
    sleep: async () => {},
    ...extra,
  });
}

describe('the deadline of a request', () => {
  it('ends each attempt at a body trickling a byte every 2 s, then fails with the deadline', async () => {
    api = await startTricklingApi(2_000);
    // The gap between chunks (2 s) is inside the chunk timeout: only the deadline can end it.
    const client = clientFor(api, { requestTimeoutMs: 1_000, bodyTimeoutMs: 5_000 });
    const started = Date.now();

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    const elapsed = Date.now() - started;
    expect(failure).toMatchObject({ code: 'CLOUDFORET_DEADLINE', retryable: true, path: PATH });
    expect((failure as Error).message).toBe(
      'cloudforet: no answer for /cost-analysis/cost/list within 1 s (the deadline for the whole request, headers and body): ' +
        'the endpoint may be down, unreachable from here, or sending its answer too slowly; ' +
        'a slow API may need a longer timeout (--timeout or CLOUDFORET_TIMEOUT_MS; cloudforetTimeoutMs in the stack)',
    );
    expect(api.requests).toBe(3);
    expect(client.retries).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(3_000);
    expect(elapsed).toBeLessThan(4_500);
  });

  it("takes the caller's abort for an abort, not for the deadline, and does not retry it", async () => {
    api = await startTricklingApi(100);
    const client = clientFor(api, { requestTimeoutMs: 5_000 });

    const failure = await client
      .call(PATH, {}, { signal: AbortSignal.timeout(300) })
      .catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_NETWORK', retryable: false });
    expect((failure as Error).message).toBe('cloudforet: /cost-analysis/cost/list abandoned: its unit ended');
    expect(api.requests).toBe(1);
  });
});

describe('the size limit of an answer', () => {
  const tooLarge = (came: string) =>
    `cloudforet: the answer for /cost-analysis/cost/list exceeded 1 MiB (${came}) and was dropped: ` +
    'a page of 1000 rows is about 1 MiB, so check what the endpoint sends; if answers this large are expected, ' +
    'raise the limit (--max-answer-mb or CLOUDFORET_MAX_ANSWER_MB, 1-1024; cloudforetMaxAnswerMb in the stack)';

  it('refuses a 5 MiB answer by its content-length, on every attempt', async () => {
    api = await startLargeAnswerApi(5 * MiB, { declareLength: true });
    const client = clientFor(api, { maxAnswerBytes: MiB });

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ANSWER_TOO_LARGE', retryable: true, path: PATH });
    expect((failure as Error).message).toBe(tooLarge('its content-length is 5242880 bytes'));
    expect(api.requests).toBe(3);
  });

  it('drops a chunked 5 MiB answer with no content-length once it passes the limit', async () => {
    api = await startLargeAnswerApi(5 * MiB, { declareLength: false });
    const client = clientFor(api, { maxAnswerBytes: MiB });

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ANSWER_TOO_LARGE', retryable: true });
    expect((failure as Error).message).toBe(tooLarge('more than that arrived'));
    expect(api.requests).toBe(3);
  });

  it('ends an answer that never ends at the limit instead of buffering it', async () => {
    api = await startLargeAnswerApi(Number.POSITIVE_INFINITY, { declareLength: false });
    const client = clientFor(api, { maxAnswerBytes: MiB, retry: { attempts: 1 } });

    const failure = await client.call(PATH, {}).catch((e: unknown) => e);

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ANSWER_TOO_LARGE' });
    expect(api.requests).toBe(1);
  });

  it('takes an answer of exactly the limit whole', async () => {
    api = await startLargeAnswerApi(MiB, { declareLength: false });
    const client = clientFor(api, { maxAnswerBytes: MiB });

    const answer = await client.call(PATH, {});

    expect(answer).toEqual({});
    expect(api.requests).toBe(1);
  });
});
