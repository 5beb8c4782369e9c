// `cloudforet-export release-claim --out DEST [--force]`: releases the destination claim a killed
// run left (nothing exported behind it), so that another scope may export there at once. Reads
// and writes the destination only; an ownership (the holder exported there) is never released.
import { releaseClaim } from '../functions/lib/storage/release-claim.ts';
import type { CommandContext } from './command-context.ts';

export async function runReleaseClaim(ctx: CommandContext): Promise<number> {
  const result = await releaseClaim(ctx.openSink(), { force: ctx.values.force === true });
  const stream = result.outcome === 'refused' ? ctx.io.stderr : ctx.io.stdout;
  const code = result.outcome === 'refused' ? ' [DESTINATION_CLAIM_HELD]' : '';
  stream.write(`${result.outcome === 'refused' ? 'cloudforet-export: ' : ''}${result.message}${code}\n`);
  return result.outcome === 'refused' ? 2 : 0;
}
