/**
 * V8 heap settings for a process that serves the live mock.
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
 * Set at run time (`v8.setFlagsFromString`) because the server runs in the
 * CLI's own process (bin/shadowbook.mjs says why). V8 reads the flag when a
 * collection processes the allocation sites' feedback: from then on no
 * site is tenured, but a site tenured before stays so. startLiveServer
 * calls it before the server takes a request; `replay --serve` calls it
 * before it replays the log into the Exchange it will serve. It is
 * process-wide (worker threads included) and is not undone. It changes
 * only where V8 places objects: nothing a run computes.
 */
import { setFlagsFromString } from "node:v8";

let applied = false;

/** Applies the settings above to this process (once; later calls do nothing). */
export function tuneHeapForServing(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString("--no-allocation-site-pretenuring");
}
