// What every run does to its destination before its first Cloudforet request: remove what killed
// runs left, prove it writable without writing (so a bad --out fails at once, not after every
// listing was paged), and refuse a destination another domain or cost scope already holds. The
// claim itself (claim()) is an atomic create that the run makes once Cloudforet has answered
// (so a bad secret or endpoint writes nothing) and before it plans: of two scopes started
// together into one destination, one wins and the other writes nothing.
import { checkClaim, claimDestination, type DestinationOwner } from '../destination/destination-claim.ts';
import type { Sink } from '../storage/sink.ts';

export interface PrepareOptions {
  readonly startedAt: Date;
  /** The app's domain and workspace; without it (tests, bench) the destination is not claimed. */
  readonly owner?: DestinationOwner;
  /** Cost runs claim the cost scope too: their object keys carry none. */
  readonly costs: boolean;
}

export interface PreparedDestination {
  readonly staleTemporariesRemoved: number;
  /** Claims the destination (atomic; once per run); call before planning and any write. */
  claim(): Promise<void>;
}

export async function prepareDestination(sink: Sink, opts: PrepareOptions): Promise<PreparedDestination> {
  await sink.checkWritable();
  const staleTemporariesRemoved = (await sink.removeStaleTemporaries?.(opts.startedAt)) ?? 0;
  const { owner } = opts;
  if (!owner) return { staleTemporariesRemoved, claim: async () => {} };
  await checkClaim(sink, owner, opts.costs);
  let claimed: Promise<void> | undefined;
  return { staleTemporariesRemoved, claim: () => (claimed ??= claimDestination(sink, owner, opts.costs)) };
}
