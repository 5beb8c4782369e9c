// Runs s3rver in its own Node process, started with --openssl-legacy-provider: s3rver's
// ListObjectsV2 continuation tokens use DES, which OpenSSL 3 only offers through that provider.
// Argument: JSON {directory, buckets}. Sends {port} over IPC when listening; exits when the parent goes.

import S3rver from 's3rver';

const { directory, buckets } = JSON.parse(process.argv[2] ?? '{}');
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name })),
});

const { port } = await server.run();
process.send?.({ port });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
