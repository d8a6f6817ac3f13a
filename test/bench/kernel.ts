/**
 * Kernel benchmark: 5 million events through the simulation kernel with
 * about 100,000 pending at any time; a fifth of the new events are due at
 * the current time (FIFO among equals), the rest at exponentially spread
 * future times, and one in twenty events cancels a random pending one and
 * schedules a replacement. Random draws are made before timing starts, so
 * the figure is the kernel's. Prints one JSON line; it never fails.
 */
import { RngRoot } from "../../src/core/rng.ts";
import { Simulation } from "../../src/sim/kernel.ts";

const EVENTS = 5_000_000;
const PENDING = 100_000;
const DRAWS = 1 << 20; // a power of two, for cheap cycling

const rng = new RngRoot("bench:kernel").stream("workload");
const delays = new Float64Array(DRAWS);
const picks = new Uint32Array(DRAWS);
for (let i = 0; i < DRAWS; i++) {
  delays[i] = rng.bernoulli(0.2) ? 0 : Math.round(rng.exponential(1 / 50_000)) + 1;
  picks[i] = rng.int(0, PENDING - 1);
}

const sim = new Simulation({ startMicros: 0 });
const handles = new Float64Array(PENDING); // a sample of recent handles to cancel from
let cursor = 0;
let scheduled = 0;
let cancelled = 0;

function onEvent(): void {
  const i = cursor++ & (DRAWS - 1);
  if (scheduled < EVENTS) {
    handles[i % PENDING] = sim.after(delays[i]!, onEvent);
    scheduled++;
    if (i % 20 === 0) {
      if (sim.cancel(handles[picks[i]!]!)) cancelled++;
      handles[picks[i]!] = sim.after(delays[(i + 1) & (DRAWS - 1)]!, onEvent);
      scheduled++;
    }
  }
}

for (let i = 0; i < PENDING; i++) {
  handles[i] = sim.after(delays[i]!, onEvent);
  scheduled++;
}

const started = process.hrtime.bigint();
const stats = sim.run();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

console.log(
  JSON.stringify({
    bench: "kernel",
    events: stats.eventsProcessed,
    scheduled,
    cancelled,
    pendingAtStart: PENDING,
    seconds: Number(seconds.toFixed(3)),
    eventsPerSec: Math.round(stats.eventsProcessed / seconds),
    targetEventsPerSec: 4_000_000,
  }),
);
