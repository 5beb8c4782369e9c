// Which Cloudforet domain and cost scope a destination belongs to. Cost object keys carry no
// scope (costs/billed_date=D/<data_source_id>.parquet), so a workspace app's run into a domain
// app's destination would replace the domain's objects with its own subset. The first export
// records its owner; another domain, or another cost scope, is refused before anything is written.
import { ExportError } from '../errors.ts';
import { type AppScope, scopeName } from '../scope.ts';
import { CLAIM_KEY } from './layout.ts';
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

/**
 * Refuses a destination that belongs to another domain or cost scope (a read, no write); returns
 * the claim to write once the run is about to write data (writeClaim), so a refused or failed
 * run writes nothing.
 */
export async function checkClaim(sink: Sink, owner: DestinationOwner, costs: boolean): Promise<Claim> {
  const found = parseClaim(await sink.read(CLAIM_KEY));
  const scope = scopeName(owner);
  if (found && found.domainId !== owner.domainId) {
    throw refusal(
      sink,
      `it holds exports of domain ${found.domainId}, this app belongs to ${owner.domainId}`,
    );
  }
  if (costs && found?.costScope !== undefined && found.costScope !== scope) {
    throw refusal(
      sink,
      `its costs were exported by ${describe(found.costScope, found.domainId)}; this run is ${describe(scope, owner.domainId)}, ` +
        'and cost objects of two scopes would replace each other',
    );
  }
  return { domainId: owner.domainId, costScope: costs ? scope : found?.costScope };
}

export async function writeClaim(sink: Sink, claim: Claim): Promise<void> {
  await sink.put(CLAIM_KEY, `${JSON.stringify(claim, null, 2)}\n`, 'application/json');
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
