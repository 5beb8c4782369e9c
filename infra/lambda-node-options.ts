// Node options of every function, shared with the bench's stage processes so that the bench
// measures what runs on Lambda. Node 22+ sizes V8's young generation from the machine's memory
// (semi-spaces up to 64 MB on a large host); 16 MB, Node 20's default, kept the cost export's
// peak RSS at ~245 MB instead of ~380 MB at the same throughput (npm run bench, docs/performance.md).
export const LAMBDA_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=16'] as const;

/**
 * The functions' environment beside NODE_OPTIONS. glibc gives each thread that allocates its own
 * malloc arena (up to 8 per core), and zlib's compressions run on libuv's four threads: memory
 * freed in those arenas stays resident. Two arenas took the cost export's peak RSS from ~300 to
 * ~260 MB at the same CPU (npm run bench, docs/performance.md). glibc's mmap threshold starts at
 * 128 KiB and rises to the largest block freed, after which the compressors' megabyte buffers come
 * from the arenas and stay there; fixed at 128 KiB, they are mapped and returned when freed: peak
 * RSS 293 → 282 MB without latency and 298 → 273 MB at 100 ms a page, at the same CPU
 * (docs/performance.md, round 4, third session). Lambda passes a function's environment to the
 * runtime process, whose glibc reads this at start.
 */
export const LAMBDA_RUNTIME_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;
