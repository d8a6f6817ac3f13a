/**
 * Regenerates data/default-sample.arrow: the market data of the default
 * scenario (scenarios/default.ts) recorded inside a simulation, in
 * md-recording/1 (src/record/md-recording.ts). Deterministic: the same code
 * gives the same bytes.
 *
 *   npm run sample-data                          # data/default-sample.arrow
 *   npx tsx scripts/make-sample-data.ts --duration 600 --seed 1 --out data/x.arrow
 */
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import scenario from "../scenarios/default.ts";
import { recordScenarioMarketData, SAMPLE_DURATION_SECONDS, SAMPLE_PATH } from "../src/record/md-sim-recorder.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: String(SAMPLE_DURATION_SECONDS) },
    seed: { type: "string" },
    out: { type: "string", default: SAMPLE_PATH },
  },
});
const durationSeconds = Number(values.duration);
if (!(durationSeconds > 0)) throw new Error(`--duration "${values.duration}" is not a positive number of seconds`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isSafeInteger(seed)) throw new Error(`--seed "${values.seed}" is not an integer`);
const out = values.out!;
const started = performance.now();
const result = await recordScenarioMarketData(scenario, out, { durationSeconds, ...(seed === undefined ? {} : { seed }) });
const bytes = statSync(out).size;
console.log(
  `${out}: default scenario, seed ${result.seed}, ${result.simulatedSeconds} simulated s, ${result.rows} rows, ${(bytes / 1e6).toFixed(2)} MB, ${((performance.now() - started) / 1000).toFixed(1)} s wall`,
);
