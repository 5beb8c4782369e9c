// What every run does to its destination before its first Cloudforet request: remove what killed
// runs left, prove it writable (so a bad --out fails at once, not after every listing was
// paged), and claim it for the app's domain and cost scope, atomically, before anything is
// planned: of two scopes started together into one destination, one wins and the other writes nothing.
import { claimDestination, type DestinationOwner } from '../storage/destination-claim.ts';
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
}

export async function prepareDestination(sink: Sink, opts: PrepareOptions): Promise<PreparedDestination> {
  await sink.checkWritable();
  const staleTemporariesRemoved = (await sink.removeStaleTemporaries?.(opts.startedAt)) ?? 0;
  if (opts.owner) await claimDestination(sink, opts.owner, opts.costs);
  return { staleTemporariesRemoved };
}
