// Endpoint mistakes that no retry can fix fail on the first attempt, with the remedy; a request
// that merely got no answer in time stays retryable.
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../functions/lib/cloudforet/client.ts';
import { CloudforetApiError } from '../../functions/lib/errors.ts';

/** A dispatcher whose name lookups all fail as they do for a misspelt host. */
function unresolvable(): { dispatcher: Agent; lookups: () => number } {
  let lookups = 0;
  const dispatcher = new Agent({
    connect: {
      lookup: (_host, _options, callback) => {
        lookups += 1;
        const error = Object.assign(new Error('getaddrinfo ENOTFOUND cloudforet.exmaple.com'), {
          code: 'ENOTFOUND',
        });
        (callback as (e: Error) => void)(error);
      },
    },
  });
  return { dispatcher, lookups: () => lookups };
}

describe('an endpoint that cannot work', () => {
  it('fails once, not five times, when the host name does not resolve', async () => {
    const { dispatcher, lookups } = unresolvable();
    const client = new CloudforetClient({
      endpoint: 'https://cloudforet.exmaple.com',
      token: 't',
      dispatcher,
      sleep: async () => {},
    });

    const error = await client.call('/cost-analysis/data-source/list', {}).catch((e: unknown) => e);
    await dispatcher.close();

    expect(error).toBeInstanceOf(CloudforetApiError);
    expect((error as CloudforetApiError).retryable).toBe(false);
    expect((error as Error).message).toMatch(
      /the host name does not resolve: check the endpoint's spelling \(ENOTFOUND\)/,
    );
    expect(lookups()).toBe(1);
  });

  it.each(['ftp://cloudforet.example.com', 'cloudforet.example.com', 'https://'])(
    'refuses %s before any request',
    (endpoint) => {
      const make = () => new CloudforetClient({ endpoint, token: 't', dispatcher: new Agent() });

      expect(make).toThrow(/is not an http\(s\) URL: give the HTTP API base/);
    },
  );
});
