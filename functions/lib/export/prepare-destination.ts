// What every run does to its destination before its first Cloudforet request: remove what killed
// runs left, check the owner, and prove the destination writable (so a bad --out fails at once,
// not after every listing was paged).
import { claimDestination, type DestinationOwner } from '../storage/destination-claim.ts';
import type { Sink } from '../storage/sink.ts';

export interface PrepareOptions {
  readonly startedAt: Date;
  /** The app's domain and workspace; without it (tests, bench) the destination is not claimed. */
  readonly owner?: DestinationOwner;
  /** Cost runs claim the cost scope too: their object keys carry none. */
  readonly costs: boolean;
}

/** Returns how many stale temporary files were removed. */
export async function prepareDestination(sink: Sink, opts: PrepareOptions): Promise<number> {
  const removed = (await sink.removeStaleTemporaries?.(opts.startedAt)) ?? 0;
  if (opts.owner) await claimDestination(sink, opts.owner, opts.costs);
  return removed;
}
