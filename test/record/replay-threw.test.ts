/**
 * A step the Exchange throws on (src/record/replay.ts replayInputLog): the
 * live server answers it with an internal error and goes on from the state
 * the throw left, and a fuzz seed whose Exchange threw fails there; a replay
 * of either log goes past the throw when the fingerprint after the step
 * still matches the log's, lists the step with what was thrown, and reaches
 * the recording's fingerprint. When it does not match (here: the replaying
 * code throws before the step's outputs), the step cannot be replayed.
 *
 * The throw is planted: Exchange.prototype.handle wrapped so that one input
 * (an admin deposit of PLANTED_AMOUNT, or the first request at or after a
 * virtual time in a run) is applied and then throws an InvariantError, as a
 * bug found after its effects would. The wrapper is on the prototype, so
 * the recording and the replay meet the same code.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { writeFailureLog } from "../../src/cli/fuzz.ts";
import { replayCommand, thrownLines } from "../../src/cli/replay.ts";
import { InvariantError } from "../../src/core/assert.ts";
import { DEFAULT_POOL_ACCOUNT_ID, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { LiveDriver } from "../../src/live/driver.ts";
import { exchangeState } from "../../src/record/exchange-state.ts";
import { LiveInputLog } from "../../src/record/live-input-log.ts";
import { InputLogError, readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runFuzzSeed } from "../../src/sim/fuzz.ts";
import { loadScenario, scenarioPath } from "../../src/sim/scenario-loader.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

const START_MICROS = 1_767_225_600_000_000;
const PLANTED_AMOUNT = "777";
const original = Exchange.prototype.handle;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-threw-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

const isPlanted = (input: ExchangeInput) => input.kind === "admin" && input.admin.action === "deposit" && input.admin.amount === PLANTED_AMOUNT;

/** The planted deposit is applied, then throws. */
function plantAfter(): void {
  vi.spyOn(Exchange.prototype, "handle").mockImplementation(function (this: Exchange, input: ExchangeInput, atMicros: number) {
    const answer = original.call(this, input, atMicros);
    if (isPlanted(input)) throw new InvariantError("planted: a ledger sum went wrong after the deposit");
    return answer;
  });
}

/** The planted deposit throws before it does anything. */
function plantBefore(): void {
  vi.spyOn(Exchange.prototype, "handle").mockImplementation(function (this: Exchange, input: ExchangeInput, atMicros: number) {
    if (isPlanted(input)) throw new InvariantError("planted: refused before the deposit");
    return original.call(this, input, atMicros);
  });
}

const deposit = (amount: string): ExchangeInput => ({ kind: "admin", admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount } });

/** A live server's session on a manual clock: the planted deposit throws (answered as an internal error), the session goes on. */
async function liveSession(): Promise<{ path: string; fingerprint: string; thrown: unknown }> {
  const exchange = new Exchange({ config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), startMicros: START_MICROS, seed: 3 });
  const log = new LiveInputLog(join(dir, `live-${Math.random().toString(36).slice(2)}`), {
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 3,
    startMicros: START_MICROS,
    scenario: "serve",
    signatures: "signed",
    durability: "async",
  });
  const driver = new LiveDriver(exchange, { clock: "manual", startMicros: START_MICROS, speed: 1, log });
  driver.handle({ kind: "prices", prices: [{ asset: "WETH", price: "3000" }, { asset: "WBTC", price: "60000" }] });
  driver.handle(deposit("1000"));
  driver.advanceBy(1_000);
  let thrown: unknown;
  try {
    driver.handle(deposit(PLANTED_AMOUNT));
  } catch (error) {
    thrown = error;
  }
  driver.advanceBy(1_000);
  driver.handle(deposit("5"));
  driver.advanceBy(2_000);
  const fingerprint = driver.fingerprint();
  await driver.close();
  return { path: log.path, fingerprint, thrown };
}

