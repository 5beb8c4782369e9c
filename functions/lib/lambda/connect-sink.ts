// The adapter of an entry that needs S3 only (the backfill summary): apart from the Cloudforet
// connection, so that function's bundle carries neither undici nor Secrets Manager.
import type { FunctionConfig } from '../config.ts';
import { openSink } from '../storage/open-sink.ts';
import type { Sink } from '../storage/sink.ts';

export async function connectSink({ config }: { readonly config: FunctionConfig }): Promise<{ sink: Sink }> {
  return { sink: openSink(`s3://${config.bucket}/${config.prefix}`) };
}
