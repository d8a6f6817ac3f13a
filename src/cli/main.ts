/**
 * The `shadowbook` command. Subcommands are added as their layers land:
 * demo (kernel demonstration) and serve (live mock server) now; run, fuzz,
 * replay and record later.
 */
import { Command } from "commander";
import { runKernelDemo } from "./demo.ts";
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
  .command("serve")
  .description("serve the live mock exchange: REST /v2, streaming /ws, order entry /exec, admin /admin")
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
  .action((options: ServeOptions) => serve(options));

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
