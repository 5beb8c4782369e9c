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

// s3rver ignores If-None-Match on PUT. S3 honours it (conditional writes: "If-None-Match: *" makes
// PutObject fail with 412 Precondition Failed when the key exists; Amazon S3 User Guide,
// "Add preconditions to S3 operations with conditional requests"), and the exporter's destination
// claim depends on it. This middleware gives s3rver that behaviour: the existence check and the
// write are serialised per key, so of two racing creates exactly one succeeds, as on S3.
const writes = new Map();
server.middleware.unshift(async (ctx, next) => {
  if (ctx.method !== 'PUT' || ctx.get('if-none-match') !== '*' || 'uploadId' in ctx.query) return next();
  const [bucket, ...rest] = ctx.path.slice(1).split('/');
  const key = decodeURIComponent(rest.join('/'));
  const id = `${bucket}/${key}`;
  const before = writes.get(id) ?? Promise.resolve();
  let release;
  const mine = new Promise((resolve) => {
    release = resolve;
  });
  writes.set(
    id,
    before.then(() => mine),
  );
  await before;
  try {
    if (await server.store.existsObject(bucket, key)) {
      ctx.status = 412;
      ctx.type = 'application/xml';
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code>' +
        '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
        '<Condition>If-None-Match</Condition></Error>';
      return;
    }
    await next();
  } finally {
    release();
  }
});

const { port } = await server.run();
process.send?.({ port });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
