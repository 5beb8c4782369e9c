// `cloudforet-export release-claim --out DEST [--force]`: releases the destination claim a killed
// run left (nothing exported behind it), so that another scope may export there at once
// (functions/lib/faces/release-claim.ts). A refusal exits 2 [DESTINATION_CLAIM_HELD].
import { releaseClaim } from '../functions/lib/faces/release-claim.ts';
import { cliEntry } from './cli-entry.ts';

export const runReleaseClaim = cliEntry(releaseClaim, { input: (values) => ({ force: values.force }) });
