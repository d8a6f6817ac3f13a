import { describe, expect, it } from "vitest";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { AgentFailedError } from "../../src/sim/agent-host.ts";
import type { LatencySpec } from "../../src/sim/latency.ts";
import type { RunObserver } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { DEFAULT_START_MS, defineScenario, type Scenario, type ScenarioAgent, type TimelineEntry } from "../../src/sim/scenario.ts";
import { BASE } from "./fixtures/fuzz-scenario.ts";

const T0 = DEFAULT_START_MS * 1_000;
const constant = (micros: number): LatencySpec => ({ model: "constant", micros });

/** A one-market scenario around the given agents. */
function tiny(agents: ScenarioAgent[], extra: { durationSeconds?: number; timeline?: TimelineEntry[] } = {}): Scenario {
  return defineScenario({
    name: "runner-test",
    description: "",
    seed: 1,
    durationSeconds: extra.durationSeconds ?? 20,
    prices: [{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01 }],
    agents,
    ...(extra.timeline === undefined ? {} : { timeline: extra.timeline }),
  });
}

/** Records the time and limit price of every request input (the exchange's side of the wire). */
function requestLog(): { observer: RunObserver; seen: { atMicros: number; op: string; limitPx: string | undefined }[] } {
  const seen: { atMicros: number; op: string; limitPx: string | undefined }[] = [];
  const observer: RunObserver = {
    input(atMicros: number, input: ExchangeInput) {
      if (input.kind === "request") seen.push({ atMicros, op: input.op, limitPx: (input.body as { limitPx?: string }).limitPx });
    },
  };
  return { observer, seen };
}

const bid = (limitPx: string) => ({ symbol: "ETHRUSDPERP", isBuy: true, limitPx, qty: "0.01", timeInForce: "GTC" as const, postOnly: true });

