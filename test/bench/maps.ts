/**
 * Map-under-churn benchmark: what src/core/sharded-map.ts is for. A map of
 * N live decimal ids (10,000: an account's ended client ids; 60,000: the
 * live orders of a deep book) where each operation inserts the next id,
 * deletes the oldest and reads one: the pattern of the maps of live orders
 * and of ended client ids. The peer is a plain Map on the same keys.
 *
 * Per map and size: operations per second (a loop without timers), and the
 * slowest single operation and the count over 0.5 ms (each operation timed
 * alone in a second pass, leaving out those a garbage collection overlapped,
 * counted apart as `inGc`): a plain Map rebuilds its whole table whenever
 * the holes that deletes leave fill it, all on one insert; the sharded map
 * rebuilds 1/32 of it at a time. Each map and size is measured in a process
 * of its own (this file again, with `--measure KIND LIVE`), so that neither
 * runs on code that V8 specialised for the other. Prints one JSON line; it
 * never fails.
 */
import { spawnSync } from "node:child_process";
import { performance, PerformanceObserver } from "node:perf_hooks";
import { ShardedMap } from "../../src/core/sharded-map.ts";

const OPERATIONS = 1_000_000;
const SIZES = [10_000, 60_000] as const;
const SLOW_MS = 0.5;

interface StringMap {
  get(key: string): number | undefined;
  set(key: string, value: number): unknown;
  delete(key: string): boolean;
}

interface Figures {
  opsPerSec: number;
  worstMs: number;
  over05Ms: number;
  inGc: number;
}

/** Garbage collections seen while a pass runs: [start, end) in performance.now() milliseconds. */
const collections: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push([entry.startTime, entry.startTime + entry.duration]);
}).observe({ entryTypes: ["gc"] });

async function measure(make: () => StringMap, keys: readonly string[], live: number): Promise<Figures> {
  const churn = (map: StringMap, starts: Float64Array | null, durations: Float64Array | null): number => {
    let sum = 0;
    for (let i = 0; i < live; i++) map.set(keys[i]!, i);
    for (let i = 0; i < OPERATIONS; i++) {
      const started = starts === null ? 0 : performance.now();
      map.set(keys[live + i]!, i);
      map.delete(keys[i]!);
      sum += map.get(keys[i + 1 + (i % 97)]!) ?? 0;
      if (starts !== null) {
        starts[i] = started;
        durations![i] = performance.now() - started;
      }
    }
    return sum;
  };
  churn(make(), null, null); // warm-up: both shapes compiled before either is timed
  const started = process.hrtime.bigint();
  const checksum = churn(make(), null, null);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const starts = new Float64Array(OPERATIONS);
  const durations = new Float64Array(OPERATIONS);
  collections.length = 0;
  if (churn(make(), starts, durations) !== checksum) throw new Error("the two passes read different values");
  await new Promise((resolve) => setTimeout(resolve, 50)); // the observer reports after the pass
  const inGc = (i: number): boolean => collections.some(([from, to]) => starts[i]! < to && starts[i]! + durations[i]! > from);
  let worst = 0;
  let slow = 0;
  let gc = 0;
  for (let i = 0; i < OPERATIONS; i++) {
    const ms = durations[i]!;
    if (ms <= SLOW_MS && ms <= worst) continue;
    if (inGc(i)) {
      gc++;
      continue;
    }
    if (ms > worst) worst = ms;
    if (ms > SLOW_MS) slow++;
  }
  return { opsPerSec: Math.round(OPERATIONS / seconds), worstMs: Number(worst.toFixed(3)), over05Ms: slow, inGc: gc };
}

type Kind = "sharded" | "map";
const MAKERS: Record<Kind, () => StringMap> = { sharded: () => new ShardedMap<number>(), map: () => new Map<string, number>() };

const measureAt = process.argv.indexOf("--measure");
if (measureAt >= 0) {
  const kind = process.argv[measureAt + 1] as Kind;
  const live = Number(process.argv[measureAt + 2]);
  const keys = Array.from({ length: live + OPERATIONS + 100 }, (_, i) => String(1_000_000_000 + i));
  console.log(JSON.stringify(await measure(MAKERS[kind], keys, live)));
} else {
  const inChild = (kind: Kind, live: number): Figures => {
    const run = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, "--measure", kind, String(live)], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`measuring ${kind} at ${live}: ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Figures;
  };
  const result: Record<string, unknown> = { bench: "maps", operations: OPERATIONS };
  for (const live of SIZES) {
    const sharded = inChild("sharded", live);
    const plain = inChild("map", live);
    result[`live${live}`] = { sharded, map: plain, ratioOpsPerSec: Number((sharded.opsPerSec / plain.opsPerSec).toFixed(2)) };
  }
  console.log(JSON.stringify(result));
}
