/**
 * The `shadowbook` command: run (backtest a scenario), fuzz (seeded
 * swarm runs), serve (live mock server), demo (kernel demonstration).
 */
import { Command } from "commander";
import { runKernelDemo } from "./demo.ts";
import { fuzzCommand, type FuzzCommandOptions } from "./fuzz.ts";
import { replayCommand, type ReplayCommandOptions } from "./replay.ts";
import { runCommand, type RunCommandOptions } from "./run.ts";
import { serve, type ServeOptions } from "./serve.ts";

const program = new Command()
  .name("shadowbook")
  .description("Deterministic simulator, backtester, fuzzer and live mock of a perp and spot order-book exchange");

program
  .command("demo")
  .description("run a one-minute demonstration of the deterministic simulation kernel")
  .option("--seed <seed>", "root seed of the run's random streams", "1")
  .action((options: { seed: string }) => {
    const wallStart = process.hrtime.bigint();
    const result = runKernelDemo(options.seed);
    const wallMs = Number(process.hrtime.bigint() - wallStart) / 1e6;
    console.log(`shadowbook kernel demo (seed ${result.seed})`);
    console.log(`  virtual time     ${result.virtualStart} -> ${result.virtualEnd}`);
    console.log(`  events processed ${result.eventsProcessed} in ${wallMs.toFixed(1)} ms wall`);
    for (const [agent, count] of Object.entries(result.arrivalsByAgent)) {
      console.log(`  ${agent.padEnd(16)} ${count} order arrivals`);
    }
    console.log(`  oracle           ${result.oracleTicks} ticks, last price ${result.lastOraclePrice}`);
    console.log(`  fingerprint      ${result.fingerprint}`);
  });

program
  .command("run")
  .description("run a backtest of a scenario on the virtual clock (a file, or the name of one in scenarios/)")
  .argument("<scenario>", "scenario file (scenarios/*.ts) or name (default)")
  .option("--seed <n>", "root seed (default: the scenario's)")
  .option("--out <dir>", "write Arrow outputs, summary.json and report.html here")
  .option("--verify-signatures", "signed mode: agents sign and the gateway verifies every signature")
  .option("--duration <seconds>", "simulated seconds (default: the scenario's)")
  .option("--invariants", "check the exchange invariants during the run")
  .option("--fuzz", "apply this seed's fuzz draw (reproduces a `shadowbook fuzz` seed)")
  .option("--no-progress", "no progress bar")
  .option("--verbose", "also print each agent's own counters")
  .action(async (scenario: string, options: RunCommandOptions) => {
    await runCommand(scenario, options);
  });

program
  .command("fuzz")
  .description("run many seeds of a scenario with its fuzz draw and the invariants checked; print each failing seed with its reproduction")
  .argument("<scenario>", "scenario file (scenarios/*.ts) or name")
  .option("--seeds <seeds>", 'seeds: a range "1..1000" or a list "1,5,9"', "1..100")
  .option("--workers <n>", "worker threads (results are the same for any number)", "2")
  .option("--duration <seconds>", "simulated seconds per seed (default: the scenario's)")
  .option("--invariant-every <blocks>", "check the state invariants every this many blocks", "1")
  .option("--no-progress", "no progress line")
  .action(async (scenario: string, options: FuzzCommandOptions) => {
    await fuzzCommand(scenario, options);
  });

program
  .command("replay")
  .description("re-execute a run's input log (runs/<name>/inputs.arrow) and check its fingerprint after every step")
  .argument("<log>", "an inputs.arrow written by `shadowbook run --out`")
  .option("--until <unixMs>", "stop after the last step at or before this virtual time")
  .action((log: string, options: ReplayCommandOptions) => replayCommand(log, options));

program
  .command("serve")
  .description("serve the live mock exchange: REST /v2, streaming /ws, order entry /exec, admin /admin")
  .argument("[scenario]", "a scenario whose markets, accounts, feeds and agents to serve (default: built-in markets and house market makers)")
  .option("--port <port>", "TCP port (0 = any free port)", "8080")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--seed <seed>", "root seed (oracle path, house agents, chain)", "1")
  .option("--clock <mode>", "wall (real time x speed) or manual (moves only via POST /admin/clock)", "wall")
  .option("--start <unixMs>", "virtual time at start, Unix ms (default: now)")
  .option("--speed <factor>", "virtual seconds per real second (wall clock)", "1")
  .option("--chain-id <n>", "verifyingChainId of signed requests (default 89346162)")
  .option("--verifying-contract <address>", "orders gateway address of the signing domain")
  .option("--exchange-id <n>", "exchangeId that requests must carry", "1")
  .option("--record <dir>", "append every input to <dir>/inputs.jsonl for replay")
  .action((scenario: string | undefined, options: ServeOptions) => serve(options, scenario));

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
