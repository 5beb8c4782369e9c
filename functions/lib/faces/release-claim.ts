// The claim release's face, `cloudforet-export release-claim`: releases the destination claim a
// killed run left (nothing exported behind it), so that another scope may export there at once.
// Reads and writes the destination only; an ownership (the holder exported there) is never
// released, and a refusal fails the run (DESTINATION_CLAIM_HELD). Its input: {"force"}.

import { DestinationClaimError } from '../destination/destination-claim.ts';
import { type ReleaseOutcome, releaseClaim as release } from '../destination/release-claim.ts';
import { eventFields, flag } from '../input/event-shape.ts';
import { connectSink } from '../lambda/connect-sink.ts';
import type { Sink } from '../storage/sink.ts';
import type { Face } from './face.ts';

export { CLAIM_EXPIRY_MS } from '../destination/claim-records.ts';

export const releaseClaim: Face<{ readonly sink: Sink }, { readonly force: boolean }, ReleaseOutcome> = {
  label: 'release-claim',
  needs: 'sink',
  connect: connectSink,
  parse: (input) => ({
    force: flag(eventFields(input, ['force'], '{"force": true}') ?? {}, 'force', 'EVENT_BAD_FORCE'),
  }),
  run: async ({ sink }, { force }) => {
    const result = await release(sink, { force });
    if (result.outcome === 'refused')
      throw new DestinationClaimError('DESTINATION_CLAIM_HELD', result.message);
    return result;
  },
  describe: (r) => [r.message],
  figures: () => ({}),
};