describe("a live log with a step the Exchange threw on", () => {
  it("replays past it: the step listed with its error, every fingerprint matched, the state as the throw left it", async () => {
    plantAfter();
    const session = await liveSession();
    expect(session.thrown).toBeInstanceOf(InvariantError);
    const log = readInputLog(session.path);
    const plantedIndex = log.steps.findIndex((step) => step.input !== undefined && isPlanted(step.input));
    expect(plantedIndex).toBeGreaterThan(0);
    expect(plantedIndex).toBeLessThan(log.steps.length - 1);
    const result = replayInputLog(log);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(log.steps.length);
    expect(result.fingerprint).toBe(session.fingerprint);
    expect(result.threw).toEqual([{ step: log.steps[plantedIndex], error: "InvariantError: planted: a ledger sum went wrong after the deposit" }]);
    // The deposit stands (the throw came after it), and so does the one after it: 1000 + 777 + 5.
    const pool = exchangeState(result.exchange).accounts.find((account) => account.accountId === DEFAULT_POOL_ACCOUNT_ID)!;
    expect(pool.balances.find((balance) => balance.asset === "rUSD")?.realBalance).toBe("1782");
  });

  it("`shadowbook replay` prints the step and what it threw, and exits 0", async () => {
    plantAfter();
    const session = await liveSession();
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    const before = process.exitCode;
    process.exitCode = undefined;
    try {
      await replayCommand(session.path, {});
      expect(process.exitCode).toBeUndefined();
    } finally {
      process.exitCode = before;
    }
    const index = readInputLog(session.path).steps.findIndex((step) => step.input !== undefined && isPlanted(step.input));
    expect(lines).toContain(
      `  step ${index} (2026-01-01T00:00:01.000Z, admin) threw InvariantError: planted: a ledger sum went wrong after the deposit; the fingerprint after it matches the log's, so the replay went on from the state it left`,
    );
    expect(lines.at(-2)).toMatch(/ steps replayed in [\d.]+ s, every fingerprint matched/);
    expect(lines.at(-1)).toBe(`  fingerprint ${session.fingerprint}`);
  });

  it("cannot be replayed when the fingerprint after the throw differs: named by its step and error", async () => {
    plantAfter();
    const session = await liveSession();
    vi.restoreAllMocks();
    plantBefore();
    const log = readInputLog(session.path);
    const index = log.steps.findIndex((step) => step.input !== undefined && isPlanted(step.input));
    expect(() => replayInputLog(log)).toThrow(InputLogError);
    expect(() => replayInputLog(log)).toThrow(new RegExp(`: step ${index} \\(admin at \\d+ µs\\) cannot be replayed: planted: refused before the deposit$`));
  });
});

describe("thrownLines", () => {
  it("lists at most ten steps, then counts the rest", () => {
    const steps = Array.from({ length: 12 }, (_, index) => ({ step: { index, kind: "request", input: undefined, timeMicros: START_MICROS + index, fingerprint: "0".repeat(16) }, error: `InvariantError: number ${index}` }));
    const lines = thrownLines(steps);
    expect(lines).toHaveLength(11);
    expect(lines[9]).toBe(`  step 9 (2026-01-01T00:00:00.000Z, request) threw InvariantError: number 9; the fingerprint after it matches the log's, so the replay went on from the state it left`);
    expect(lines[10]).toBe("  ... and 2 more steps threw");
    expect(thrownLines(steps.slice(0, 10))).toHaveLength(10);
  });
});

describe("a fuzz failure where the Exchange threw", () => {
  it("its log replays to the failure: the last step threw, every fingerprint matched", async () => {
    // The first request the Exchange takes at or after 2 s of the run is applied, then throws (once per Exchange: each run and replay has its own).
    const fromMicros = START_MICROS + 2_000_000;
    const fired = new WeakSet<Exchange>();
    vi.spyOn(Exchange.prototype, "handle").mockImplementation(function (this: Exchange, input: ExchangeInput, atMicros: number) {
      const answer = original.call(this, input, atMicros);
      if (input.kind === "request" && atMicros >= fromMicros && !fired.has(this)) {
        fired.add(this);
        throw new InvariantError(`planted: request at ${atMicros} broke the book`);
      }
      return answer;
    });
    const seedOptions = { scenarioPath: scenarioPath("scenarios/default.ts"), durationSeconds: 4 };
    const failure = await runFuzzSeed(await loadScenario(seedOptions.scenarioPath), 1, seedOptions);
    expect(failure.ok).toBe(false);
    expect(failure.error?.message).toContain("planted: request at");
    const written = await writeFailureLog(failure, seedOptions, join(dir, "fuzz"));
    expect(written?.sameFailure).toBe(true);
    const log = readInputLog(written!.path);
    const result = replayInputLog(log);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(log.steps.length);
    expect(result.threw.map(({ step }) => step.index)).toEqual([log.steps.length - 1]);
    expect(result.threw[0]!.error).toMatch(/^InvariantError: planted: request at \d+ broke the book$/);
    expect(result.fingerprint).toBe(failure.fingerprint);
  }, 60_000);
});
