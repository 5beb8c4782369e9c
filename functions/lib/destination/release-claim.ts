// Releasing a destination claim that nothing backs: what a killed run left, so that another scope
// may export there before the claim expires. A claim whose holder exported something is an
// ownership and is never released here; one whose holder may still be running (its latest run
// started within CLAIM_EXPIRY_MS, or at an unknown time) is released only when forced.

import type { Sink } from '../storage/sink.ts';
import {
  CLAIM_EXPIRY_MS,
  type Claim,
  claimText,
  describeHolder,
  isBacked,
  isExpired,
  parseClaim,
} from './claim-records.ts';
import { ownScratch, removeProven } from './gate.ts';
import { CLAIM_KEY, CLAIM_TAKEOVERS_DIR, COST_CLAIM_KEY } from './layout.ts';

export type ReleaseOutcome =
  | { readonly outcome: 'none'; readonly message: string }
  | { readonly outcome: 'released'; readonly message: string }
  | { readonly outcome: 'refused'; readonly message: string };

/** What may be released: the whole claim (nothing exported at all), or its cost scope alone. */
interface Releasable {
  readonly holder: string;
  readonly claim: Claim;
  readonly costs: boolean;
  release(): Promise<void>;
}

export async function releaseClaim(
  sink: Sink,
  opts: { force: boolean; now?: Date },
): Promise<ReleaseOutcome> {
  const now = opts.now ?? new Date();
  const domain = parseClaim(await sink.read(CLAIM_KEY));
  const cost = parseClaim(await sink.read(COST_CLAIM_KEY));
  if (!domain && !cost)
    return { outcome: 'none', message: `no claim in ${sink.location}: nothing to release` };
  const target = await releasable(sink, domain, cost, now);
  if (typeof target === 'string') return { outcome: 'refused', message: target };
  if (!opts.force && !isExpired(target.claim, false, now)) {
    return {
      outcome: 'refused',
      message:
        `${sink.location} is claimed by ${target.holder}, which may still be running (a claim expires ` +
        `${CLAIM_EXPIRY_MS / 60_000} min after its latest run started). If no run of it is going, add --force`,
    };
  }
  await target.release();
  return { outcome: 'released', message: `released the claim of ${target.holder} on ${sink.location}` };
}

async function releasable(
  sink: Sink,
  domain: Claim | undefined,
  cost: Claim | undefined,
  now: Date,
): Promise<Releasable | string> {
  // The claims of runs that exported nothing (checked just below): no archive to keep.
  const unbacked = ownScratch('a claim no export backs, released on request');
  const removeAll = async () => {
    await removeProven(sink, COST_CLAIM_KEY, unbacked);
    await removeProven(sink, CLAIM_KEY, unbacked);
    for (const key of await sink.list(`${CLAIM_TAKEOVERS_DIR}/`)) await removeProven(sink, key, unbacked);
  };
  const held = domain ?? cost!;
  if (!(await isBacked(sink, false)))
    return {
      holder: describeHolder(held, held.costScope, now),
      claim: held,
      costs: false,
      release: removeAll,
    };
  const scope = domain?.costScope ?? cost?.costScope;
  const owner = domain?.costScope !== undefined ? domain : cost;
  if (scope === undefined || owner === undefined || (await isBacked(sink, true))) {
    return (
      `${sink.location} holds exports of ${describeHolder(held, scope, now)}: its claim is an ownership, ` +
      'not a leftover of a killed run, and is not released; export another scope into its own prefix'
    );
  }
  const release = async () => {
    if (domain?.costScope !== undefined) {
      const { costScope: _, ...rest } = domain;
      await sink.put(CLAIM_KEY, claimText(rest), 'application/json');
    }
    await removeProven(sink, COST_CLAIM_KEY, ownScratch('a cost scope claim no cost export backs'));
  };
  return { holder: describeHolder(owner, scope, now), claim: owner, costs: true, release };
}