describe("runScenario", () => {
  it("gives the same fingerprint for the same scenario and seed, and another one for another seed", async () => {
    const scenario = defineScenario({ ...BASE, durationSeconds: 10 });
    const first = await runScenario(scenario, { seed: 7 });
    const again = await runScenario(scenario, { seed: 7 });
    const other = await runScenario(scenario, { seed: 8 });
    expect(first.figures.events).toBeGreaterThan(200);
    expect(again.figures.fingerprint).toBe(first.figures.fingerprint);
    expect(again.figures.events).toBe(first.figures.events);
    expect(other.figures.fingerprint).not.toBe(first.figures.fingerprint);
  });

  it("gives the same fingerprint with the invariants checked or not", async () => {
    const scenario = defineScenario({ ...BASE, durationSeconds: 10 });
    const plain = await runScenario(scenario, { seed: 3 });
    const checked = await runScenario(scenario, { seed: 3, invariants: true });
    expect(checked.run.invariants?.stats.blocksChecked).toBeGreaterThan(50);
    expect(checked.figures.fingerprint).toBe(plain.figures.fingerprint);
  });

  it("gives the same fingerprint in trusted and signed mode", async () => {
    const scenario = defineScenario({ ...BASE, durationSeconds: 6 });
    const trusted = await runScenario(scenario, { seed: 5, signatures: "trusted" });
    const signed = await runScenario(scenario, { seed: 5, signatures: "signed" });
    expect(trusted.figures.signatures).toBe("trusted");
    expect(signed.figures.signatures).toBe("signed");
    expect(trusted.figures.inputs).toBeGreaterThan(50);
    expect(signed.figures.fingerprint).toBe(trusted.figures.fingerprint);
  });

  it("stops the run with an AgentFailedError naming the agent when an agent throws", async () => {
    const failing = defineAgent({
      kind: "test-failing",
      description: "throws after an await",
      defaults: {},
      async start(ctx) {
        await ctx.client.createOrder(bid("2000"));
        ctx.after(2 * MICROS_PER_SECOND, () => {
          throw new RangeError("the strategy lost its mind");
        });
      },
    });
    const quiet = defineAgent({ kind: "test-quiet", description: "", defaults: {}, start: () => {} });
    const scenario = tiny([{ name: "calm", agent: quiet }, { name: "breaker-7", agent: failing, latency: { orderEntry: constant(1_000), responses: constant(1_000) } }]);
    const failure = await runScenario(scenario).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AgentFailedError);
    const error = failure as AgentFailedError;
    expect(error.failure.agent).toBe("breaker-7");
    expect(error.failure.atMicros).toBe(T0 + 2_000 + 2 * MICROS_PER_SECOND);
    expect(error.failure.error).toBeInstanceOf(RangeError);
    expect(error.message).toContain('agent "breaker-7" failed in a timer');
    expect(error.message).toContain("the strategy lost its mind");
  });

  it("delivers a response at order entry + response latency, at the exact virtual time", async () => {
    const seen: { sentAt: number; answeredAt: number; status: string }[] = [];
    const probe = defineAgent({
      kind: "test-probe",
      description: "one order, timed",
      defaults: {},
      async start(ctx) {
        ctx.after(1_000_000, async () => {
          const sentAt = ctx.now();
          const order = await ctx.client.createOrder(bid("2000"));
          seen.push({ sentAt, answeredAt: ctx.now(), status: order.status });
        });
      },
    });
    const log = requestLog();
    await runScenario(tiny([{ name: "probe", agent: probe, latency: { orderEntry: constant(1_500), responses: constant(2_750), marketData: constant(700) } }], { durationSeconds: 3 }), {
      observers: [log.observer],
    });
    expect(seen).toEqual([{ sentAt: T0 + 1_000_000, answeredAt: T0 + 1_000_000 + 1_500 + 2_750, status: "OPEN" }]);
    expect(log.seen).toEqual([{ atMicros: T0 + 1_000_000 + 1_500, op: "createOrder", limitPx: "2000" }]);
  });

  it("keeps the order of a connection's messages when later ones draw shorter latencies", async () => {
    const answered: string[] = [];
    const answeredAt: number[] = [];
    const burst = defineAgent({
      kind: "test-burst",
      description: "four orders at once, not awaited in between",
      defaults: {},
      async start(ctx) {
        const prices = ["2000", "2001", "2002", "2003"];
        await Promise.all(
          prices.map((limitPx) =>
            ctx.client.createOrder(bid(limitPx)).then(() => {
              answered.push(limitPx);
              answeredAt.push(ctx.now());
            }),
          ),
        );
      },
    });
    const log = requestLog();
    await runScenario(
      tiny([{ name: "burst", agent: burst, latency: { orderEntry: { model: "recorded", micros: [5_000, 1_000, 3_000, 100] }, responses: { model: "recorded", micros: [4_000, 10, 10, 10] } } }], {
        durationSeconds: 1,
      }),
      { observers: [log.observer] },
    );
    // Without ordering the second order would arrive at +1 ms, before the first at +5 ms.
    expect(log.seen.map((entry) => entry.limitPx)).toEqual(["2000", "2001", "2002", "2003"]);
    expect(log.seen.map((entry) => entry.atMicros - T0)).toEqual([5_000, 5_000, 5_000, 5_000]);
    expect(answered).toEqual(["2000", "2001", "2002", "2003"]);
    expect(answeredAt.map((at) => at - T0)).toEqual([9_000, 9_000, 9_000, 9_000]);
  });

  it("rejects a request whose response was dropped with a transport error after the timeout", async () => {
    const outcomes: { name: string; cause: string; atMicros: number }[] = [];
    const victim = defineAgent({
      kind: "test-victim",
      description: "two orders in a row",
      defaults: {},
      async start(ctx) {
        for (const limitPx of ["2000", "2001"]) {
          try {
            await ctx.client.createOrder(bid(limitPx));
            outcomes.push({ name: "ok", cause: "", atMicros: ctx.now() });
          } catch (error) {
            const cause = (error as Error).cause;
            outcomes.push({ name: (error as Error).name, cause: cause instanceof Error ? `${cause.name}: ${cause.message}` : "", atMicros: ctx.now() });
          }
        }
      },
    });
    const log = requestLog();
    const { run } = await runScenario(
      tiny([{ name: "victim", agent: victim, latency: { orderEntry: constant(1_000), responses: constant(2_000) } }], {
        durationSeconds: 15,
        timeline: [{ atSeconds: 0, fault: { fault: "dropResponses", count: 1 } }],
      }),
      { observers: [log.observer] },
    );
    const timeout = 10_000_000;
    expect(outcomes).toEqual([
      { name: "TransportFailedError", cause: "ConnectionError: no answer to createOrder within 10000 ms", atMicros: T0 + 1_000 + timeout },
      { name: "ok", cause: "", atMicros: T0 + 1_000 + timeout + 1_000 + 2_000 },
    ]);
    // The dropped request was processed all the same: both orders rest on the book.
    expect(log.seen.map((entry) => entry.atMicros - T0)).toEqual([1_000, 1_000 + timeout + 1_000]);
    expect(run.world.queries.openOrders(run.host.agents[0]!.wallet)).toHaveLength(2);
  });
});
