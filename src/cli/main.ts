/**
 * The `shadowbook` command. Subcommands are added as their layers land:
 * demo (kernel demonstration) now; run, fuzz, serve, replay and record later.
 */
import { Command } from "commander";
import { runKernelDemo } from "./demo.ts";

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

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
