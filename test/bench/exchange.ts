/**
 * Exchange benchmark: a seeded random order flow (test/exchange/flow.ts: 30
 * funded accounts, oracle random walks, LIMIT GTC/IOC orders and cancels)
 * through Exchange.handle in trusted mode (no signature checks), five
 * simulated minutes at 200 orders per second, with one subscriber counting
 * outputs. Measures the whole per-input path: gateway validation, matching,
 * pre-trade risk, blocks and settlement, and the output stream. Prints one
 * JSON line; it never fails. No peer on the package registry does this job,
 * so no ratio is printed.
 */
import { runFlow } from "../exchange/flow.ts";

let outputs = 0;
const t0 = performance.now();
const run = runFlow({ seed: 1, accounts: 30, durationMicros: 300_000_000, ordersPerSecond: 200 }, (ex) => ex.subscribe(() => outputs++));
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ bench: "exchange", inputs: run.inputs.length, outputs, seconds: Number(seconds.toFixed(3)), inputsPerSec: Math.round(run.inputs.length / seconds) }));
