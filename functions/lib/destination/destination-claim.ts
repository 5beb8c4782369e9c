// Which Cloudforet domain and cost scope a destination belongs to. Cost object keys carry no
// scope (costs/billed_date=D/<data_source_id>.parquet), so a workspace app's run into a domain
// app's destination would replace the domain's objects with its own subset. Every run claims the
// destination before it plans anything, with a create that succeeds for one writer only (S3
// If-None-Match: *, a hard link locally): of two runs started together exactly one owns it, and
// the other is refused before it writes a byte. A claim nothing backs yet (its runs were killed
// before exporting anything) expires (claim-records.ts) and is taken over by the next run.
import { ExportError } from '../errors.ts';
import { type AppScope, scopeName } from '../scope.ts';
import type { Sink } from '../storage/sink.ts';
import {
  CLAIM_EXPIRY_MS,
  CLAIM_RENEW_AFTER_MS,
  type Claim,
  claimAge,
  claimant,
  claimText,
  describeHolder,
  describeScope,
  isBacked,
  isExpired,
  parseClaim,
  releaseCommand,
} from './claim-records.ts';
import { createOnce, ownScratch, removeProven } from './gate.ts';
import { CLAIM_KEY, COST_CLAIM_KEY, claimTakeoverKey } from './layout.ts';

export type DestinationOwner = AppScope;
export type { Claim } from './claim-records.ts';

export class DestinationClaimError extends ExportError {}

/** One claim object as stored, and which of its parts this run contests. */
interface Held {
  readonly key: string;
  readonly claim: Claim;
  /** true: the cost scope is contested; false: the domain. */
  readonly costs: boolean;
}

/** Refuses, reading only, a destination another domain or cost scope holds for good or for now. */
export async function checkClaim(
  sink: Sink,
  owner: DestinationOwner,
  costs: boolean,
  now = new Date(),
): Promise<void> {
  const domain = parseClaim(await sink.read(CLAIM_KEY));
  if (!domain) return;
  const cost =
    costs && domain.costScope === undefined ? parseClaim(await sink.read(COST_CLAIM_KEY)) : undefined;
  for (const held of contested(owner, costs, domain, cost)) {
    if (!isExpired(held.claim, await isBacked(sink, held.costs), now))
      throw await refusal(sink, held, owner, now);
  }
}

/** The claims that stand against this owner: another domain, or another cost scope. */
function contested(owner: DestinationOwner, costs: boolean, domain: Claim, cost: Claim | undefined): Held[] {
  if (domain.domainId !== owner.domainId) return [{ key: CLAIM_KEY, claim: domain, costs: false }];
  const scope = scopeName(owner);
  if (!costs) return [];
  if (domain.costScope !== undefined)
    return domain.costScope === scope ? [] : [{ key: CLAIM_KEY, claim: domain, costs: true }];
  if (cost?.costScope !== undefined && cost.costScope !== scope)
    return [{ key: COST_CLAIM_KEY, claim: cost, costs: true }];
  return [];
}

/**
 * Claims the destination for the app's domain and, for a cost run, its cost scope; or proves it
 * already belongs to them, renewing the claim (its holder's latest run starts now). Takes over a
 * claim of another scope that has expired. Throws DestinationClaimError (nothing written) when
 * another domain or cost scope holds it: for good (it exported there), or for now.
 */
export async function claimDestination(
  sink: Sink,
  owner: DestinationOwner,
  costs: boolean,
  now = new Date(),
): Promise<void> {
  const scope = scopeName(owner);
  const stamp = { claimedAt: now.toISOString(), lastRunAt: now.toISOString(), by: claimant() };
  const mine: Claim = { domainId: owner.domainId, ...(costs && { costScope: scope }), ...stamp };
  let domain = await claimOnce(sink, CLAIM_KEY, mine);
  if (domain.domainId !== owner.domainId)
    domain = await settle(sink, { key: CLAIM_KEY, claim: domain, costs: false }, owner, mine, now);
  // Renewed only by runs of its cost scope, or of its domain while it names none: another scope's
  // runs (an inventory of a workspace) must not keep a killed run's cost claim alive.
  const otherCostScope = domain.costScope !== undefined && domain.costScope !== scope;
  if (costs && otherCostScope)
    domain = await settle(sink, { key: CLAIM_KEY, claim: domain, costs: true }, owner, mine, now);
  else if (!otherCostScope) await renew(sink, CLAIM_KEY, domain, now);
  if (!costs || domain.costScope !== undefined) return;
  const cost = await claimOnce(sink, COST_CLAIM_KEY, {
    domainId: owner.domainId,
    costScope: scope,
    ...stamp,
  });
  if (cost.costScope !== scope)
    await settle(sink, { key: COST_CLAIM_KEY, claim: cost, costs: true }, owner, mine, now);
  else await renew(sink, COST_CLAIM_KEY, cost, now);
}

