// Turns a destination (s3://bucket/prefix or a directory) into a sink.
import { S3Client } from '@aws-sdk/client-s3';
import { dirSink } from './dir-sink.ts';
import { s3Sink } from './s3-sink.ts';
import { parseDestination, type Sink } from './sink.ts';

export function openSink(destination: string, s3Client?: S3Client): Sink {
  const dest = parseDestination(destination);
  if (dest.kind === 'dir') return dirSink(dest.path);
  return s3Sink({ client: s3Client ?? new S3Client({}), bucket: dest.bucket, prefix: dest.prefix });
}
