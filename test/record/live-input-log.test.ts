/**
 * The live server's input log (src/record/live-input-log.ts): steps go to
 * disk in group commits (one record batch each, at most one commit in
 * flight, spaced by the group-commit window), callbacks wait for the commit
 * holding their steps (sync) or run at once (async), the last step of every
 * batch carries its full fingerprint, the file is the same format as a
 * simulated run's log, and a stream cut anywhere reads its complete batches.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordBatchStreamReader, tableFromIPC, type Schema } from "apache-arrow";
import { beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { configFromJson, FINGERPRINT_PREFIX_DIGITS, InputLogRecorder } from "../../src/record/input-log.ts";
import { LiveInputLog, type LiveInputLogOptions } from "../../src/record/live-input-log.ts";
import { readInputLog, replayInputLog, type InputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

const START_MICROS = 1_767_225_600_000_000;

function directory(): string {
  return mkdtempSync(join(tmpdir(), "shadowbook-live-log-"));
}

function openLog(dir: string, options: Partial<LiveInputLogOptions> = {}): LiveInputLog {
  return new LiveInputLog(dir, {
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 3,
    startMicros: START_MICROS,
    scenario: "serve",
    signatures: "signed",
    durability: "sync",
    ...options,
  });
}

function digestOf(n: number): string {
  return createHash("sha256").update(String(n)).digest("hex");
}

/** Step `n`: a prices input (odd n: a timer-only advance), with fingerprint digestOf(n). */
function step(log: LiveInputLog, n: number): void {
  if (n % 2 === 1) log.advance(START_MICROS + n);
  else log.append(START_MICROS + n, { kind: "prices", prices: [{ asset: "WETH", price: String(2000 + n) }] });
  log.endStep(digestOf(n));
}

function durable(log: LiveInputLog): Promise<void> {
  return new Promise((resolve) => log.whenDurable(resolve));
}

