/**
 * Simulator benchmark: one simulated hour of the default scenario
 * (scenarios/default.ts) in trusted mode, no observers, no invariants, as
 * `npm start` runs it minus the outputs. Prints one JSON line: simulated
 * events per second (kernel events: requests reaching the exchange,
 * responses and stream messages reaching agents, agent timers, oracle
 * steps, exchange timers), inputs the Exchange handled, and how much faster
 * than real time the hour ran. Targets (issue 8): >= 500,000 events/s and
 * the hour in < 10 s. No peer exists for a whole-exchange simulation.
 * `SIM_BENCH_SECONDS` shortens the run.
 */
import scenario from "../../scenarios/default.ts";
import { runScenario } from "../../src/sim/runner.ts";

const durationSeconds = Number(process.env["SIM_BENCH_SECONDS"] ?? scenario.durationSeconds);
const { figures } = await runScenario(scenario, { signatures: "trusted", durationSeconds });
console.log(
  JSON.stringify({
    bench: "sim",
    scenario: figures.scenario,
    simulatedSeconds: figures.simulatedSeconds,
    wallSeconds: Number(figures.wallSeconds.toFixed(3)),
    events: figures.events,
    eventsPerSec: Math.round(figures.eventsPerSecond),
    inputs: figures.inputs,
    inputsPerSec: Math.round(figures.inputs / figures.wallSeconds),
    outputs: figures.outputs,
    speedup: Number(figures.speedup.toFixed(1)),
    targetEventsPerSec: 500_000,
    targetWallSecondsPerSimHour: 10,
  }),
);
