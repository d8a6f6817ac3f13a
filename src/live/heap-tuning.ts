/**
 * V8 heap settings for a process that serves the live mock: fewer objects
 * promoted, and fewer mark-compacts.
 *
 * Allocation-site pretenuring off. V8 watches each object and array
 * literal's allocation site, and once the objects from a site survive
 * scavenges at a high rate it allocates that site's objects in old space
 * directly, for the rest of the process. A server's per-request literals
 * (the exec queue's entries, inputs, answers) survive while a burst waits
 * in a queue, so a burst at start-up (a client's warm-up) can tenure them
 * all. From then on each request's holder is born old, and what it points
 * to (the frame's text, its parsed payload, the answer's text) is kept
 * alive by the dead holder through every scavenge until the next
 * mark-compact: promoted, though it lived a millisecond. Measured
 * 2026-11-27 on the live benchmark's paced phase (`--trace-gc-nvp`, the
 * server's isolate, its last 40 scavenges): ~760-980 KB promoted per
 * scavenge and a 4.0 ms pause with pretenuring, ~290 KB and 2.7 ms without.
 *
 * The old generation may grow to three times what the last mark-compact
 * left (`--heap-growing-percent=200`) before the next one. V8 otherwise
 * sizes that headroom itself, from how fast its collector is against the
 * allocation rate, and at most 1.3x while it grows the heap slowly (as
 * after its memory reducer has run, which a server that idles now and
 * then sets off); for this server it was ~1.3x: after a burst (the
 * benchmark's closed loop) it marked and compacted every 3.5-5 s, ~35 MB
 * live each time, with pauses of 10-24 ms, and each pause and the backlog
 * behind it were the paced phase's p99.9 (~30-40 ms) and often its p99.
 * Measured 2026-11-27, five interleaved pairs of full runs of
 * test/bench/live.ts, paced p99 / p99.9 in ms, with the flag: 4.6/6.9,
 * 5.5/8.8, 4.8/7.6, 4.3/6.3, 4.6/6.6; without: 16.2/38.0, 7.0/33.6,
 * 12.0/31.3, 4.8/7.3, 11.2/30.1. The cost is memory: a heap up to ~3x its
 * live size (~105 MB at the benchmark's ~35 MB live).
 *
 * Set at run time (`v8.setFlagsFromString`) because the server runs in the
 * CLI's own process (bin/shadowbook.mjs says why). V8 reads the first flag
 * when a collection processes the allocation sites' feedback: from then on
 * no site is tenured, but a site tenured before stays so; it reads the
 * second each time it sets the next limit, after every mark-compact.
 * startLiveServer calls it before the server takes a request; `replay --serve` calls it
 * before it replays the log into the Exchange it will serve. It is
 * process-wide (worker threads included) and is not undone. It changes
 * only where and when V8 places and collects objects: nothing a run
 * computes.
 */
import { setFlagsFromString } from "node:v8";

let applied = false;

/** Applies the settings above to this process (once; later calls do nothing). */
export function tuneHeapForServing(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString("--no-allocation-site-pretenuring");
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** How far the old generation may grow past what the last mark-compact left, in percent (see above). */
export const HEAP_GROWING_PERCENT = 200;
