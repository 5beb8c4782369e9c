// What a destination claim holds and when it has expired. A claim names its holder (domain and
// cost scope), who made it and when the holder's latest run started. It is an ownership, kept for
// good, once something it claims was exported; until then it only says a run of that scope began,
// and it expires CLAIM_EXPIRY_MS after the latest such run started (a killed run's claim).
import { hostname } from 'node:os';
import type { Sink } from '../storage/sink.ts';
import { MANIFESTS_DIR } from './layout.ts';

/** Longer than any run takes to export its first unit; far longer than the Lambda's 15 minutes. */
export const CLAIM_EXPIRY_MS = 60 * 60_000;
/**
 * A holder's run renews its claim when it is older than this: a run that exports its first unit
 * within CLAIM_EXPIRY_MS − CLAIM_RENEW_AFTER_MS (50 min) of its start keeps its claim.
 */
export const CLAIM_RENEW_AFTER_MS = 10 * 60_000;
/** The one command that releases a claim nothing backs, as the refusals print it. */
export const releaseCommand = (location: string) => `cloudforet-export release-claim --out ${location}`;

export interface Claim {
  readonly domainId: string;
  /** The scope whose cost objects live here: 'domain' or a workspace id; absent until a cost run. */
  readonly costScope?: string;
  /** When the claim was made (absent in claims of versions before 0.x). */
  readonly claimedAt?: string;
  /** When the latest run of the holder started: what expiry is measured from. */
  readonly lastRunAt?: string;
  /** Who made or last renewed it: a Lambda function, or a host and process id. */
  readonly by?: string;
}

export function parseClaim(text: string | undefined): Claim | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Claim;
    return typeof parsed.domainId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export const claimText = (claim: Claim) => `${JSON.stringify(claim, null, 2)}\n`;

/** Who this process is, as a claim names it; read when a claim is made, never at import. */
export function claimant(): string {
  const fn = process.env.AWS_LAMBDA_FUNCTION_NAME;
  return fn ? `Lambda function ${fn}` : `cloudforet-export on ${hostname()} (pid ${process.pid})`;
}

export function describeScope(scope: string, domainId: string): string {
  return scope === 'domain' ? `the domain app of ${domainId}` : `workspace ${scope} of ${domainId}`;
}

/** Milliseconds since the holder's latest run started; undefined for a claim that does not say. */
export function claimAge(claim: Claim, now: Date): number | undefined {
  const at = Date.parse(claim.lastRunAt ?? claim.claimedAt ?? '');
  return Number.isNaN(at) ? undefined : Math.max(0, now.getTime() - at);
}

/**
 * Expired: nothing the claim covers was exported (`backed` false) and its holder's latest run
 * started CLAIM_EXPIRY_MS ago or more. A claim without a time (older versions) never expires by
 * itself: release-claim releases it.
 */
export function isExpired(claim: Claim, backed: boolean, now: Date): boolean {
  const age = claimAge(claim, now);
  return !backed && age !== undefined && age >= CLAIM_EXPIRY_MS;
}

/**
 * Whether the destination holds what a claim covers: any cost manifest for a cost scope, any
 * manifest at all for a domain. Listed only when a claim is contested, never on the usual path.
 */
export async function isBacked(sink: Sink, costs: boolean): Promise<boolean> {
  // The costs table's manifests (tables/costs.ts names it; storage imports no table).
  const prefix = costs ? `${MANIFESTS_DIR}/costs/` : `${MANIFESTS_DIR}/`;
  return (await sink.list(prefix)).some((key) => key.endsWith('.json'));
}

/** "workspace w of d, claimed by … 2 h 5 min ago" */
export function describeHolder(claim: Claim, scope: string | undefined, now: Date): string {
  const who = scope === undefined ? `domain ${claim.domainId}` : describeScope(scope, claim.domainId);
  const age = claimAge(claim, now);
  const when = age === undefined ? 'at an unknown time (an older version)' : `${duration(age)} ago`;
  return `${who} (its latest run started ${when}${claim.by ? `, by ${claim.by}` : ''})`;
}

function duration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} days`;
}
