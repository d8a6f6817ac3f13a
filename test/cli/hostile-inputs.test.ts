/**
 * Hostile input to the real `shadowbook` command, as a user of the command
 * line and of files sends it: bad flags of every subcommand, scenario files
 * with wrong types and out-of-range values, price paths, market-data
 * recordings and input logs that are missing, empty, truncated, of another
 * kind or edited. The project's rule: bad input gets a clear error that
 * names the field (flag, file) and the rule; a rejected request changes
 * nothing; nothing a client sends crashes the command or loses data.
 *
 * For every refusal: a non-zero exit status; one line (stderr, or stdout for
 * replay's documented DIVERGES report) that names the field and states the
 * rule; no JavaScript stack frame; no message meant for developers (a
 * TypeError/RangeError/... name, "Cannot read properties of", "is not a
 * function", a JSON.parse position); and an answer in time (a warm command
 * refuses in well under 5 s, so a case still running then is a hang).
 * Refusals whose message carries an error name but is otherwise clear are
 * allowed explicitly and marked `allowErrorName` below (none at present:
 * agents' parameters, their symbols included, are refused by the scenario
 * check, without one).
 *
 * Most cases run through helpers-hostile.ts: the real CLI (src/cli/main.ts,
 * as bin/shadowbook.mjs runs it) once per case inside one child process, so
 * ~200 cases cost one CLI load instead of ~200. Three batches:
 *   A  flags of every subcommand, scenario files, --out and --record targets
 *      (first case: a good short run with --out, whose input log the file
 *      cases edit);
 *   B  files for `replay` (made from A's log between A and B), then a good
 *      replay and a good run;
 *   H  the inputs that once hung (each is killed after its time limit and
 *      the batch goes on in a fresh child), run in parallel with A and B.
 * Real processes check what a batch cannot: a `serve` refusal through
 * spawnServe (compared with the batch's answer for the same arguments), a
 * server that a huge --signer-threads makes unresponsive, and a good run at
 * the end (same fingerprint as in the batch).
 *
 * Cases marked "Was:" failed when the suite was written (2026-11-21, all
 * fixed since); the comment says what the CLI did then, so that a
 * regression is recognised.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Field, RecordBatch, Schema, Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.ts";
import { runBatch, type BatchCase, type Outcome } from "./helpers-hostile.ts";
import { ROOT, shadowbook, type Ran } from "./shadowbook-process.ts";

// -- what a clear refusal is ----------------------------------------------------------------

interface Refusal {
  /** The field, flag or file the refusal must name. */
  readonly field: RegExp;
  /** The rule it must state. */
  readonly rule: RegExp;
  /** The line may carry an error name (RangeError ...) because the rest of it is clear: noted where used. */
  readonly allowErrorName?: true;
  /** The clear line may be on stdout (replay's DIVERGES report is). */
  readonly onStdout?: true;
}

const STACK_FRAME = /^\s+at\s+\S.*(:\d+:\d+\)?|<anonymous>\)?|\(native\))\s*$/m;
const ERROR_NAMES = /\b(TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AssertionError|InvariantError)\b/;
const JS_INTERNALS = /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not defined|\(reading '|Unexpected token|in JSON at position|Received type|\[object Object\]|toFixed\(\)|__shadowbook_batch_exit/;
/** A warm command answers a refusal in well under this. */
const WARM_REFUSAL_MS = 5_000;

function describeOutcome(outcome: Pick<Outcome, "args" | "status" | "stdout" | "stderr" | "hung" | "wallMs">): string {
  const clip = (text: string) => (text.length > 1_500 ? `${text.slice(0, 1_500)}...` : text);
  return [
    `shadowbook ${outcome.args.map((arg) => (/[\s"]/.test(arg) || arg === "" ? JSON.stringify(arg) : arg)).join(" ")}`,
    `status ${outcome.status}${outcome.hung ? ` (no answer after ${outcome.wallMs} ms: killed)` : ` after ${outcome.wallMs} ms`}`,
    `stderr: ${clip(outcome.stderr) || "(empty)"}`,
    `stdout: ${clip(outcome.stdout) || "(empty)"}`,
  ].join("\n");
}

function expectClearRefusal(outcome: Outcome | undefined, refusal: Refusal, timeLimitMs = WARM_REFUSAL_MS): void {
  expect(outcome, "the case did not run").toBeDefined();
  const o = outcome!;
  const context = describeOutcome(o);
  expect(o.hung, `a hang, not a refusal:\n${context}`).toBe(false);
  expect(o.status, `accepted (exit status 0), not refused:\n${context}`).not.toBe(0);
  const all = `${o.stderr}\n${o.stdout}`;
  expect(STACK_FRAME.test(all), `a stack trace:\n${context}`).toBe(false);
  expect(JS_INTERNALS.test(o.stderr), `a message meant for developers:\n${context}`).toBe(false);
  if (refusal.allowErrorName !== true) expect(ERROR_NAMES.test(o.stderr), `an error class name in the message:\n${context}`).toBe(false);
  const errLines = o.stderr.split("\n").filter((line) => line.trim() !== "");
  const lines = refusal.onStdout === true ? [...errLines, ...o.stdout.split("\n")] : errLines;
  const clear = lines.find((line) => refusal.field.test(line) && refusal.rule.test(line));
  expect(clear, `no line names ${refusal.field} and states ${refusal.rule}:\n${context}`).toBeDefined();
  expect(errLines.length, `more than two lines on stderr:\n${context}`).toBeLessThanOrEqual(2);
  expect(o.wallMs, `slow refusal:\n${context}`).toBeLessThan(timeLimitMs);
}

function expectSuccess(outcome: Outcome | undefined): void {
  expect(outcome, "the case did not run").toBeDefined();
  const context = describeOutcome(outcome!);
  expect(outcome!.hung, context).toBe(false);
  expect(outcome!.status, context).toBe(0);
  expect(STACK_FRAME.test(outcome!.stderr), context).toBe(false);
}

// -- the files the cases use ----------------------------------------------------------------

const TMP = mkdtempSync(join(tmpdir(), "shadowbook-hostile-"));
const SCENARIOS = join(TMP, "scenarios");
const FILES = join(TMP, "files");
const LOGS = join(TMP, "logs");
mkdirSync(SCENARIOS);
mkdirSync(FILES);
mkdirSync(LOGS);
const scenarioFile = (name: string) => join(SCENARIOS, `${name}.ts`);
const file = (name: string) => join(FILES, name);
const log = (name: string) => join(LOGS, `${name}.arrow`);
/** The good short run's --out (batch A's first case); its inputs.arrow is the log the file cases edit. */
const GOOD_OUT = join(TMP, "good-run");
const GOOD_LOG = join(GOOD_OUT, "inputs.arrow");

const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);
const HEADER = `// Written by test/cli/hostile-inputs.test.ts.
import { defineScenario } from ${url("src/sim/scenario.ts")};
import { DEFAULT_MARKETS } from ${url("src/exchange/config.ts")};
import { marketMaker } from ${url("agents/market-maker.ts")};
import { noiseTaker } from ${url("agents/noise-taker.ts")};
import { replayMarketMaker } from ${url("agents/replay-market-maker.ts")};
const M: any = DEFAULT_MARKETS;
const perp = (index: number, patch: object) => ({ ...M, perpMarkets: M.perpMarkets.map((m: any, i: number) => (i === index ? { ...m, ...patch } : m)) });
const asset = (index: number, patch: object) => ({ ...M, assets: M.assets.map((a: any, i: number) => (i === index ? { ...a, ...patch } : a)) });
const tier = (index: number, patch: object) => ({ ...M, feeTiers: M.feeTiers.map((t: any, i: number) => (i === index ? { ...t, ...patch } : t)) });
const base: any = {
  name: "hostile",
  description: "a short valid scenario the cases break one field of",
  seed: 1,
  durationSeconds: 2,
  signatures: "trusted",
  prices: [
    { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01 },
    { asset: "WBTC", model: "gbm", start: 60000, hourlyVolatility: 0.01 },
  ],
  agents: [
    { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP" }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
    { name: "taker", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 2 }, account: { rateTier: 3 } },
  ],
};
const feed0 = (patch: object) => [{ ...base.prices[0], ...patch }, base.prices[1]];
const agent0 = (patch: object) => [{ ...base.agents[0], ...patch }, base.agents[1]];
const replay: any = {
  name: "hostile-replay",
  description: "the replay backtest of the shipped sample, the cases break one field of",
  seed: 1,
  durationSeconds: 5,
  prices: [],
  agents: [],
  marketData: {
    recording: "default-sample.arrow",
    strategy: replayMarketMaker,
    params: { quoteNotional: 3000, maxPositionNotional: 30000, refreshMicros: 2000000, requoteTicks: 1, skewTicksPerLot: 0 },
  },
};
const md = (patch: object) => ({ ...replay, marketData: { ...replay.marketData, ...patch } });
`;