/** A held claim of another owner: taken over when it has expired, else a refusal. */
async function settle(
  sink: Sink,
  held: Held,
  owner: DestinationOwner,
  mine: Claim,
  now: Date,
): Promise<Claim> {
  if (!isExpired(held.claim, await isBacked(sink, held.costs), now))
    throw await refusal(sink, held, owner, now);
  // One taker per expired claim: the takeover marker is created once, for that claim's time.
  const marker = claimTakeoverKey(held.key, held.claim.lastRunAt ?? held.claim.claimedAt ?? '');
  const won = (await createOnce(sink, marker, claimText(mine), 'application/json')) === 'created';
  const still = parseClaim(await sink.read(held.key));
  if (!won || JSON.stringify(still) !== JSON.stringify(held.claim))
    throw await refusal(sink, held, owner, now);
  const taken: Claim = held.key === CLAIM_KEY ? mine : { ...mine, domainId: held.claim.domainId };
  await sink.put(held.key, claimText(taken), 'application/json');
  // Another domain's destination held nothing at all: its cost scope's claim goes with it.
  if (!held.costs)
    await removeProven(sink, COST_CLAIM_KEY, ownScratch('an expired claim backed by no export'));
  return taken;
}

/**
 * The holder runs again: its claim's expiry starts over. Written only when the claim is older than
 * CLAIM_RENEW_AFTER_MS, so that reruns close together leave the destination byte for byte.
 */
async function renew(sink: Sink, key: string, held: Claim, now: Date): Promise<void> {
  const age = claimAge(held, now);
  if (age !== undefined && age < CLAIM_RENEW_AFTER_MS) return;
  await sink.put(
    key,
    claimText({ ...held, lastRunAt: now.toISOString(), by: claimant() }),
    'application/json',
  );
}

/** Creates the claim if there is none; returns the claim that holds, ours or the earlier one. */
async function claimOnce(sink: Sink, key: string, mine: Claim): Promise<Claim> {
  await createOnce(sink, key, claimText(mine), 'application/json');
  // Read back whether or not we created it: only what is stored says who holds the destination.
  const held = parseClaim(await sink.read(key));
  if (!held) {
    throw new DestinationClaimError(
      'DESTINATION_CLAIM_UNREADABLE',
      `destination ${sink.location}: ${key} is not a claim this tool wrote; move it away if it is yours, ` +
        'or restore it from a previous version; nothing was written',
    );
  }
  return held;
}

async function refusal(
  sink: Sink,
  held: Held,
  owner: DestinationOwner,
  now: Date,
): Promise<DestinationClaimError> {
  const scope = scopeName(owner);
  const theirs = held.costs ? held.claim.costScope : undefined;
  const holder = describeHolder(held.claim, theirs, now);
  const mine = held.costs ? describeScope(scope, owner.domainId) : `domain ${owner.domainId}`;
  const head = `destination ${sink.location} refused: it is claimed by ${holder}; this run is ${mine}`;
  if (await isBacked(sink, held.costs)) {
    const what = held.costs ? 'its cost objects' : 'its exports';
    return new DestinationClaimError(
      'DESTINATION_SCOPE_MISMATCH',
      `${head}, and ${what} would be replaced by this run's. Export each scope into its own prefix ` +
        `(e.g. --out ${sink.location}/<scope>); nothing was written`,
    );
  }
  return new DestinationClaimError(
    'DESTINATION_SCOPE_MISMATCH',
    `${head}. The holder has exported nothing here yet: a run of it is under way, or was killed before ` +
      `its first object. The claim expires ${CLAIM_EXPIRY_MS / 60_000} min after its latest run started, and the ` +
      `next run then takes it over; to release it now, once no run of it is going: ${releaseCommand(sink.location)} --force. ` +
      'Nothing was written',
  );
}
