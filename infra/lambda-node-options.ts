// Node options of every function, shared with the bench's stage processes so that the bench
// measures what runs on Lambda. Node 22+ sizes V8's young generation from the machine's memory
// (semi-spaces up to 64 MB on a large host); 16 MB, Node 20's default, kept the cost export's
// peak RSS at ~245 MB instead of ~380 MB at the same throughput (npm run bench, docs/performance.md).
export const LAMBDA_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=16'] as const;
