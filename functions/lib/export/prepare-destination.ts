// What every run does to its destination before its first Cloudforet request: remove what killed
// runs left, prove it writable without writing (so a bad --out fails at once, not after every
// listing was paged), and refuse another domain's or cost scope's destination. The claim itself
// is written only when the run is about to write data: a refused or failed run writes nothing.
import { type Claim, checkClaim, type DestinationOwner, writeClaim } from '../storage/destination-claim.ts';
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
  /** Writes the destination's claim; call before the first data write. */
  claim(): Promise<void>;
}

export async function prepareDestination(sink: Sink, opts: PrepareOptions): Promise<PreparedDestination> {
  await sink.checkWritable();
  const staleTemporariesRemoved = (await sink.removeStaleTemporaries?.(opts.startedAt)) ?? 0;
  const claim: Claim | undefined = opts.owner ? await checkClaim(sink, opts.owner, opts.costs) : undefined;
  return { staleTemporariesRemoved, claim: async () => (claim ? writeClaim(sink, claim) : undefined) };
}
