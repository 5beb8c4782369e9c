// The Cloudforet simulator answering in this process, for the unit tier: the same routes, state,
// tokens, request log and re-sync hooks as startSimulator's, reached by the real CloudforetClient
// through an undici MockAgent (a Dispatcher that opens no socket) instead of a loopback server.
// Not served here: latency and injected faults (a reset needs a socket); those tests stay in the
// system tier. A temporary directory sink beside it, removed by `close`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { CloudforetClient } from '../../functions/lib/cloudforet/client.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';
import { LocalSimulator } from '../../harness/simulator/local-simulator.ts';
import type { SimulatorOptions } from '../../harness/simulator/state.ts';

/** Never dialled: the MockAgent refuses the network, so a request it does not answer fails. */
const ENDPOINT = 'http://127.0.0.1:9';

export interface InProcessCloudforet {
  readonly sim: LocalSimulator;
  /** A client of a domain admin's token; no backoff sleeps. */
  readonly client: CloudforetClient;
  /** Paths asked, in order (the simulator's request log). */
  paths(): string[];
  close(): Promise<void>;
}

export function inProcessCloudforet(opts: SimulatorOptions): InProcessCloudforet {
  const sim = LocalSimulator.create(opts);
  const hooks = sim.hooks();
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get(ENDPOINT)
    .intercept({ path: () => true, method: () => true })
    .reply((req) => {
      const path = req.path.split('?')[0] ?? '/';
      const raw = typeof req.body === 'string' ? req.body : '';
      let body: unknown = raw;
      let parsed = false;
      try {
        body = JSON.parse(raw);
        parsed = true;
      } catch {}
      const headers = req.headers as Record<string, string> | undefined;
      const authorization = headers?.['authorization'];
      const answer = hooks.route({ method: req.method, path, authorization, body, parsed });
      hooks.answered({ path, body, status: answer.status, ...answer.cost }, authorization);
      return {
        statusCode: answer.status,
        data: answer.body,
        responseOptions: {
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(answer.body)),
          },
        },
      };
    })
    .persist();
  const client = new CloudforetClient({
    endpoint: ENDPOINT,
    token: sim.issueToken(),
    dispatcher: agent,
    sleep: async () => {},
  });
  return {
    sim,
    client,
    paths: () => sim.requests.map((r) => r.path),
    close: () => agent.close(),
  };
}

/** A directory sink in a fresh temporary directory. */
export async function tempSink(
  name: string,
): Promise<{ dir: string; sink: Sink; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  return { dir, sink: dirSink(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}
