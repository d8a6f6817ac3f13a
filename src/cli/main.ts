/**
 * The `shadowbook` command: run (backtest a scenario), fuzz (seeded
 * swarm runs), serve (live mock server), demo (kernel demonstration).
 */
import { Command } from "commander";
import { runKernelDemo } from "./demo.ts";
import { fuzzCommand, type FuzzCommandOptions } from "./fuzz.ts";
import { REPLAY_SERVE_DEFAULTS, replayCommand, type ReplayCommandOptions } from "./replay.ts";
import { recordCommand, type RecordCommandOptions } from "./record.ts";
import { parseSeed, runCommand, type RunCommandOptions } from "./run.ts";
import { serve, type ServeOptions } from "./serve.ts";
import { sweepCommand, type SweepCommandOptions } from "./sweep.ts";
import { DEFAULT_EDGE_LIMIT } from "../live/edge-limiter.ts";
import { codeIdentity } from "../record/code-id.ts";
import { CONNECTIONS_PER_IP_MAX, WEBSOCKETS_PER_IP_MAX } from "../live/server.ts";
import { SLOW_CONSUMER_BYTES_DEFAULT, SUBSCRIPTIONS_PER_CONNECTION_MAX } from "../live/stream.ts";
import { EXEC_SLOW_CONSUMER_BYTES_DEFAULT } from "../live/exec.ts";

/** Collects a repeatable option's values, in order. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * --set's help (run, fuzz and sweep; src/sim/overrides.ts has the rules):
 * what a path may name, how the value is read, and, for run and fuzz, when
 * it applies. `seedFlag` is the command's own flag for seeds.
 */
const setHelp = (seedFlag: string, afterFuzzDraw: boolean): string =>
  "change a scenario value for this run, repeatable: <agent>.<param> (a key of the agent's defaults, checked by its checkParams), " +
  "<agent>.account.rateTier, or one of startMs, oracleBasisSd, oracleBasisMean, signatures, settlement.bustProbability " +
  `(seed and durationSeconds: use ${seedFlag} and --duration); the value is JSON when it parses (5, true, null, '["ETHRUSDPERP"]', '"text"'), else text` +
  (afterFuzzDraw ? "; applied after a fuzz draw (the given value wins)" : "");

const program = new Command()
  .name("shadowbook")
  // The package version and the code's hash (record/code-id.ts): what an input log names as the code that recorded it.
  // Hashed only when asked for (~50 ms of reading files), not on every command.
  .version(process.argv.slice(2).some((arg) => arg === "--version" || arg === "-V") ? codeIdentity() : "", "-V, --version", "print the version of this code (package version + hash of src/, agents/ and the dependencies) and exit")
  .description("Deterministic simulator, backtester, fuzzer and live mock of a perp and spot order-book exchange");

