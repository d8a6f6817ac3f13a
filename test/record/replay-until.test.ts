/**
 * Replay to a time: a default-scenario run's inputs.arrow replayed with
 * `--until` gives the same state as the run itself stopped at that time; a
 * log whose file has one input's payload changed diverges at exactly that
 * step; the CLI writes the state as JSON.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { parseTimeArgument, replayCommand } from "../../src/cli/replay.ts";
import { DEFAULT_START_MS } from "../../src/sim/scenario.ts";
import { exchangeState } from "../../src/record/exchange-state.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { readInputLog, replayInputLog, type InputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";

const RUN_SECONDS = 30;
/** The stop time: 17.5 s into the run, on a millisecond (what the CLI takes). */
const UNTIL_MS = DEFAULT_START_MS + 17_500;

let dir: string;
let path: string;
let log: InputLog;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-until-"));
  path = join(dir, "inputs.arrow");
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: RUN_SECONDS, observers: [recorder] });
  recorder.write(path);
  log = readInputLog(path);
}, 120_000);

afterEach(() => {
  process.exitCode = undefined;
});

/** Rewrites the log file with the payload of step `index` replaced (everything else, metadata included, kept). */
function rewriteWithPayload(source: string, target: string, index: number, payload: string): void {
  const table = tableFromIPC(readFileSync(source));
  const payloads: (string | null)[] = [];
  const column = table.getChild("payload")!;
  for (let row = 0; row < table.numRows; row++) payloads.push(row === index ? payload : (column.get(row) as string | null));
  const changed = table.setChild("payload", vectorFromArray(payloads, new Utf8()));
  writeFileSync(target, tableToIPC(changed, "file"));
}

describe("replay --until", () => {
  it("gives the state of the run itself stopped at that time", async () => {
    const untilMicros = UNTIL_MS * 1_000;
    const replayed = replayInputLog(log, { untilMicros });
    expect(replayed.divergence).toBeUndefined();
    expect(replayed.steps).toBeGreaterThan(100);
    expect(replayed.steps).toBeLessThan(log.steps.length);
    const { run } = await runScenario(scenario, { durationSeconds: (UNTIL_MS - DEFAULT_START_MS) / 1_000 });
    expect(run.world.exchange.now()).toBeLessThanOrEqual(untilMicros);
    const stopped = exchangeState(run.world.exchange);
    const state = exchangeState(replayed.exchange);
    // A state with something in it: resting orders, positions, balances.
    expect(state.markets.some((market) => market.bids.length > 0 && market.asks.length > 0)).toBe(true);
    expect(state.accounts.some((account) => account.positions.length > 0)).toBe(true);
    expect(state).toEqual(stopped);
    expect(replayed.fingerprint).toBe(run.fingerprint());
  }, 120_000);

  it("diverges at exactly the step whose payload was changed in the file", () => {
    // A createOrder in the second half whose step made outputs (its fingerprint moved): a changed clientOrderId shows.
    const target = log.steps.find(
      (step, index) =>
        index > log.steps.length / 2 && step.input?.kind === "request" && step.input.op === "createOrder" && step.fingerprint !== log.steps[index - 1]!.fingerprint,
    )!;
    expect(target).toBeDefined();
    const input = target.input as { kind: "request"; op: string; body: Record<string, unknown> };
    const edited = JSON.stringify({ ...input, body: { ...input.body, clientOrderId: "424242" } });
    const changedPath = join(dir, "changed.arrow");
    rewriteWithPayload(path, changedPath, target.index, edited);
    const changed = readInputLog(changedPath);
    expect(changed.steps.length).toBe(log.steps.length);
    expect(changed.configJson).toBe(log.configJson);
    expect(changed.steps.filter((step, index) => JSON.stringify(step) !== JSON.stringify(log.steps[index])).map((step) => step.index)).toEqual([target.index]);
    const result = replayInputLog(changed);
    expect(result.divergence?.step.index).toBe(target.index);
    expect(result.steps).toBe(target.index + 1);
    // The unchanged file replays in full.
    expect(replayInputLog(log).divergence).toBeUndefined();
  }, 120_000);

  it("the CLI writes the state JSON next to the log, named by the time", async () => {
    const result = await replayCommand(path, { until: String(UNTIL_MS) });
    const written = join(dir, `state-${UNTIL_MS}.json`);
    expect(result.statePath).toBe(written);
    const file = JSON.parse(readFileSync(written, "utf8")) as { steps: number; fingerprint: string; state: unknown };
    const replayed = replayInputLog(log, { untilMicros: UNTIL_MS * 1_000 });
    expect(file.steps).toBe(replayed.steps);
    expect(file.fingerprint).toBe(replayed.fingerprint);
    expect(file.state).toEqual(JSON.parse(JSON.stringify(exchangeState(replayed.exchange))));
    expect(process.exitCode ?? 0).toBe(0);
  }, 120_000);

  it("the CLI takes an ISO-8601 time and --state-out, and writes nothing for a diverging log", async () => {
    expect(parseTimeArgument("2026-01-01T00:00:17.500Z")).toBe(parseTimeArgument(String(UNTIL_MS)));
    expect(parseTimeArgument("2026-01-01T01:00:17.500+01:00")).toBe(UNTIL_MS * 1_000);
    expect(() => parseTimeArgument("yesterday")).toThrow(/--until "yesterday" must be a Unix time in ms or an ISO-8601 time/);
    expect(() => parseTimeArgument("2026-01-01T00:00:17")).toThrow(/with a zone/);
    const out = join(dir, "chosen.json");
    const iso = await replayCommand(path, { until: "2026-01-01T00:00:17.500Z", stateOut: out });
    expect(iso.statePath).toBe(out);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(join(dir, `state-${UNTIL_MS}.json`), "utf8"));

    const late = log.steps.find((step, index) => index > log.steps.length / 2 && step.kind === "request" && step.fingerprint !== log.steps[index - 1]!.fingerprint)!;
    const changedPath = join(dir, "late-changed.arrow");
    const input = late.input as { kind: "request"; op: string; body: Record<string, unknown> };
    rewriteWithPayload(path, changedPath, late.index, JSON.stringify({ ...input, body: { ...input.body, accountId: 999_999 } }));
    const never = join(dir, "never.json");
    const diverged = await replayCommand(changedPath, { until: String(DEFAULT_START_MS + RUN_SECONDS * 1_000), stateOut: never });
    expect(diverged.diverged).toBe(true);
    expect(diverged.steps).toBe(late.index + 1);
    expect(process.exitCode).toBe(1);
    expect(existsSync(never)).toBe(false);
  }, 120_000);
});