/** Scenario files: name -> module body after HEADER. */
const SCENARIO_BODIES: Record<string, string> = {
  ok: `export default defineScenario(base);`,
  // markets
  tickZero: `export default defineScenario({ ...base, markets: perp(0, { tickSize: "0" }) });`,
  tickNegative: `export default defineScenario({ ...base, markets: perp(0, { tickSize: "-0.1" }) });`,
  tickText: `export default defineScenario({ ...base, markets: perp(0, { tickSize: "abc" }) });`,
  tickNumber: `export default defineScenario({ ...base, markets: perp(0, { tickSize: 0.1 }) });`,
  duplicateMarketId: `export default defineScenario({ ...base, markets: perp(1, { marketId: 1 }) });`,
  duplicateSymbol: `export default defineScenario({ ...base, markets: perp(1, { symbol: "ETHRUSDPERP" }) });`,
  negativeMarketId: `export default defineScenario({ ...base, markets: perp(1, { marketId: -2 }) });`,
  leverageZero: `export default defineScenario({ ...base, markets: perp(0, { maxLeverage: 0 }) });`,
  unknownIndexAsset: `export default defineScenario({ ...base, markets: perp(0, { indexAsset: "DOGE" }) });`,
  // assets
  assetTwice: `export default defineScenario({ ...base, markets: { ...M, assets: [...M.assets, M.assets[1]] } });`,
  haircutTwo: `export default defineScenario({ ...base, markets: asset(1, { priceHaircut: "2" }) });`,
  decimalsNegative: `export default defineScenario({ ...base, markets: asset(1, { decimals: -1 }) });`,
  decimalsHuge: `export default defineScenario({ ...base, markets: asset(1, { decimals: 99 }) });`,
  decimalsFraction: `export default defineScenario({ ...base, markets: asset(1, { decimals: 1.5 }) });`,
  unknownSettlementAsset: `export default defineScenario({ ...base, markets: { ...M, settlementAsset: "USDX" } });`,
  // fee tiers
  feeTierTwice: `export default defineScenario({ ...base, markets: { ...M, feeTiers: [...M.feeTiers, M.feeTiers[0]] } });`,
  feeNegative: `export default defineScenario({ ...base, markets: tier(0, { takerFee: "-0.1" }) });`,
  feeText: `export default defineScenario({ ...base, markets: tier(0, { takerFee: "abc" }) });`,
  feeNoRegularTier: `export default defineScenario({ ...base, markets: { ...M, feeTiers: M.feeTiers.filter((t: any) => t.tierType !== "REGULAR") } });`,
  feeTierType: `export default defineScenario({ ...base, markets: tier(0, { tierType: "GOLD" }) });`,
  poolFeeShare: `export default defineScenario({ ...base, markets: { ...M, globalFees: { ...M.globalFees, poolFeeShare: "1.5" } } });`,
  // accounts
  depositNegative: `export default defineScenario({ ...base, agents: agent0({ account: { deposits: { rUSD: "-100" } } }) });`,
  depositText: `export default defineScenario({ ...base, agents: agent0({ account: { deposits: { rUSD: "lots" } } }) });`,
  depositUnknownAsset: `export default defineScenario({ ...base, agents: agent0({ account: { deposits: { DOGE: "100" } } }) });`,
  depositNumber: `export default defineScenario({ ...base, agents: agent0({ account: { deposits: { rUSD: 100 } } }) });`,
  rateTierSeven: `export default defineScenario({ ...base, agents: agent0({ account: { rateTier: 7 } }) });`,
  feeTierUnknown: `export default defineScenario({ ...base, agents: agent0({ account: { feeTierId: 99 } }) });`,
  // price feeds and paths
  volatilityNegative: `export default defineScenario({ ...base, prices: feed0({ hourlyVolatility: -0.5 }) });`,
  volatilityNaN: `export default defineScenario({ ...base, prices: feed0({ hourlyVolatility: NaN }) });`,
  feedStartZero: `export default defineScenario({ ...base, prices: feed0({ start: 0 }) });`,
  feedStepZero: `export default defineScenario({ ...base, prices: feed0({ stepMs: 0 }) });`,
  jumpsRateNegative: `export default defineScenario({ ...base, prices: feed0({ jumps: { perHour: -3, mean: 0, sd: 0.01 } }) });`,
  jumpsSdNegative: `export default defineScenario({ ...base, prices: feed0({ jumps: { perHour: 3, mean: 0, sd: -1 } }) });`,
  feedDecimalsNegative: `export default defineScenario({ ...base, prices: feed0({ decimals: -2 }) });`,
  feedUnknownAsset: `export default defineScenario({ ...base, prices: [...base.prices, { asset: "DOGE", model: "gbm", start: 1, hourlyVolatility: 0.01 }] });`,
  feedUnknownModel: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "brownian", start: 3000 }, base.prices[1]] });`,
  feedTwice: `export default defineScenario({ ...base, prices: [...base.prices, base.prices[0]] });`,
  pathMissing: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: "no-such-path.csv" }, base.prices[1]] });`,
  pathGarbage: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: ${JSON.stringify(file("garbage.csv"))} }, base.prices[1]] });`,
  pathEmpty: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: ${JSON.stringify(file("empty.csv"))} }, base.prices[1]] });`,
  pathNegativePrice: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: ${JSON.stringify(file("negative-price.csv"))} }, base.prices[1]] });`,
  pathUnsorted: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: ${JSON.stringify(file("unsorted.csv"))} }, base.prices[1]] });`,
  pathDirectory: `export default defineScenario({ ...base, prices: [{ asset: "WETH", model: "path", file: ${JSON.stringify(file("a-directory"))} }, base.prices[1]] });`,
  // agents
  agentUndefined: `export default defineScenario({ ...base, agents: agent0({ agent: undefined }) });`,
  agentNotAProgram: `export default defineScenario({ ...base, agents: agent0({ agent: { kind: "nope" } }) });`,
  agentUnknownSymbol: `export default defineScenario({ ...base, agents: agent0({ params: { symbol: "NOPEPERP" } }) });`,
  agentRateNegative: `export default defineScenario({ ...base, agents: [base.agents[0], { ...base.agents[1], params: { symbols: ["ETHRUSDPERP"], ratePerSecond: -1 } }] });`,
  agentRateText: `export default defineScenario({ ...base, agents: [base.agents[0], { ...base.agents[1], params: { symbols: ["ETHRUSDPERP"], ratePerSecond: "fast" } }] });`,
  agentNameTwice: `export default defineScenario({ ...base, agents: [base.agents[0], { ...base.agents[1], name: "mm" }] });`,
  agentNameSpace: `export default defineScenario({ ...base, agents: agent0({ name: "my agent" }) });`,
  agentsNotAnArray: `export default defineScenario({ ...base, agents: "mm" });`,
  // latency models
  latencyNegative: `export default defineScenario({ ...base, agents: agent0({ latency: { orderEntry: { model: "constant", micros: -5 } } }) });`,
  latencyUniformInverted: `export default defineScenario({ ...base, agents: agent0({ latency: { responses: { model: "uniform", minMicros: 100, maxMicros: 10 } } }) });`,
  latencyMedianZero: `export default defineScenario({ ...base, agents: agent0({ latency: { marketData: { model: "lognormal", medianMicros: 0, sigma: 1 } } }) });`,
  latencyUnknownModel: `export default defineScenario({ ...base, agents: agent0({ latency: { orderEntry: { model: "teleport" } } }) });`,
  latencyRecordedEmpty: `export default defineScenario({ ...base, agents: agent0({ latency: { orderEntry: { model: "recorded", micros: [] } } }) });`,
  latencyNaN: `export default defineScenario({ ...base, agents: agent0({ latency: { orderEntry: { model: "constant", micros: NaN } } }) });`,
  // settlement, faults, timeline, engine, gateway
  bustTwo: `export default defineScenario({ ...base, settlement: { bustProbability: 2 } });`,
  bustNegative: `export default defineScenario({ ...base, settlement: { bustProbability: -0.1 } });`,
  blockIntervalZero: `export default defineScenario({ ...base, settlement: { blockIntervalMs: 0 } });`,
  blockIntervalNegative: `export default defineScenario({ ...base, settlement: { blockIntervalMs: -100 } });`,
  blockIntervalNaN: `export default defineScenario({ ...base, settlement: { blockIntervalMs: NaN } });`,
  blockJitterNegative: `export default defineScenario({ ...base, settlement: { blockJitterMs: -100 } });`,
  settlementLatencyInverted: `export default defineScenario({ ...base, settlement: { settlementLatencyMinMs: 500, settlementLatencyMaxMs: 100 } });`,
  faultUnknown: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1, fault: { fault: "meteor" } }] });`,
  faultDurationNegative: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1, fault: { fault: "delayBlocks", durationMs: -5 } }] });`,
  faultBustProbability: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1, fault: { fault: "bustProbability", probability: 7 } }] });`,
  timelineNegative: `export default defineScenario({ ...base, timeline: [{ atSeconds: -1, fault: { fault: "delayBlocks", durationMs: 5 } }] });`,
  timelineUnknownAccount: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1, admin: { action: "deposit", accountId: 999, asset: "rUSD", amount: "5" } }] });`,
  timelineUnknownAction: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1, admin: { action: "nuke" } }] });`,
  timelineNeither: `export default defineScenario({ ...base, timeline: [{ atSeconds: 1 }] });`,
  gatewayBandNegative: `export default defineScenario({ ...base, gateway: { iocPriceBandBps: -5 } });`,
  engineRestingNegative: `export default defineScenario({ ...base, engine: { maxRestingOrdersPerMarket: -1 } });`,
  engineBandText: `export default defineScenario({ ...base, engine: { triggerBandBps: "wide" } });`,
  // the scenario itself
  durationZero: `export default defineScenario({ ...base, durationSeconds: 0 });`,
  durationNegative: `export default defineScenario({ ...base, durationSeconds: -10 });`,
  durationNaN: `export default defineScenario({ ...base, durationSeconds: NaN });`,
  durationText: `export default defineScenario({ ...base, durationSeconds: "10" });`,
  durationHuge: `export default defineScenario({ ...base, durationSeconds: 1e20 });`,
  seedNegative: `export default defineScenario({ ...base, seed: -1 });`,
  nameBad: `export default defineScenario({ ...base, name: "Bad Name" });`,
  startNegative: `export default defineScenario({ ...base, startMs: -1 });`,
  startHuge: `export default defineScenario({ ...base, startMs: 9007199254740 });`,
  basisSdNegative: `export default defineScenario({ ...base, oracleBasisSd: -1 });`,
  signaturesUnknown: `export default defineScenario({ ...base, signatures: "maybe" });`,
  pricesMissing: `export default defineScenario({ ...base, prices: undefined });`,
  scenarioUndefined: `export default defineScenario(undefined as any);`,
  moduleThrows: `throw new Error("the module of this scenario failed at import");\nexport default base;`,
  noDefaultExport: `export const scenario2 = defineScenario(base);`,
  defaultExportNumber: `export default 42;`,
  syntaxError: `export default defineScenario({ ...base, `,
  // market-data replay (a recording instead of agents)
  mdRecordingMissing: `export default defineScenario(md({ recording: "no-such-recording.arrow" }));`,
  mdRecordingRandom: `export default defineScenario(md({ recording: ${JSON.stringify(file("random.bin"))} }));`,
  mdRecordingEmpty: `export default defineScenario(md({ recording: ${JSON.stringify(file("empty.arrow"))} }));`,
  mdRecordingInputLog: `export default defineScenario(md({ recording: ${JSON.stringify(GOOD_LOG)} }));`,
  mdRecordingTruncated: `export default defineScenario(md({ recording: ${JSON.stringify(file("md-cut.arrow"))} }));`,
  mdRecordingDirectory: `export default defineScenario(md({ recording: ${JSON.stringify(file("a-directory"))} }));`,
  mdUnknownMarket: `export default defineScenario(md({ markets: ["NOPEPERP"] }));`,
  mdQueueModel: `export default defineScenario(md({ queue: { model: "fifo" } }));`,
  mdFeesText: `export default defineScenario(md({ fees: { makerRate: "abc", takerRate: "0" } }));`,
  mdStrategyNotAStrategy: `export default defineScenario(md({ strategy: {} }));`,
  mdParamsNegative: `export default defineScenario(md({ params: { ...replay.marketData.params, quoteNotional: -5 } }));`,
  mdLatencyNegative: `export default defineScenario(md({ latency: { orderEntry: { model: "constant", micros: -1 } } }));`,
};

function writeInputs(): void {
  for (const [name, body] of Object.entries(SCENARIO_BODIES)) writeFileSync(scenarioFile(name), `${HEADER}\n${body}\n`);
  writeFileSync(file("garbage.csv"), "offsetMs,price\nhello,world\n");
  writeFileSync(file("empty.csv"), "");
  writeFileSync(file("empty.arrow"), "");
  writeFileSync(file("negative-price.csv"), "offsetMs,price\n0,3000\n1000,-5\n");
  writeFileSync(file("unsorted.csv"), "offsetMs,price\n5000,3000\n1000,3001\n");
  writeFileSync(file("a-file"), "not a directory\n");
  mkdirSync(file("a-directory"));
  // Bytes that are no format at all (fixed, so a failure reproduces).
  const random = Buffer.alloc(4_096);
  let x = 0x2545f491;
  for (let i = 0; i < random.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    random[i] = x & 0xff;
  }
  writeFileSync(file("random.bin"), random);
  // The shipped market-data sample cut in half.
  const sample = readFileSync(join(ROOT, "data/default-sample.arrow"));
  writeFileSync(file("md-cut.arrow"), sample.subarray(0, Math.floor(sample.length / 2)));
  // --out / --record targets.
  mkdirSync(join(TMP, "out-half", "inputs.arrow"), { recursive: true }); // the run's input log cannot be written there
  mkdirSync(join(TMP, "out-previous"));
  writeFileSync(join(TMP, "out-previous", "summary.json"), PREVIOUS_SUMMARY);
  for (const dir of ["record-bad-port", "record-busy-port"]) {
    mkdirSync(join(TMP, dir));
    writeFileSync(join(TMP, dir, "inputs.arrow"), PREVIOUS_SESSION);
  }
}

const PREVIOUS_SUMMARY = `{"previous": "a finished run's summary, to be left alone"}\n`;
const PREVIOUS_SESSION = "the input log of an earlier serve session, to be left alone\n";

/** Input logs for `replay`, made from the good run's log (after batch A). */
function writeLogs(): void {
  const bytes = readFileSync(GOOD_LOG);
  writeFileSync(log("truncated-half"), bytes.subarray(0, Math.floor(bytes.length / 2)));
  writeFileSync(log("truncated-tail"), bytes.subarray(0, bytes.length - 10));
  writeFileSync(log("truncated-magic"), bytes.subarray(0, 8));
  const table = tableFromIPC(bytes);
  const edited = (name: string, edit: (meta: Map<string, string>) => void, fields?: readonly Field[]) => {
    const meta = new Map(table.schema.metadata);
    edit(meta);
    const schema = new Schema([...(fields ?? table.schema.fields)], meta);
    writeFileSync(log(name), tableToIPC(new Table(schema, table.batches.map((batch) => new RecordBatch(schema, batch.data))), "file"));
  };
  edited("format", (meta) => meta.set("shadowbook.format", "input-log/99"));
  edited("no-scenario", (meta) => meta.delete("shadowbook.scenario"));
  edited("seed-text", (meta) => meta.set("shadowbook.seed", "abc"));
  edited("start-text", (meta) => meta.set("shadowbook.startMicros", "abc"));
  edited("config-not-json", (meta) => meta.set("shadowbook.config", "{not json"));
  edited("config-empty", (meta) => meta.set("shadowbook.config", "{}"));
  const config = JSON.parse(table.schema.metadata.get("shadowbook.config")!) as { risk: { perpMarkets: { tickSize: string }[] } };
  config.risk.perpMarkets[0]!.tickSize = "0";
  edited("config-tick-zero", (meta) => meta.set("shadowbook.config", JSON.stringify(config)));
  writeFileSync(log("no-payload"), tableToIPC(table.select(table.schema.fields.map((field) => field.name).filter((name) => name !== "payload")), "file"));
  // Same-length edits of the bytes keep every Arrow offset valid.
  const request = bytes.indexOf('{"kind":"request"');
  const notJson = Buffer.from(bytes);
  notJson[request] = "X".charCodeAt(0);
  writeFileSync(log("payload-not-json"), notJson);
  const price = bytes.indexOf('"price":"', bytes.indexOf('{"kind":"prices"')) + '"price":"'.length;
  const otherPrice = Buffer.from(bytes);
  otherPrice[price] = otherPrice[price] === 0x31 ? 0x32 : 0x31;
  writeFileSync(log("payload-edited"), otherPrice);
  mkdirSync(join(TMP, "replay-port"));
  copyFileSync(GOOD_LOG, join(TMP, "replay-port", "inputs.arrow"));
}

// -- the cases -------------------------------------------------------------------------------

interface HostileCase extends BatchCase {
  /** What a clear refusal says; undefined for a case that must succeed (or has its own test). */
  readonly refusal?: Refusal;
}

const ok = scenarioFile("ok");
const NO_PROGRESS = "--no-progress";
const seedRule = /non-negative integer/;
const positiveSeconds = /positive number of seconds/;

/** `serve` cases refuse before listening; were one accepted, it listens on a free port with a manual clock. */
const serveArgs = (...args: string[]) => ["serve", "--port", "0", "--clock", "manual", ...args];

function flagCases(busyPort: number): HostileCase[] {
  return [
    // unknown subcommands and flags, missing arguments
    { id: "unknown subcommand", args: ["bogus"], refusal: { field: /'bogus'/, rule: /unknown command/ } },
    { id: "run: unknown flag", args: ["run", "default", "--sed", "1"], refusal: { field: /'--sed'/, rule: /unknown option/ } },
    { id: "fuzz: unknown flag", args: ["fuzz", "default", "--bogus"], refusal: { field: /'--bogus'/, rule: /unknown option/ } },
    { id: "replay: unknown flag", args: ["replay", "x.arrow", "--bogus"], refusal: { field: /'--bogus'/, rule: /unknown option/ } },
    { id: "serve: unknown flag", args: serveArgs("--bogus"), refusal: { field: /'--bogus'/, rule: /unknown option/ } },
    { id: "record: unknown flag", args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", "a", "--out", file("r.arrow"), "--bogus"], refusal: { field: /'--bogus'/, rule: /unknown option/ } },
    { id: "demo: unknown flag", args: ["demo", "--bogus"], refusal: { field: /'--bogus'/, rule: /unknown option/ } },
    { id: "run: no scenario", args: ["run"], refusal: { field: /'scenario'/, rule: /missing required argument/ } },
    { id: "replay: no log", args: ["replay"], refusal: { field: /'log'/, rule: /missing required argument/ } },
    { id: "record: no --url", args: ["record", "--channels", "a", "--out", file("r.arrow")], refusal: { field: /--url/, rule: /not specified/ } },
    // scenario names and paths
    { id: "run: unknown scenario name", args: ["run", "no-such-scenario"], refusal: { field: /"no-such-scenario"/, rule: /neither a \.ts file nor the name of a scenario/ } },
    { id: "run: scenario path that does not exist", args: ["run", join(TMP, "missing.ts")], refusal: { field: /missing\.ts/, rule: /there is no file/ } },
    { id: "run: scenario path not a .ts file", args: ["run", file("garbage.csv")], refusal: { field: /garbage\.csv/, rule: /neither a \.ts file/ } },
    { id: "fuzz: unknown scenario name", args: ["fuzz", "no-such-scenario"], refusal: { field: /"no-such-scenario"/, rule: /neither a \.ts file/ } },
    { id: "serve: unknown scenario name", args: serveArgs("no-such-scenario"), refusal: { field: /"no-such-scenario"/, rule: /neither a \.ts file/ } },
    // run
    ...["abc", "-1", "1.5", "99999999999999999999", ""].map((seed): HostileCase => ({ id: `run: --seed ${JSON.stringify(seed)}`, args: ["run", ok, NO_PROGRESS, "--seed", seed], refusal: { field: /--seed/, rule: seedRule } })),
    ...["0", "-5", "abc", "1e9", "0x10", "Infinity"].map((duration): HostileCase => ({ id: `run: --duration ${duration}`, args: ["run", ok, NO_PROGRESS, "--duration", duration], refusal: { field: /--duration/, rule: /positive number/ } })),
    { id: "run: --verify-signatures with --set signatures=trusted", args: ["run", ok, NO_PROGRESS, "--verify-signatures", "--set", "signatures=trusted"], refusal: { field: /--verify-signatures and --set "signatures=trusted"/, rule: /disagree/ } },
    { id: "run: --invariant-every 0", args: ["run", ok, NO_PROGRESS, "--invariants", "--invariant-every", "0"], refusal: { field: /--invariant-every/, rule: /positive integer/ } },
    { id: "run: --invariant-every abc", args: ["run", ok, NO_PROGRESS, "--invariants", "--invariant-every", "abc"], refusal: { field: /--invariant-every/, rule: /positive integer/ } },
    { id: "run: --invariant-every without invariants", args: ["run", ok, NO_PROGRESS, "--invariant-every", "2"], refusal: { field: /--invariant-every/, rule: /needs the invariants/ } },
    { id: "run: --seed on a replay backtest", args: ["run", scenarioFile("mdUnknownMarket"), NO_PROGRESS, "--seed", "x"], refusal: { field: /--seed "x"/, rule: seedRule } },
    // fuzz
    { id: "run: --invariants on a replay backtest", args: ["run", "replay-market-maker", NO_PROGRESS, "--invariants"], refusal: { field: /--invariants/, rule: /does not apply to replay-market-maker/ } },
    { id: "run: --verify-signatures on a replay backtest", args: ["run", "replay-market-maker", NO_PROGRESS, "--verify-signatures"], refusal: { field: /--verify-signatures/, rule: /replay backtest of recorded market data/ } },
    { id: "fuzz: a replay backtest", args: ["fuzz", "replay-market-maker", "--seeds", "1", "--workers", "1"], refusal: { field: /replay-market-maker/, rule: /fuzz runs simulated scenarios/ } },
    { id: "fuzz: --seeds 5..1", args: ["fuzz", ok, "--seeds", "5..1"], refusal: { field: /"5\.\.1"/, rule: /ends before it starts/ } },
    { id: "fuzz: --seeds 1..1e9", args: ["fuzz", ok, "--seeds", "1..1e9"], refusal: { field: /"1e9"/, rule: /non-negative integer/ } },
    { id: "fuzz: --seeds 1..1000000000", args: ["fuzz", ok, "--seeds", "1..1000000000"], refusal: { field: /seeds "1\.\.1000000000"/, rule: /more than \d+ seeds/ } },
    { id: "fuzz: --seeds abc", args: ["fuzz", ok, "--seeds", "abc"], refusal: { field: /seeds "abc"/, rule: /non-negative integer/ } },
    { id: "fuzz: --seeds empty entry", args: ["fuzz", ok, "--seeds", "1,,2"], refusal: { field: /seeds "1,,2"/, rule: /empty/ } },
    { id: "fuzz: --seeds -3", args: ["fuzz", ok, "--seeds", "-3"], refusal: { field: /seeds "-3"/, rule: /non-negative integer/ } },
    ...["0", "-1", "1.5", "abc"].map((workers): HostileCase => ({ id: `fuzz: --workers ${workers}`, args: ["fuzz", ok, "--seeds", "1", "--workers", workers], refusal: { field: /--workers/, rule: /positive integer/ } })),
    ...["0", "-1", "abc"].map((duration): HostileCase => ({ id: `fuzz: --duration ${duration}`, args: ["fuzz", ok, "--seeds", "1", "--workers", "1", "--duration", duration], refusal: { field: /--duration/, rule: /positive number/ } })),
    { id: "fuzz: --invariant-every 0", args: ["fuzz", ok, "--seeds", "1", "--workers", "1", "--invariant-every", "0"], refusal: { field: /--invariant-every/, rule: /positive integer/ } },
    // serve
    ...["abc", "-1", "1.5"].map((port): HostileCase => ({ id: `serve: --port ${port}`, args: ["serve", "--clock", "manual", "--port", port], refusal: { field: /--port/, rule: /integer/ } })),
    // Was: Node's own "options.port should be >= 0 and < 65536. Received type number (65536)." (no --port).
    { id: "serve: --port 65536", args: ["serve", "--clock", "manual", "--port", "65536"], refusal: { field: /--port/, rule: /65535|65536/ } },
    { id: "serve: --port 99999", args: ["serve", "--clock", "manual", "--port", "99999"], refusal: { field: /--port/, rule: /65535|65536/ } },
    ...["0", "-1", "abc"].map((speed): HostileCase => ({ id: `serve: --speed ${speed}`, args: serveArgs("--clock", "wall", "--speed", speed), refusal: { field: /--speed/, rule: /positive number/ } })),
    ...["abc", "-5", "1.5", "99999999999999999"].map((start): HostileCase => ({ id: `serve: --start ${start}`, args: serveArgs("--start", start), refusal: { field: /--start/, rule: /integer/ } })),
    // Was: "milliseconds must be a safe integer of microseconds, got 9007199254740991000" (no --start).
    { id: "serve: --start beyond the microsecond range", args: serveArgs("--start", "9007199254740991"), refusal: { field: /--start/, rule: /safe|at most|beyond|range/ } },
    ...["-1", "abc", "1.5"].map((limit): HostileCase => ({ id: `serve: --edge-limit ${limit}`, args: serveArgs("--edge-limit", limit), refusal: { field: /--edge-limit/, rule: /whole number/ } })),
    ...["-1", "abc"].map((bytes): HostileCase => ({ id: `serve: --slow-consumer-bytes ${bytes}`, args: serveArgs("--slow-consumer-bytes", bytes), refusal: { field: /--slow-consumer-bytes/, rule: /integer of at least 0/ } })),
    ...["-1", "abc", "2.5"].map((threads): HostileCase => ({ id: `serve: --signer-threads ${threads}`, args: serveArgs("--signer-threads", threads), refusal: { field: /--signer-threads/, rule: /integer of at least 0/ } })),
    ...["abc", "-1", "1e3"].map((chain): HostileCase => ({ id: `serve: --chain-id ${chain}`, args: serveArgs("--chain-id", chain), refusal: { field: /--chain-id/, rule: /integer of at least 0/ } })),
    ...["abc", "-1", "99999999999999999999"].map((exchange): HostileCase => ({ id: `serve: --exchange-id ${exchange}`, args: serveArgs("--exchange-id", exchange), refusal: { field: /--exchange-id/, rule: /integer of at least 0/ } })),
    ...["nope", "0x123", "0xZZ00000000000000000000000000000000000000", "0x00000000000000000000000000000000000C0dE5"].map(
      (address): HostileCase => ({ id: `serve: --verifying-contract ${address}`, args: serveArgs("--verifying-contract", address), refusal: { field: /--verifying-contract "/, rule: /address/ } }),
    ),
    { id: "serve: --clock sundial", args: ["serve", "--port", "0", "--clock", "sundial"], refusal: { field: /--clock "sundial"/, rule: /wall or manual/ } },
    { id: "serve: --durability maybe", args: serveArgs("--record", join(TMP, "record-durability"), "--durability", "maybe"), refusal: { field: /--durability "maybe"/, rule: /sync or async/ } },
    { id: "serve: --seed abc with --record", args: serveArgs("--record", join(TMP, "record-seed"), "--seed", "abc"), refusal: { field: /--seed "abc"/, rule: /integer/ } },
    { id: "serve: --seed 007 with --record", args: serveArgs("--record", join(TMP, "record-seed"), "--seed", "007"), refusal: { field: /--seed "007"/, rule: /without leading zeros/ } },
    { id: "serve: --seed abc with a scenario", args: serveArgs(ok, "--seed", "abc"), refusal: { field: /--seed "abc"/, rule: /integer/ } },
    ...["abc", "1.5", "-1", "007"].map((seed): HostileCase => ({ id: `serve: --seed ${seed}`, args: serveArgs("--seed", seed), refusal: { field: new RegExp(`--seed "${seed}"`), rule: seedRule } })),
    { id: "serve: --speed with the manual clock", args: serveArgs("--speed", "10"), refusal: { field: /--speed "10"/, rule: /applies to the wall clock only/ } },
    { id: "serve: --durability without --record", args: serveArgs("--durability", "async"), refusal: { field: /--durability "async"/, rule: /applies to --record only/ } },
    ...["abc", "-1", "1.5"].map((seed): HostileCase => ({ id: `demo: --seed ${seed}`, args: ["demo", "--seed", seed], refusal: { field: new RegExp(`--seed "${seed}"`), rule: seedRule } })),
    // Was: "getaddrinfo ENOTFOUND not a host" (no --host, no rule).
    { id: "serve: --host not a host", args: serveArgs("--host", "not a host"), refusal: { field: /--host/, rule: /address|host name|resolve/ } },
    // The port is taken (by this test): Node's "listen EADDRINUSE: address already in use 127.0.0.1:PORT" is clear.
    { id: "serve: --port in use, --record", args: ["serve", "--clock", "manual", "--port", String(busyPort), "--record", join(TMP, "record-busy-port")], refusal: { field: new RegExp(`:${busyPort}\\b|--port`), rule: /in use/ } },
    // Was (message, and the --record log: see its own test).
    { id: "serve: --port 65536, --record", args: ["serve", "--clock", "manual", "--port", "65536", "--record", join(TMP, "record-bad-port")], refusal: { field: /--port/, rule: /65535|65536/ } },
    // record
    ...["abc", "-1", "0"].map((duration): HostileCase => ({ id: `record: --duration ${duration}`, args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", "a", "--out", file("r.arrow"), "--duration", duration], refusal: { field: /--duration/, rule: positiveSeconds } })),
    { id: "record: --max-rows 0", args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", "a", "--out", file("r.arrow"), "--max-rows", "0"], refusal: { field: /--max-rows/, rule: /positive integer/ } },
    { id: "record: --url not a URL", args: ["record", "--url", "not a url", "--channels", "a", "--out", file("r.arrow"), "--duration", "1"], refusal: { field: /url "not a url"/, rule: /ws:\/\/ or wss:\/\/ URL/ } },
    { id: "record: --url http", args: ["record", "--url", "http://127.0.0.1:1/ws", "--channels", "a", "--out", file("r.arrow"), "--duration", "1"], refusal: { field: /http:\/\/127\.0\.0\.1:1\/ws/, rule: /ws:\/\/ or wss:\/\/ URL/ } },
    { id: "record: nothing listens", args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", "a", "--out", file("r.arrow"), "--duration", "1"], refusal: { field: /ws:\/\/127\.0\.0\.1:1\/ws/, rule: /cannot connect/ } },
    { id: "record: --channels empty", args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", " , ", "--out", file("r.arrow"), "--duration", "1"], refusal: { field: /channels/, rule: /at least one channel/ } },
    { id: "record: --out under a file", args: ["record", "--url", "ws://127.0.0.1:1/ws", "--channels", "a", "--out", join(file("a-file"), "r.arrow"), "--duration", "1"], refusal: { field: /a-file/, rule: /not a directory|already exists|is a file/ } },
    // --out of run
    { id: "run: --out is a file", args: ["run", ok, NO_PROGRESS, "--out", file("a-file")], refusal: { field: /a-file/, rule: /not a directory|already exists|is a file/ } },
    { id: "run: --out under a file", args: ["run", ok, NO_PROGRESS, "--out", join(file("a-file"), "sub")], refusal: { field: /a-file/, rule: /not a directory|already exists|is a file/ } },
    // Unwritable even for root (this suite may run as root, for whom a chmod'ed directory is writable).
    { id: "run: --out unwritable", args: ["run", ok, NO_PROGRESS, "--out", "/sys/shadowbook-hostile-out"], refusal: { field: /\/sys\/shadowbook-hostile-out/, rule: /permission|not permitted|read-only/i } },
    { id: "run: --out empty", args: ["run", ok, NO_PROGRESS, "--out", ""], refusal: { field: /--out|''|""/, rule: /empty|no such file|directory/ } },
    // Was (half-written: see its own test). The message (EISDIR with the path) is clear.
    { id: "run: --out where inputs.arrow cannot be written", args: ["run", ok, NO_PROGRESS, "--out", join(TMP, "out-half")], refusal: { field: /out-half/, rule: /directory/ } },
    { id: "run: --out with a flag refused", args: ["run", ok, NO_PROGRESS, "--out", join(TMP, "out-flag"), "--invariant-every", "2"], refusal: { field: /--invariant-every/, rule: /needs the invariants/ } },
    {
      id: "run: --out with an agent's unknown symbol",
      args: ["run", scenarioFile("agentUnknownSymbol"), NO_PROGRESS, "--out", join(TMP, "out-agent-symbol")],
      refusal: { field: /agents\[0\]\.params of "mm": symbol "NOPEPERP"/, rule: /names no market of this run/ },
    },
    // Refused a second into the run (after --out was created): the timeline's deposit to an account that does not exist.
    { id: "run: --out over a previous run, refused during the run", args: ["run", scenarioFile("timelineUnknownAccount"), NO_PROGRESS, "--out", join(TMP, "out-previous")], refusal: { field: /timeline\[0\]/, rule: /accountId 999 does not exist/ } },
  ];
}

/** Scenario cases: file name -> the clear refusal. */
const SCENARIO_REFUSALS: Record<string, Refusal> = {
  tickZero: { field: /ETHRUSDPERP\.tickSize/, rule: /must be positive/ },
  tickNegative: { field: /ETHRUSDPERP\.tickSize "-0\.1"/, rule: /unsigned decimal|positive/ },
  tickText: { field: /ETHRUSDPERP\.tickSize "abc"/, rule: /decimal/ },
  tickNumber: { field: /ETHRUSDPERP\.tickSize/, rule: /decimal string/ },
  duplicateMarketId: { field: /marketId 1/, rule: /used twice/ },
  duplicateSymbol: { field: /ETHRUSDPERP/, rule: /used twice/ },
  negativeMarketId: { field: /BTCRUSDPERP\.marketId/, rule: /non-negative integer/ },
  leverageZero: { field: /ETHRUSDPERP\.maxLeverage/, rule: /positive integer/ },
  unknownIndexAsset: { field: /indexAsset "DOGE"/, rule: /not a configured asset/ },
  assetTwice: { field: /WETH/, rule: /configured twice/ },
  haircutTwo: { field: /WETH\.priceHaircut "2"/, rule: /fraction at most 1/ },
  // Clear enough, though it does not say which asset.
  decimalsNegative: { field: /decimals -1/, rule: /integer in 0\.\.18/ },
  decimalsHuge: { field: /decimals 99/, rule: /integer in 0\.\.18/ },
  decimalsFraction: { field: /decimals 1\.5/, rule: /integer in 0\.\.18/ },
  unknownSettlementAsset: { field: /USDX/, rule: /must be a configured asset/ },
  feeTierTwice: { field: /fee tier ids/, rule: /unique/ },
  feeNegative: { field: /takerFee "-0\.1"/, rule: /must not be negative/ },
  feeText: { field: /takerFee "abc"/, rule: /decimal/ },
  feeNoRegularTier: { field: /REGULAR fee tier/, rule: /volume30d 0/ },
  // Was: tierType "GOLD" gives "there must be a REGULAR fee tier with volume30d 0 (the default tier)" (names neither tierType nor "GOLD").
  feeTierType: { field: /tierType|"GOLD"/, rule: /REGULAR or VIP|REGULAR, VIP|one of/ },
  poolFeeShare: { field: /poolFeeShare "1\.5"/, rule: /fraction at most 1/ },
  depositNegative: { field: /deposits\.rUSD "-100"/, rule: /unsigned decimal|negative/ },
  depositText: { field: /deposits\.rUSD "lots"/, rule: /decimal/ },
  depositUnknownAsset: { field: /deposits\.DOGE/, rule: /not a configured asset/ },
  depositNumber: { field: /deposits\.rUSD/, rule: /decimal string/ },
  rateTierSeven: { field: /agents\[0\]\.account\.rateTier "7"/, rule: /1, 2 or 3/ },
  feeTierUnknown: { field: /feeTierId 99/, rule: /not a VIP fee tier/ },
  volatilityNegative: { field: /prices\[0\]\.hourlyVolatility "-0\.5"/, rule: />= 0/ },
  volatilityNaN: { field: /prices\[0\]\.hourlyVolatility "NaN"/, rule: />= 0/ },
  feedStartZero: { field: /prices\[0\]\.start "0"/, rule: /greater than 0/ },
  feedStepZero: { field: /prices\[0\]\.stepMs "0"/, rule: /positive integer/ },
  // Was: accepted (a negative Poisson rate), the run succeeds.
  jumpsRateNegative: { field: /perHour/, rule: />= 0|non-negative|not be negative|positive/ },
  // Was: accepted (a negative standard deviation), the run succeeds.
  jumpsSdNegative: { field: /jumps\.sd|\bsd\b/, rule: />= 0|non-negative|not be negative|positive/ },
  // Was: "toFixed() digits argument must be between 0 and 100" (a RangeError of Number.toFixed; no field).
  feedDecimalsNegative: { field: /prices\[0\]\.decimals/, rule: /integer|>= 0|non-negative|between/ },
  // Clear, though its index is the oracle's price list, not the scenario's prices[2].
  feedUnknownAsset: { field: /"DOGE"/, rule: /not a configured asset/ },
  // Was: model "brownian" gives "prices: the path file "undefined" of WETH was not loaded".
  feedUnknownModel: { field: /prices\[0\]\.model|"brownian"/, rule: /gbm or path|gbm, path|one of/ },
  feedTwice: { field: /prices\[2\]\.asset "WETH"/, rule: /two feeds/ },
  pathMissing: { field: /"no-such-path\.csv"/, rule: /is not in data\// },
  pathGarbage: { field: /garbage\.csv:2/, rule: /offsetMs "hello" must be a non-negative integer/ },
  pathEmpty: { field: /empty\.csv/, rule: /no points/ },
  pathNegativePrice: { field: /negative-price\.csv:3/, rule: /must be a positive number/ },
  pathUnsorted: { field: /unsorted\.csv:3/, rule: /must increase/ },
  // Was: "EISDIR: illegal operation on a directory, read" (no path).
  pathDirectory: { field: /a-directory/, rule: /directory|not a file/ },
  // Was: "Cannot read properties of undefined (reading 'kind')".
  agentUndefined: { field: /agents\[0\]|agent "mm"|"mm"/, rule: /agent program|defineAgent|must be an agent|not an agent/ },
  // Was: "agent "mm" failed in start at virtual time ...: TypeError: definition.start is not a function", then its stack (10 frames).
  agentNotAProgram: { field: /agents\[0\]|agent "mm"|"mm"/, rule: /agent program|defineAgent|must be an agent|not an agent/ },
  // Was: "agent "mm" failed in start at virtual time ...: RangeError: symbol "NOPEPERP" is not one of the run's markets
  // (...)", then (before that was fixed) the cause's 10 stack frames: the agent's start refused it, during the run.
  // Now the scenario check refuses it, before the run (its one line: see "an agent's unknown symbol" below).
  agentUnknownSymbol: {
    field: /^scenario "hostile": agents\[0\]\.params of "mm": symbol "NOPEPERP"/,
    rule: /names no market of this run \(its markets: ETHRUSDPERP, BTCRUSDPERP, WETHRUSD\)$/,
  },
  // Was (as agentUnknownSymbol, then a RangeError from the agent's start): refused by the scenario check, before the run.
  agentRateNegative: { field: /agents\[1\]\.params of "taker": ratePerSecond "-1"/, rule: /must be a finite number in \(0, 1000\]/ },
  agentRateText: { field: /agents\[1\]\.params of "taker": ratePerSecond "fast"/, rule: /must be a finite number in \(0, 1000\]/ },
  agentNameTwice: { field: /agents\[1\]\.name "mm"/, rule: /used twice/ },
  agentNameSpace: { field: /agents\[0\]\.name "my agent"/, rule: /letters, digits/ },
  // Was: "scenario.agents.forEach is not a function".
  agentsNotAnArray: { field: /agents/, rule: /array|list/ },
  latencyNegative: { field: /latency\.orderEntry\.micros "-5"/, rule: />= 0/ },
  latencyUniformInverted: { field: /latency\.responses\.maxMicros "10"/, rule: />= minMicros/ },
  latencyMedianZero: { field: /latency\.marketData\.medianMicros/, rule: /greater than 0/ },
  latencyUnknownModel: { field: /latency\.orderEntry\.model "teleport"/, rule: /not one of constant, uniform, lognormal, recorded/ },
  latencyRecordedEmpty: { field: /latency\.orderEntry\.micros/, rule: /at least one/ },
  latencyNaN: { field: /latency\.orderEntry\.micros "NaN"/, rule: /finite/ },
  bustTwo: { field: /settlement\.bustProbability "2"/, rule: /between 0 and 1/ },
  bustNegative: { field: /settlement\.bustProbability "-0\.1"/, rule: /between 0 and 1/ },
  // Clear enough: it names the chain's blockIntervalMicros (the scenario says settlement.blockIntervalMs) and no value.
  blockIntervalZero: { field: /blockInterval/, rule: /must be positive/ },
  blockIntervalNegative: { field: /blockInterval/, rule: /must be positive/ },
  blockIntervalNaN: { field: /blockInterval/, rule: /must be positive/ },
  blockJitterNegative: { field: /blockJitter/, rule: /must be in \[0/ },
  settlementLatencyInverted: { field: /settlementLatencyMax/, rule: /at least the minimum/ },
  // Was: accepted (an unknown fault in the timeline is ignored), the run succeeds.
  faultUnknown: { field: /timeline\[0\]|"meteor"/, rule: /not one of|unknown|must be/ },
  // Was: accepted (a negative fault duration), the run succeeds.
  faultDurationNegative: { field: /durationMs/, rule: />= 0|non-negative|not be negative|positive/ },
  faultBustProbability: { field: /bustProbability/, rule: /\[0, 1\]/ },
  timelineNegative: { field: /timeline\[0\]\.atSeconds "-1"/, rule: />= 0/ },
  timelineUnknownAccount: { field: /timeline\[0\]/, rule: /accountId 999 does not exist/ },
  // Was: admin action "nuke" gives "Cannot read properties of undefined (reading 'ok')".
  timelineUnknownAction: { field: /timeline\[0\]|"nuke"/, rule: /not one of|unknown|must be/ },
  // Was: an entry with neither admin nor fault gives "Cannot read properties of undefined (reading 'fault')".
  timelineNeither: { field: /timeline\[0\]/, rule: /admin or (a )?fault|needs|must/ },
  // Was: accepted (a negative IOC price band), the run succeeds.
  gatewayBandNegative: { field: /iocPriceBandBps/, rule: />= 0|non-negative|not be negative|positive/ },
  engineRestingNegative: { field: /maxRestingOrdersPerMarket/, rule: /non-negative integer/ },
  engineBandText: { field: /triggerBandBps/, rule: /non-negative integer/ },
  durationZero: { field: /durationSeconds "0"/, rule: /positive number/ },
  durationNegative: { field: /durationSeconds "-10"/, rule: /positive number/ },
  durationNaN: { field: /durationSeconds "NaN"/, rule: /positive number/ },
  durationText: { field: /durationSeconds "10"/, rule: /positive number/ },
  seedNegative: { field: /seed "-1"/, rule: /non-negative integer/ },
  nameBad: { field: /name/, rule: /lowercase letters, digits and dashes/ },
  startNegative: { field: /startMs "-1"/, rule: /non-negative integer/ },
  // Was: "event time must be a safe integer of microseconds, got 9007199254840000" (no startMs).
  startHuge: { field: /startMs/, rule: /safe|at most|beyond|range/ },
  // Was: accepted (a negative standard deviation), the run succeeds.
  basisSdNegative: { field: /oracleBasisSd/, rule: />= 0|non-negative|not be negative|positive/ },
  // Was: accepted; the summary prints "signatures maybe".
  signaturesUnknown: { field: /signatures "maybe"/, rule: /trusted or signed/ },
  // Was: "Cannot read properties of undefined (reading 'forEach')".
  pricesMissing: { field: /prices/, rule: /array|list|required|missing/ },
  // Was: "Cannot read properties of undefined (reading 'name')".
  scenarioUndefined: { field: /scenario|defineScenario/, rule: /object|must be|missing/ },
  // Was: the module's own message alone ("the module of this scenario failed at import"): which file failed is not said.
  moduleThrows: { field: /moduleThrows\.ts/, rule: /failed at import/ },
  noDefaultExport: { field: /noDefaultExport\.ts/, rule: /must default-export a scenario/ },
  defaultExportNumber: { field: /defaultExportNumber\.ts/, rule: /must default-export a scenario/ },
  // Clear, on two lines (esbuild's "Transform failed with 1 error:", then file:line:column and the error).
  syntaxError: { field: /syntaxError\.ts:\d+:\d+/, rule: /ERROR: Expected/ },
  mdRecordingMissing: { field: /no-such-recording\.arrow/, rule: /no such file|not found|does not exist/ },
  // Was: "md recording is truncated before its schema ends" (no file; random bytes are not a truncated recording).
  mdRecordingRandom: { field: /random\.bin/, rule: /not an md.recording|not an Arrow|not a recording/ },
  // Was: the same message, no file.
  mdRecordingEmpty: { field: /empty\.arrow/, rule: /empty|no schema|truncated/ },
  // Was: an input log (an Arrow file of another kind) gives the same "truncated before its schema ends", no file.
  mdRecordingInputLog: { field: /inputs\.arrow/, rule: /input-log|md-recording|not an md.recording|not a recording/ },
  // Was: "EISDIR: illegal operation on a directory, read" (no path).
  mdRecordingDirectory: { field: /a-directory/, rule: /directory|not a file/ },
  mdUnknownMarket: { field: /"NOPEPERP"/, rule: /no depth or executions in the recording/ },
  mdQueueModel: { field: /marketData\.queue\.model "fifo"/, rule: /riskAverse or probabilistic/ },
  mdFeesText: { field: /marketData\.fees\.makerRate "abc"/, rule: /decimal string between -1 and 1/ },
  mdStrategyNotAStrategy: { field: /marketData\.strategy/, rule: /replay strategy/ },
  // Was: accepted; the strategy quotes with a negative notional and the run succeeds.
  mdParamsNegative: { field: /quoteNotional/, rule: />= 0|non-negative|not be negative|positive|> 0/ },
  mdLatencyNegative: { field: /latency\.orderEntry\.micros "-1"/, rule: />= 0/ },
};

function scenarioCases(): HostileCase[] {
  return Object.entries(SCENARIO_REFUSALS).map(([name, refusal]) => ({ id: `scenario ${name}`, args: ["run", scenarioFile(name), NO_PROGRESS], refusal }));
}

const GOOD_RUN_A: HostileCase = { id: "good run with --out (records the log the file cases edit)", args: ["run", ok, NO_PROGRESS, "--out", GOOD_OUT], timeoutMs: 30_000 };
/** A truncated recording: either refused clearly, or the run says it read a truncated recording (see its test). */
const MD_TRUNCATED: HostileCase = { id: "scenario mdRecordingTruncated", args: ["run", scenarioFile("mdRecordingTruncated"), NO_PROGRESS] };

function replayCases(): HostileCase[] {
  const good = GOOD_LOG;
  const until = (value: string): HostileCase => ({
    id: `replay: --until ${value}`,
    args: ["replay", good, "--until", value, "--state-out", join(TMP, "until-state.json")],
    refusal: { field: /--until/, rule: /Unix time in ms or an ISO-8601 time|safe range|not a valid/ },
  });
  const truncated = (name: string): HostileCase => ({
    id: `replay: ${name}`,
    args: ["replay", log(name)],
    // Was: "Cannot read properties of null (reading 'fieldsLength')" (a TypeError from apache-arrow; no file).
    refusal: { field: new RegExp(`${name}\\.arrow`), rule: /truncated|incomplete|cut short|corrupt|not an Arrow/ },
  });
  return [
    { id: "replay: missing file", args: ["replay", join(TMP, "no-such-inputs.arrow")], refusal: { field: /no-such-inputs\.arrow/, rule: /no such file|not found|does not exist/ } },
    { id: "replay: empty file", args: ["replay", file("empty.arrow")], refusal: { field: /empty\.arrow/, rule: /no Arrow schema|empty/ } },
    { id: "replay: random bytes", args: ["replay", file("random.bin")], refusal: { field: /random\.bin/, rule: /not an Arrow IPC stream or file/ } },
    // Was: "EISDIR: illegal operation on a directory, read" (no path).
    { id: "replay: a directory", args: ["replay", file("a-directory")], refusal: { field: /a-directory/, rule: /directory|not a file/ } },
    { id: "replay: a market-data recording", args: ["replay", join(ROOT, "data/default-sample.arrow")], refusal: { field: /default-sample\.arrow/, rule: /format "md-recording\/1" is not input-log\/1/ } },
    { id: "replay: an Arrow output that is not a log", args: ["replay", join(GOOD_OUT, "executions.arrow")], refusal: { field: /executions\.arrow/, rule: /not a shadowbook input log/ } },
    truncated("truncated-half"),
    truncated("truncated-tail"),
    truncated("truncated-magic"),
    { id: "replay: metadata format edited", args: ["replay", log("format")], refusal: { field: /format\.arrow/, rule: /format "input-log\/99" is not input-log\/1/ } },
    { id: "replay: metadata scenario removed", args: ["replay", log("no-scenario")], refusal: { field: /no-scenario\.arrow/, rule: /"shadowbook\.scenario" is missing/ } },
    // Was: accepted: "scenario hostile, seed NaN, ... every fingerprint matched", status 0.
    { id: "replay: metadata seed not a number", args: ["replay", log("seed-text")], refusal: { field: /seed/, rule: /integer|number/ } },
    // Was: "event time is NaN" (no file, no field).
    { id: "replay: metadata startMicros not a number", args: ["replay", log("start-text")], refusal: { field: /startMicros/, rule: /integer|number/ } },
    // Was: "Expected property name or '}' in JSON at position 1" (JSON.parse's message; no file, no field).
    { id: "replay: metadata config not JSON", args: ["replay", log("config-not-json")], refusal: { field: /shadowbook\.config|config/, rule: /JSON/ } },
    // Was: "Cannot read properties of undefined (reading 'assets')".
    { id: "replay: metadata config empty", args: ["replay", log("config-empty")], refusal: { field: /config/, rule: /missing|must|risk/ } },
    // Clear: the config's own check (it does not say the field is in the log's metadata).
    { id: "replay: metadata config with tickSize 0", args: ["replay", log("config-tick-zero")], refusal: { field: /ETHRUSDPERP\.tickSize/, rule: /must be positive/ } },
    // Was: "Cannot read properties of null (reading 'get')".
    { id: "replay: payload column removed", args: ["replay", log("no-payload")], refusal: { field: /payload/, rule: /missing|column/ } },
    // Was: "Unexpected token 'X', "X"kind":"r"... is not valid JSON" (no file, no step).
    { id: "replay: a payload that is not JSON", args: ["replay", log("payload-not-json")], refusal: { field: /step \d+|payload/, rule: /JSON/ } },
    // The documented refusal: the first diverging step, on stdout, status 1.
    { id: "replay: a payload edited", args: ["replay", log("payload-edited")], refusal: { field: /step \d+/, rule: /DIVERGES/, onStdout: true } },
    until("abc"),
    until("-5"),
    until("99999999999999999999"),
    until("2026-13-45T99:99:99Z"),
    // Was: accepted: Date.parse reads it as 2026-03-02 and the state is written for that time.
    until("2026-02-30T00:00:00Z"),
    { id: "replay: --state-out under a file", args: ["replay", good, "--until", "1767225601000", "--state-out", join(file("a-file"), "state.json")], refusal: { field: /a-file/, rule: /not a directory/ } },
    { id: "replay: --clock sundial", args: ["replay", good, "--serve", "--clock", "sundial"], refusal: { field: /--clock "sundial"/, rule: /manual or wall/ } },
    // Was (the state file: see its own test); the message is clear.
    { id: "replay --serve: --port abc", args: ["replay", join(TMP, "replay-port", "inputs.arrow"), "--serve", "--port", "abc"], refusal: { field: /--port "abc"/, rule: /integer within \[0, 65535\]/ } },
    { id: "replay --serve: --port 70000", args: ["replay", good, "--serve", "--port", "70000", "--state-out", join(TMP, "port-state.json")], refusal: { field: /--port "70000"/, rule: /integer within \[0, 65535\]/ } },
    // Was: "getaddrinfo ENOTFOUND not a host".
    { id: "replay --serve: --host not a host", args: ["replay", good, "--serve", "--port", "0", "--host", "not a host", "--state-out", join(TMP, "host-state.json")], refusal: { field: /--host/, rule: /address|host name|resolve/ } },
  ];
}

const GOOD_REPLAY: HostileCase = { id: "good replay after the hostile ones", args: ["replay", GOOD_LOG], timeoutMs: 30_000 };
const GOOD_RUN_B: HostileCase = { id: "good run after the hostile ones", args: ["run", ok, NO_PROGRESS], timeoutMs: 30_000 };

/** Inputs that once hung: each is killed after its time limit (a warm refusal takes milliseconds). */
const HANG_LIMIT_MS = 4_000;
const HANG_CASES: HostileCase[] = [
  // Was: --speed "1e400" (Infinity) is accepted and the server never listens or answers: no output, killed.
  { id: "serve: --speed 1e400", args: ["serve", "--port", "0", "--clock", "wall", "--speed", "1e400"], timeoutMs: HANG_LIMIT_MS, refusal: { field: /--speed/, rule: /positive (finite )?number|finite/ } },
  // Was: fuzz's --duration is Number(text) > 0, so "1e999" (Infinity) is accepted and the seed runs forever.
  { id: "fuzz: --duration 1e999", args: ["fuzz", ok, "--seeds", "1", "--workers", "1", "--duration", "1e999", NO_PROGRESS], timeoutMs: HANG_LIMIT_MS, refusal: { field: /--duration/, rule: /positive number|finite/ } },
  // Was: accepted; 1e20 s of virtual time ends beyond the safe integers of microseconds, and the run goes on forever.
  { id: "run: --duration 100000000000000000000", args: ["run", ok, NO_PROGRESS, "--duration", "100000000000000000000"], timeoutMs: HANG_LIMIT_MS, refusal: { field: /--duration/, rule: /at most|too (long|large)|beyond|safe/ } },
  // Was: the same through the scenario's durationSeconds.
  { id: "scenario durationHuge", args: ["run", scenarioFile("durationHuge"), NO_PROGRESS], timeoutMs: HANG_LIMIT_MS, refusal: { field: /durationSeconds/, rule: /at most|too (long|large)|beyond|safe/ } },
];

// -- running them ----------------------------------------------------------------------------

let batchA: Map<string, Outcome>;
let batchB: Map<string, Outcome>;
let batchH: Map<string, Outcome>;
let flagCaseList: HostileCase[];
let busy: Server;
let refusedServe: { message: string; ms: number } | undefined;
const children: ChildProcess[] = [];

function listenAnywhere(): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done(server));
  });
}

/** Arguments after `serve` of the refusal run both in the batch and through spawnServe. */
const REFUSED_SERVE_ARGS = ["--port", "0", "--clock", "manual", "--exchange-id", "-1"];

/** A `serve` refusal as a real process sees it, through spawnServe (which rejects when the command exits before listening). */
async function serveRefusal(args: readonly string[]): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  try {
    const served = await spawnServe({ args, detached: true, readyTimeoutMs: 30_000 });
    children.push(served.child);
    return { message: `listened: ${served.banner}`, ms: Date.now() - started };
  } catch (error) {
    return { message: (error as Error).message, ms: Date.now() - started };
  }
}

beforeAll(async () => {
  writeInputs();
  busy = await listenAnywhere();
  const busyPort = (busy.address() as { port: number }).port;
  flagCaseList = flagCases(busyPort);
  const hang = runBatch(HANG_CASES);
  const real = serveRefusal(REFUSED_SERVE_ARGS);
  batchA = await runBatch([GOOD_RUN_A, ...flagCaseList, ...scenarioCases(), MD_TRUNCATED, { id: "serve: --exchange-id -1 (as spawnServe runs it)", args: ["serve", ...REFUSED_SERVE_ARGS] }]);
  expect(existsSync(GOOD_LOG), `the good run wrote no input log:\n${describeOutcome(batchA.get(GOOD_RUN_A.id)!)}`).toBe(true);
  writeLogs();
  batchB = await runBatch([...replayCases(), GOOD_REPLAY, GOOD_RUN_B]);
  [batchH, refusedServe] = await Promise.all([hang, real]);
}, 150_000);

afterAll(() => {
  busy?.close();
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(TMP, { recursive: true, force: true });
});

// -- the tests -------------------------------------------------------------------------------

describe("shadowbook refuses bad flags of every subcommand clearly", () => {
  it("the good short run with --out succeeded (the file cases edit its log)", () => {
    expectSuccess(batchA.get(GOOD_RUN_A.id));
  });
  // The list is built in beforeAll (it needs a busy port), so the cases are read from a fixed list of ids here.
  for (const id of flagCaseIds()) {
    it(id, () => {
      const hostile = flagCaseList.find((entry) => entry.id === id)!;
      expectClearRefusal(batchA.get(id), hostile.refusal!);
    });
  }
});

describe("shadowbook refuses bad scenario files clearly", () => {
  for (const [name, refusal] of Object.entries(SCENARIO_REFUSALS)) {
    it(name, () => expectClearRefusal(batchA.get(`scenario ${name}`), refusal));
  }

  // Was: the shipped sample cut in half reads as an empty recording: "0 events (0 frames), 0.0 s replayed", status 0, no word of truncation.
  it("mdRecordingTruncated: a recording cut mid-batch is refused, or the run says it was truncated", () => {
    const outcome = batchA.get(MD_TRUNCATED.id)!;
    if (outcome.status !== 0) {
      expectClearRefusal(outcome, { field: /md-cut\.arrow/, rule: /truncated|incomplete|cut short/ });
      return;
    }
    expect(`${outcome.stdout}\n${outcome.stderr}`, `a truncated recording read silently:\n${describeOutcome(outcome)}`).toMatch(/truncated|incomplete|cut short/);
  });
});

describe("shadowbook refuses bad files clearly", () => {
  for (const hostile of replayCases()) {
    it(hostile.id, () => expectClearRefusal(batchB.get(hostile.id), hostile.refusal!));
  }
});

describe("shadowbook answers inputs that once hung", () => {
  for (const hostile of HANG_CASES) {
    it(`${hostile.id} (refused, not left running)`, () => expectClearRefusal(batchH.get(hostile.id), hostile.refusal!, HANG_LIMIT_MS));
  }
});

describe("a rejected request changes nothing and loses nothing", () => {
  it("a run refused by a flag creates no --out directory", () => {
    expect(existsSync(join(TMP, "out-flag"))).toBe(false);
  });

  // Was: the run started (--out created, accounts funded, feeds running), then the agent's start threw a RangeError.
  it("an agent's unknown symbol: one line, the scenario check's, and no --out directory", () => {
    const expected = 'scenario "hostile": agents[0].params of "mm": symbol "NOPEPERP" names no market of this run (its markets: ETHRUSDPERP, BTCRUSDPERP, WETHRUSD)\n';
    for (const id of ["scenario agentUnknownSymbol", "run: --out with an agent's unknown symbol"]) {
      const outcome = batchA.get(id)!;
      expect(outcome.status, describeOutcome(outcome)).toBe(1);
      expect(outcome.stderr, describeOutcome(outcome)).toBe(expected);
      expect(outcome.stdout, describeOutcome(outcome)).toBe("");
    }
    expect(existsSync(join(TMP, "out-agent-symbol"))).toBe(false);
  });

  it("a run refused during the run leaves a previous --out as it was", () => {
    expect(readFileSync(join(TMP, "out-previous", "summary.json"), "utf8")).toBe(PREVIOUS_SUMMARY);
    expect(readdirSync(join(TMP, "out-previous"))).toEqual(["summary.json"]);
  });

  it("a file given as --out is left as it was", () => {
    expect(readFileSync(file("a-file"), "utf8")).toBe("not a directory\n");
  });

  // Was: the run writes the eight Arrow outputs, summary.json (with its fingerprint) and report.html, then fails on
  // inputs.arrow (EISDIR) and exits 1, leaving a report that looks like a finished run's.
  it("a refused run --out leaves no summary.json or report.html claiming success", () => {
    const outcome = batchA.get("run: --out where inputs.arrow cannot be written")!;
    expect(outcome.status, describeOutcome(outcome)).not.toBe(0);
    const left = readdirSync(join(TMP, "out-half"));
    expect(left.filter((name) => name === "summary.json" || name === "report.html"), `left in --out: ${left.join(", ")}`).toEqual([]);
  });

  // Was: `serve --record DIR` opens DIR/inputs.arrow for writing ("w") before --port is found invalid, so the
  // refused command replaces an earlier session's log with a 3,200-byte log of a server that never listened.
  it("serve --record with a bad --port keeps an earlier session's log", () => {
    expect(batchA.get("serve: --port 65536, --record")!.status).not.toBe(0);
    expect(readFileSync(join(TMP, "record-bad-port", "inputs.arrow"), "utf8")).toBe(PREVIOUS_SESSION);
  });

  // Was: the same when the port is in use (listen EADDRINUSE): the earlier session's log is overwritten.
  it("serve --record on a port in use keeps an earlier session's log", () => {
    expect(batchA.get("serve: --port in use, --record")!.status).not.toBe(0);
    expect(readFileSync(join(TMP, "record-busy-port", "inputs.arrow"), "utf8")).toBe(PREVIOUS_SESSION);
  });

  it("serve refusals before --record is opened create no log", () => {
    expect(existsSync(join(TMP, "record-durability", "inputs.arrow"))).toBe(false);
    expect(existsSync(join(TMP, "record-seed", "inputs.arrow"))).toBe(false);
  });

  // Was: replay --serve replays the whole log and writes state-<ms>.json next to it before it checks --port.
  it("replay --serve with a bad --port writes no state file", () => {
    expect(batchB.get("replay --serve: --port abc")!.status).not.toBe(0);
    expect(readdirSync(join(TMP, "replay-port"))).toEqual(["inputs.arrow"]);
  });
});

describe("real processes", () => {
  it("a serve refusal through spawnServe is the batch's refusal, clear, in time", () => {
    expect(refusedServe).toBeDefined();
    const { message, ms } = refusedServe!;
    expect(message).toMatch(/exited \(1\) before listening/);
    const batch = batchA.get("serve: --exchange-id -1 (as spawnServe runs it)")!;
    expectClearRefusal(batch, { field: /--exchange-id "-1"/, rule: /integer of at least 0/ });
    expect(message.endsWith(`before listening: ${batch.stderr}`), `real: ${message}\nbatch: ${batch.stderr}`).toBe(true);
    expect(ms).toBeLessThan(30_000);
  });

  // Was: --signer-threads has no upper bound; the workers start with the first /exec connection, and with
  // 1000000 the server stops answering (no /health answer within 20 s in a manual run; killed).
  it(
    "serve --signer-threads 1000000 is refused, or the server stays responsive once a client connects",
    async () => {
      let served: ServeProcess;
      try {
        served = await spawnServe({ args: ["--port", "0", "--clock", "manual", "--signer-threads", "1000000"], detached: true, readyTimeoutMs: 30_000 });
      } catch (error) {
        // Refused: then clearly.
        const message = (error as Error).message;
        expect(message).toMatch(/--signer-threads/);
        expect(STACK_FRAME.test(message)).toBe(false);
        return;
      }
      children.push(served.child);
      const socket = new WebSocket(served.exec);
      await new Promise<void>((open, fail) => {
        socket.once("open", () => open());
        socket.once("error", fail);
      });
      const deadline = Date.now() + 4_000;
      let health: number | string = "no answer";
      while (Date.now() < deadline && health !== 200) {
        try {
          health = (await fetch(`${served.origin}/health`, { signal: AbortSignal.timeout(1_000) })).status;
        } catch (error) {
          health = String(error);
          await new Promise((wait) => setTimeout(wait, 100));
        }
      }
      socket.terminate();
      process.kill(-served.child.pid!, "SIGKILL");
      expect(health, "GET /health after one /exec connection").toBe(200);
    },
    60_000,
  );

  it("valid input still works after all of it: replay, run in the batch, and a run in a real process (same fingerprint)", async () => {
    const replayed = batchB.get(GOOD_REPLAY.id)!;
    expectSuccess(replayed);
    expect(replayed.stdout).toMatch(/every fingerprint matched/);
    const batchRun = batchB.get(GOOD_RUN_B.id)!;
    expectSuccess(batchRun);
    const real: Ran = await shadowbook(["run", ok, NO_PROGRESS], 60_000);
    expect(real.status, `${real.stderr}\n${real.stdout}`).toBe(0);
    const fingerprint = (text: string) => /fingerprint ([0-9a-f]{64})/.exec(text)?.[1];
    expect(fingerprint(real.stdout)).toBeDefined();
    expect(fingerprint(real.stdout)).toBe(fingerprint(batchRun.stdout));
  }, 60_000);
});

/** The ids of the flag cases (built with a placeholder port: the ids do not depend on it). */
function flagCaseIds(): string[] {
  return flagCases(0).map((entry) => entry.id);
}
