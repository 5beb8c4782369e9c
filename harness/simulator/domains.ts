// One Cloudforet endpoint serving several domains, as a provider's Cloudforet does: each domain has
// its own world (data sources, workspaces, cost rows, cost reports, identity) and its own key pair;
// a call goes to the domain its token names (`did`), whose key verifies it, so every verb answers
// that domain's records alone. A second endpoint is a second one of these.

import { LocalSimulator } from './local-simulator.ts';
import { type RunningServer, startServer } from './server.ts';
import type { Simulator } from './simulator-api.ts';
import type { SimulatorOptions } from './state.ts';
import { tokenDomain } from './tokens.ts';

/** A domain's options: those of a single-domain simulator but the server's own (port, latency). */
export type DomainOptions = Omit<SimulatorOptions, 'port' | 'latencyMs'>;

export interface DomainsOptions {
  /** One entry per domain; each needs its own seed (the seed names the domain and its records). */
  readonly domains: readonly DomainOptions[];
  readonly port?: number;
  readonly latencyMs?: number;
}

export interface DomainsSimulator {
  readonly url: string;
  /**
   * Each domain as a Simulator (tokens, truth, faults and request log of that domain; `url` the shared
   * one; its `close` does nothing: the endpoint's does), in the order of the options.
   */
  readonly domains: readonly Simulator[];
  /** The domain whose id this is. */
  domain(domainId: string): Simulator;
  setLatency(ms: number): void;
  close(): Promise<void>;
}

export async function startDomainsSimulator(opts: DomainsOptions): Promise<DomainsSimulator> {
  if (opts.domains.length === 0) throw new Error('simulator: domains must name at least one domain');
  const seeds = opts.domains.map((d) => d.seed ?? 1);
  const repeated = seeds.filter((seed, i) => seeds.indexOf(seed) !== i);
  if (repeated.length > 0)
    throw new Error(
      `simulator: each domain needs its own seed; repeated: ${[...new Set(repeated)].join(', ')}`,
    );
  const domains = opts.domains.map((d) => LocalSimulator.create(d));
  const byId = new Map(domains.map((d) => [d.domainId, d]));
  const first = domains[0]!;
  /** The domain a call is for; a call naming none gets the first's answer, an error before any record. */
  const domainOf = (authorization: string | undefined) => byId.get(tokenDomain(authorization) ?? '') ?? first;
  let latencyMs = opts.latencyMs ?? 0;
  const server: RunningServer = await startServer(
    {
      route: (call) => domainOf(call.authorization).route(call),
      latencyMs: () => latencyMs,
      takeFault: (path, authorization) => domainOf(authorization).takeFault(path),
      answered: (record, authorization) => domainOf(authorization).answered(record),
    },
    opts.port ?? 0,
  );
  for (const d of domains) d.attach(server);
  return {
    url: server.url,
    domains,
    domain(domainId) {
      const found = byId.get(domainId);
      if (!found) throw new Error(`simulator: no domain ${domainId} at ${server.url}`);
      return found;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    close: () => server.close(),
  };
}