describe("group commit", () => {
  it("writes the steps of one turn as one batch, and runs callbacks only once it is on disk, in order", async () => {
    const dir = directory();
    const log = openLog(dir);
    const seen: string[] = [];
    for (let n = 0; n < 100; n++) step(log, n);
    log.whenDurable(() => seen.push(`a@${log.stats.durableSteps}`));
    for (let n = 100; n < 150; n++) step(log, n);
    log.whenDurable(() => seen.push(`b@${log.stats.durableSteps}`));
    expect(seen).toEqual([]);
    expect(log.stats.durableSteps).toBe(0);
    await durable(log);
    expect(seen).toEqual(["a@150", "b@150"]);
    expect(log.stats.batchRows).toEqual([150]);
    const recorded = readInputLog(log.path);
    expect(recorded.steps.map((s) => s.kind)).toEqual(Array.from({ length: 150 }, (_, n) => (n % 2 === 1 ? "advance" : "prices")));
    expect(recorded.steps[4]!.input).toEqual({ kind: "prices", prices: [{ asset: "WETH", price: "2004" }] });
    expect(recorded.steps[3]!.input).toBeUndefined();
    expect(recorded.steps.map((s) => s.timeMicros)).toEqual(Array.from({ length: 150 }, (_, n) => START_MICROS + n));
    // A 16-digit prefix on every step, all 64 digits on the last of the batch.
    expect(recorded.steps.slice(0, 149).map((s) => s.fingerprint)).toEqual(Array.from({ length: 149 }, (_, n) => digestOf(n).slice(0, FINGERPRINT_PREFIX_DIGITS)));
    expect(recorded.steps[149]!.fingerprint).toBe(digestOf(149));
    await log.close();
  });

  it("starts a commit at once when idle, then at most every groupCommitMs; steps meanwhile wait and join one batch", async () => {
    const log = openLog(directory(), { groupCommitMs: 1_000 });
    const started = performance.now();
    step(log, 0);
    await durable(log);
    const first = performance.now() - started;
    expect(first).toBeLessThan(900);
    let answered = false;
    step(log, 1);
    log.whenDurable(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    step(log, 2);
    step(log, 3);
    await durable(log);
    expect(answered).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(log.stats.batchRows).toEqual([1, 3]);
    expect(log.stats.commits).toBe(2);
    await log.close();
    expect(readInputLog(log.path).steps).toHaveLength(4);
  });

  it("async durability runs callbacks at once, and commits in the background", async () => {
    const log = openLog(directory(), { durability: "async" });
    for (let n = 0; n < 10; n++) step(log, n);
    let answered = false;
    log.whenDurable(() => (answered = true));
    expect(answered).toBe(true);
    expect(log.stats.durableSteps).toBe(0);
    await log.close();
    expect(log.stats.durableSteps).toBe(10);
    expect(readInputLog(log.path).steps).toHaveLength(10);
  });

  it("refuses a step after close, and a step begun inside another", async () => {
    const log = openLog(directory());
    log.append(START_MICROS, { kind: "prices", prices: [] });
    expect(() => log.advance(START_MICROS)).toThrow("a step began before the last one ended");
    log.endStep(digestOf(0));
    await log.close();
    expect(() => step(log, 1)).toThrow("is closed");
  });

  it("an input it cannot write begins no step and grows no column: the next steps commit and read back", async () => {
    const log = openLog(directory());
    step(log, 0);
    const unwritable = { kind: "request", op: "createOrder", body: { big: 1n } } as unknown as Parameters<LiveInputLog["append"]>[1];
    expect(() => log.append(START_MICROS + 1, unwritable)).toThrow(TypeError);
    step(log, 2);
    step(log, 3);
    await durable(log);
    await log.close();
    expect(readInputLog(log.path).steps.map((recorded) => [recorded.timeMicros, recorded.kind])).toEqual([[START_MICROS, "prices"], [START_MICROS + 2, "prices"], [START_MICROS + 3, "advance"]]);
  });
});

describe("a killed server's stream", () => {
  it("reads, cut at any byte, exactly the batches that were complete", async () => {
    const log = openLog(directory());
    const ends: { bytes: number; steps: number }[] = [{ bytes: log.stats.bytes, steps: 0 }];
    let n = 0;
    for (const size of [3, 5, 2]) {
      for (let i = 0; i < size; i++) step(log, n++);
      await durable(log);
      ends.push({ bytes: log.stats.bytes, steps: n });
    }
    await log.close();
    const bytes = readFileSync(log.path);
    expect(bytes.byteLength).toBe(ends.at(-1)!.bytes + 8); // the end-of-stream marker of a closed log
    const cut = join(directory(), "cut.arrow");
    // Every byte near a batch boundary, every 13th byte elsewhere.
    const near = (length: number) => ends.some((end) => Math.abs(end.bytes - length) <= 40);
    for (let length = ends[0]!.bytes; length <= bytes.byteLength; length++) {
      if (!near(length) && length % 13 !== 0) continue;
      writeFileSync(cut, bytes.subarray(0, length));
      const complete = ends.filter((end) => end.bytes <= length).at(-1)!.steps;
      const steps = readInputLog(cut).steps;
      if (steps.length !== complete) expect.fail(`cut at ${length} bytes: read ${steps.length} steps, ${complete} were complete`);
      if (complete > 0) expect(steps.at(-1)!.fingerprint).toBe(digestOf(complete - 1));
    }
  });
});

describe("format", () => {
  let simulated: InputLog;
  let simulatedPath: string;
  let livePath: string;

  /** Feeds a simulated run's steps through an Exchange into a live log, committing every 97 steps. */
  async function reRecordLive(source: InputLog): Promise<string> {
    const log = openLog(directory(), {
      config: configFromJson(source.configJson),
      seed: source.seed,
      startMicros: source.startMicros,
      scenario: source.scenario,
      signatures: source.signatures,
    });
    const exchange = new Exchange({ config: configFromJson(source.configJson), startMicros: source.startMicros, seed: source.seed });
    const fingerprint = new Fingerprint();
    exchange.subscribe((output) => fingerprint.update(output));
    for (const logged of source.steps) {
      if (logged.input === undefined) {
        log.advance(logged.timeMicros);
        exchange.advanceTo(logged.timeMicros);
      } else {
        log.append(logged.timeMicros, logged.input);
        exchange.handle(logged.input, logged.timeMicros);
      }
      log.endStep(fingerprint.digest());
      if (logged.index % 97 === 96) await durable(log);
    }
    await log.close();
    return log.path;
  }

  function schemaOf(path: string, stream: boolean): Schema {
    const bytes = readFileSync(path);
    return stream ? RecordBatchStreamReader.from(bytes).open().schema : tableFromIPC(bytes).schema;
  }

  beforeAll(async () => {
    const recorder = new InputLogRecorder();
    await runScenario(scenario, { durationSeconds: 20, observers: [recorder] });
    simulatedPath = join(directory(), "inputs.arrow");
    recorder.write(simulatedPath);
    simulated = readInputLog(simulatedPath);
    livePath = await reRecordLive(simulated);
  }, 120_000);

  it("has the simulated log's columns, types and schema metadata", () => {
    const live = schemaOf(livePath, true);
    const sim = schemaOf(simulatedPath, false);
    const shape = (schema: Schema) => schema.fields.map((field) => `${field.name}: ${String(field.type)}${field.nullable ? " (nullable)" : ""}`);
    expect(shape(live)).toEqual(shape(sim));
    expect(shape(live)).toEqual(["timeMicros: Int64 (nullable)", "kind: Dictionary<Int32, Utf8> (nullable)", "op: Dictionary<Int32, Utf8> (nullable)", "payload: Utf8 (nullable)", "fingerprint: Utf8 (nullable)"]);
    expect([...live.metadata]).toEqual([...sim.metadata]);
  });

  it("holds the same steps, fingerprints full on the last step of every batch, and replays to the run's fingerprint", () => {
    const live = readInputLog(livePath);
    expect(simulated.steps.length).toBeGreaterThan(300);
    expect(live.steps.map((s) => [s.timeMicros, s.kind, s.input])).toEqual(simulated.steps.map((s) => [s.timeMicros, s.kind, s.input]));
    for (const [index, step] of live.steps.entries()) {
      const batchEnd = index % 97 === 96 || index === live.steps.length - 1;
      const sim = simulated.steps[index]!.fingerprint;
      expect(step.fingerprint.length, `step ${index}`).toBe(batchEnd ? 64 : FINGERPRINT_PREFIX_DIGITS);
      expect(step.fingerprint.slice(0, FINGERPRINT_PREFIX_DIGITS)).toBe(sim.slice(0, FINGERPRINT_PREFIX_DIGITS));
    }
    const result = replayInputLog(live);
    expect(result.divergence).toBeUndefined();
    expect(result.fingerprint).toBe(simulated.steps.at(-1)!.fingerprint);
  });
});
