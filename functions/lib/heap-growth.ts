// How far V8 lets the old generation grow past what a full GC kept. Its default factor (up to 4×
// on a large host) let a cost export's heap reach ~150 MB around a live set of ~40 MB; 1.5× keeps
// the peak ~60 MB lower for ~1 CPU µs a row more (docs/performance.md, "Memory, round 4").
// Not a flag NODE_OPTIONS accepts, so each Lambda entry sets it when its module loads; V8 reads
// it at every GC, so setting it before the first large allocation is enough.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** Sets the heap growing factor for this process (once per cold start). */
export function limitHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