program
  .command("demo")
  .description("run a one-minute demonstration of the deterministic simulation kernel")
  .option("--seed <seed>", "root seed of the run's random streams", "1")
  .action((options: { seed: string }) => {
    const wallStart = process.hrtime.bigint();
    // The seed as run takes it (a non-negative integer), in its plain digits.
    const result = runKernelDemo(String(parseSeed(options.seed)));
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
  .option("--invariant-every <blocks>", "with --invariants or --fuzz: check the state invariants every this many blocks (default 1; a fuzz failure's reproduce command gives the fuzz run's)")
  .option("--fuzz", "apply this seed's fuzz draw (reproduces a `shadowbook fuzz` seed)")
  .option("--set <path=value>", setHelp("--seed", true), collect)
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
  .option("--out <dir>", "write each failing seed's input log to <dir>/seed-<n>/inputs.arrow (default: runs/fuzz-<scenario>)")
  .option("--set <path=value>", `${setHelp("--seeds", true)}; a failing seed's reproduce command carries the same --set flags`, collect)
  .option("--seed-timeout <seconds>", "with 2 or more workers: a seed still running after this many seconds of wall time fails as Timeout (its worker is replaced)")
  .option("--no-progress", "no progress line")
  .action(async (scenario: string, options: FuzzCommandOptions) => {
    await fuzzCommand(scenario, options);
  });

program
  .command("sweep")
  .description("backtest a scenario over every combination of --vary values, once per seed; print each combination's figures per agent")
  .argument("<scenario>", "scenario file (scenarios/*.ts) or name")
  .option("--vary <path=values>", "a path as --set takes and its values, comma-separated (commas inside [] {} \"\" do not split), repeatable: --vary mm-eth.spreadBps=4,6,8", collect)
  .option("--seeds <seeds>", 'seeds of every combination: a range "1..3" or a list "1,5,9"', "1")
  .option("--workers <n>", "worker threads (results are the same for any number)", "2")
  .option("--duration <seconds>", "simulated seconds per run (default: the scenario's)")
  .option("--set <path=value>", `${setHelp("--seeds", false)}; the same for every run (a path may not be both set and varied)`, collect)
  .option("--agent <name>", "an agent to show, repeatable (default: the agents the --vary paths name, else all)", collect)
  .option("--out <dir>", "write sweep.json: every run (values, seed, fingerprint, figures, its own run command) and every combination")
  .option("--run-timeout <seconds>", "with 2 or more workers: a run still going after this many seconds of wall time fails as Timeout (its worker is replaced)")
  .option("--no-progress", "no progress line")
  .action(async (scenario: string, options: SweepCommandOptions) => {
    await sweepCommand(scenario, options);
  });

program
  .command("replay")
  .description("re-execute a run's input log (runs/<name>/inputs.arrow) and check its fingerprint after every step; stop at a time, write the state, serve it")
  .argument("<log>", "an inputs.arrow written by `shadowbook run --out`, `shadowbook fuzz` or `shadowbook serve --record`")
  .option("--until <time>", "stop after the last step at or before this virtual time (Unix ms or ISO-8601, e.g. 2026-01-01T00:05:00Z) and write the state as JSON")
  .option("--state-out <file>", "where to write the state JSON (default: <log dir>/state-<ms>.json)")
  .option("--serve", "then serve the replayed exchange live (REST, streaming, order entry, admin); the run's agents do not come back")
  // No commander defaults for --clock, --port and --host: replayCommand must see whether they were given (without --serve they are refused).
  .option("--clock <mode>", `with --serve: manual (moves only via POST /admin/clock) or wall (runs from the replayed time) (default: "${REPLAY_SERVE_DEFAULTS.clock}")`)
  .option("--port <port>", `with --serve: TCP port (0 = any free port) (default: "${REPLAY_SERVE_DEFAULTS.port}")`)
  .option("--host <host>", `with --serve: address to listen on (default: "${REPLAY_SERVE_DEFAULTS.host}")`)
  .option("--no-progress", "no progress line (one appears on stderr when a replay takes over 2 s)")
  .action(async (log: string, options: ReplayCommandOptions) => {
    await replayCommand(log, options);
  });

program
  .command("serve")
  .description("serve the live mock exchange: REST /v2, streaming /ws, order entry /exec, admin /admin")
  .argument("[scenario]", "a scenario whose markets, accounts, feeds and agents to serve (default: built-in markets and house market makers)")
  .option("--port <port>", "TCP port (0 = any free port)", "8080")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--seed <seed>", "root seed (oracle path, house agents, chain)", "1")
  .option("--clock <mode>", "wall (real time x speed) or manual (moves only via POST /admin/clock)", "wall")
  .option("--start <unixMs>", "virtual time at start, Unix ms (default: now)")
  .option("--speed <factor>", "virtual seconds per real second, with the wall clock (default 1)")
  .option("--chain-id <n>", "verifyingChainId of signed requests (default 89346162)")
  .option("--verifying-contract <address>", "orders gateway address of the signing domain")
  .option("--exchange-id <n>", "exchangeId that requests must carry", "1")
  .option("--record <dir>", "log every input and clock step to <dir>/inputs.arrow, for `shadowbook replay`")
  .option("--durability <mode>", "with --record: sync (an answer waits until its request is on disk; the default) or async (answers at once)")
  .option("--signer-threads <n>", "worker threads recovering order-entry signatures off the main thread when requests queue up (0: none; auto: none when the comb verifier is built, whose own thread then checks known signers' signatures, else one per core beyond the first, at most 4)", "auto")
  .option("--edge-limit <n>", "network-edge limit: /v2 REST requests per source IP per 60 s fixed window, then HTTP 429 with no body (0: no limit; /admin and /health are exempt)", String(DEFAULT_EDGE_LIMIT.requestsPerWindow))
  .option("--slow-consumer-bytes <n>", "unsent bytes a streaming (/ws) connection may hold before it is closed with 1013 as a slow consumer", String(SLOW_CONSUMER_BYTES_DEFAULT))
  .option("--exec-slow-consumer-bytes <n>", "unsent answer bytes an order-entry (/exec) connection may hold before it is closed with 1013 as a slow consumer (at least the largest frame, 65 KiB)", String(EXEC_SLOW_CONSUMER_BYTES_DEFAULT))
  // No commander default: the server checks the connection limit against the WebSocket limit only when one is given (serve.ts).
  .option("--websockets-per-ip <n>", `open WebSocket connections (/ws and /exec together) per source IP; an upgrade beyond it is answered HTTP 429 (default: "${WEBSOCKETS_PER_IP_MAX}")`)
  .option("--connections-per-ip <n>", "open TCP connections per source IP, HTTP and WebSocket alike (at least --websockets-per-ip); one beyond it is closed unanswered", String(CONNECTIONS_PER_IP_MAX))
  .option("--subscriptions-per-connection <n>", "channels one streaming (/ws) connection may hold at once; a subscribe beyond it gets an error frame", String(SUBSCRIPTIONS_PER_CONNECTION_MAX))
  .action((scenario: string | undefined, options: ServeOptions) => serve(options, scenario));

program
  .command("record")
  .description("record a streaming server's frames (shadowbook's or the real service's) into an md-recording/1 Arrow file; reconnects on 1012/1013/1001 and marks the gap")
  .requiredOption("--url <url>", "streaming endpoint, e.g. ws://127.0.0.1:8080/ws")
  .requiredOption("--channels <list>", 'comma-separated channels, e.g. "/v2/market/ETHRUSDPERP/depth,/v2/market/ETHRUSDPERP/perpExecutions"')
  .requiredOption("--out <file>", "the recording to write, a new file (an existing one is refused), e.g. data/eth.arrow; none is left when the first connection or a channel fails")
  .option("--duration <seconds>", "wall-clock seconds to record (default: until SIGINT or SIGTERM)")
  .option("--max-rows <n>", "stop after this many rows")
  .option("--quiet", "no progress lines on stderr")
  .action(async (options: RecordCommandOptions) => {
    await recordCommand(options);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  // The whole error, its cause's stack included (an agent's failure points into the agent's code).
  if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
  process.exit(1);
});
