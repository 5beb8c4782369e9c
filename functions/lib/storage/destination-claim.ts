// Which Cloudforet domain and cost scope a destination belongs to. Cost object keys carry no
// scope (costs/billed_date=D/<data_source_id>.parquet), so a workspace app's run into a domain
// app's destination would replace the domain's objects with its own subset. Every run claims the
// destination before it plans anything, with a create that succeeds for one writer only (S3
// If-None-Match: *, a hard link locally): of two runs started together exactly one owns it, and
// the other is refused before it writes a byte.
import { ExportError } from '../errors.ts';
import { type AppScope, scopeName } from '../scope.ts';
import { CLAIM_KEY, COST_CLAIM_KEY } from './layout.ts';
import { createOnce } from './gate.ts';
import type { Sink } from './sink.ts';

export type DestinationOwner = AppScope;

export interface Claim {
  readonly domainId: string;
  /** The scope whose cost objects live here: 'domain' or a workspace id; absent until a cost run. */
  readonly costScope?: string;
}

export class DestinationClaimError extends ExportError {}

const describe = (scope: string, domainId: string) =>
  scope === 'domain' ? `the domain app of ${domainId}` : `workspace ${scope} of ${domainId}`;

/** Refuses, reading only, a destination another domain or cost scope already holds. */
export async function checkClaim(sink: Sink, owner: DestinationOwner, costs: boolean): Promise<void> {
  const domain = parseClaim(await sink.read(CLAIM_KEY));
  if (!domain) return;
  const costScope =
    domain.costScope ?? (costs ? parseClaim(await sink.read(COST_CLAIM_KEY))?.costScope : undefined);
  verify(sink, owner, costs, domain, costScope);
}

function verify(
  sink: Sink,
  owner: DestinationOwner,
  costs: boolean,
  domain: Claim,
  costScope: string | undefined,
) {
  const scope = scopeName(owner);
  if (domain.domainId !== owner.domainId) {
    throw refusal(
      sink,
      `it holds exports of domain ${domain.domainId}, this app belongs to ${owner.domainId}`,
    );
  }
  if (costs && costScope !== undefined && costScope !== scope) {
    throw refusal(
      sink,
      `its costs were exported by ${describe(costScope, owner.domainId)}; this run is ${describe(scope, owner.domainId)}, ` +
        'and cost objects of two scopes would replace each other',
    );
  }
}

/**
 * Claims the destination for the app's domain and, for a cost run, its cost scope; or proves it
 * already belongs to them. Throws DestinationClaimError (nothing written) when another domain or
 * another cost scope holds it. The domain claim of a destination's first run names its cost scope
 * too when that run exports costs; otherwise the cost scope is claimed in an object of its own.
 */
export async function claimDestination(sink: Sink, owner: DestinationOwner, costs: boolean): Promise<void> {
  const scope = scopeName(owner);
  const domain = await claimOnce(sink, CLAIM_KEY, {
    domainId: owner.domainId,
    ...(costs && { costScope: scope }),
  });
  verify(sink, owner, false, domain, undefined);
  if (!costs) return;
  const holder =
    domain.costScope ??
    (await claimOnce(sink, COST_CLAIM_KEY, { domainId: owner.domainId, costScope: scope })).costScope;
  verify(sink, owner, true, domain, holder ?? '?');
}

/** Creates the claim if there is none; returns the claim that holds, ours or the earlier one. */
async function claimOnce(sink: Sink, key: string, mine: Claim): Promise<Claim> {
  await createOnce(sink, key, `${JSON.stringify(mine, null, 2)}\n`, 'application/json');
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

function refusal(sink: Sink, why: string): DestinationClaimError {
  return new DestinationClaimError(
    'DESTINATION_SCOPE_MISMATCH',
    `destination ${sink.location} refused: ${why}. Export each scope into its own prefix ` +
      `(e.g. --out ${sink.location}/<scope>); nothing was written`,
  );
}

function parseClaim(text: string | undefined): Claim | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Claim;
    return typeof parsed.domainId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
