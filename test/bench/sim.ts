/**
 * Simulator benchmark: one simulated hour of the default scenario
 * (scenarios/default.ts) in trusted mode, no observers, no invariants, as
 * `npm start` runs it minus the outputs. Prints one JSON line: simulated
 * events per second, inputs the Exchange handled, and how much faster than
 * real time the hour ran. Targets (issue 8): >= 500,000 events/s and the
 * hour in < 10 s. No peer exists for a whole-exchange simulation.
 * `SIM_BENCH_SECONDS` shortens the run.
 *
 * What an event is: one handler the simulation kernel (src/sim/kernel.ts)
 * runs, each a unit of simulated work at one virtual time. Nothing else is
 * counted: not Exchange outputs, not promise continuations of agent code,
 * not the event loop turns the runner takes between events. On seed 1 the
 * hour's 142,203 events are about:
 *   -  54,500 stream messages reaching an agent (channel_data, one per
 *      subscribed connection; the agent's handler runs);
 *   -  36,000 Exchange timer steps (`timerSteps`: the 100 ms blocks, with
 *      the 500 ms summaries and any expiry due at the same time);
 *   -  16,900 order-entry requests reaching the Exchange (inputs) and
 *      16,900 answers reaching the agents;
 *   -  15,800 agent timers (refreshes, taker arrivals, samples, probes);
 *   -   1,800 oracle steps (one input carrying every feed's price);
 *   -     800 REST reads and subscriptions, each a request and an answer;
 *   - a few setup steps (accounts, agent starts).
 * `inputs` are the Exchange inputs among them (requests, oracle steps,
 * admin and timeline actions); `outputs` what the Exchange emitted (every
 * one fingerprinted, routed, and delivered to its subscribers).
 */
import scenario from "../../scenarios/default.ts";
import { runScenario } from "../../src/sim/runner.ts";

const durationSeconds = Number(process.env["SIM_BENCH_SECONDS"] ?? scenario.durationSeconds);
const cpuBefore = process.cpuUsage();
const { run, figures } = await runScenario(scenario, { signatures: "trusted", durationSeconds });
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(
  JSON.stringify({
    bench: "sim",
    scenario: figures.scenario,
    simulatedSeconds: figures.simulatedSeconds,
    wallSeconds: Number(figures.wallSeconds.toFixed(3)),
    // CPU time of the process over the run (all threads): steadier than wall time on a shared machine.
    cpuSeconds: Number(cpuSeconds.toFixed(3)),
    events: figures.events,
    eventsPerSec: Math.round(figures.eventsPerSecond),
    inputs: figures.inputs,
    inputsPerSec: Math.round(figures.inputs / figures.wallSeconds),
    timerSteps: run.world.timerSteps,
    outputs: figures.outputs,
    cpuMicrosPerInput: Math.round((cpuSeconds * 1e6) / figures.inputs),
    speedup: Number(figures.speedup.toFixed(1)),
    targetEventsPerSec: 500_000,
    targetWallSecondsPerSimHour: 10,
  }),
);
