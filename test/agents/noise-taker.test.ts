import { describe, expect, it } from "vitest";
import { marketMaker } from "../../agents/market-maker.ts";
import { noiseTaker } from "../../agents/noise-taker.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { agentOf, CALM_FEEDS, countOf, RunLog } from "./helpers.ts";

describe("noise taker", () => {
  it("sends Poisson IOC flow on both sides, priced through the market, that fills against the maker and never rests", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "noise",
      description: "",
      seed: 11,
      durationSeconds: 65,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        { name: "noise", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 2, crossBps: 200, startDelaySeconds: 5 }, account: { rateTier: 3 } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const mm = agentOf(run, "mm");
    const noise = agentOf(run, "noise");

    // About 2 per second over 60 s (Poisson: mean 120, sd 11).
    const sent = log.requestsOf(noise, "createOrder");
    expect(sent.length).toBeGreaterThan(85);
    expect(sent.length).toBeLessThan(155);
    expect(countOf(run, "noise", "sent")).toBe(sent.length);
    const gaps = sent.slice(1).map((request, index) => request.atMicros - sent[index]!.atMicros);
    expect(Math.max(...gaps)).toBeGreaterThan(2 * Math.min(...gaps) + 1_000_000 / 2); // not a fixed cadence

    // IOC only, both sides, limit ~2 % through the oracle (3000 +- a calm drift).
    for (const request of sent) {
      expect(request.body["timeInForce"]).toBe("IOC");
      const limit = Number(request.body["limitPx"]);
      const through = request.body["isBuy"] === true ? limit / 3_000 - 1 : 1 - limit / 3_000;
      expect(through).toBeGreaterThan(0.015);
      expect(through).toBeLessThan(0.025);
    }
    const buys = sent.filter((request) => request.body["isBuy"] === true).length;
    expect(buys).toBeGreaterThan(sent.length * 0.3);
    expect(buys).toBeLessThan(sent.length * 0.7);

    // They fill against the maker: executions with the taker's and the maker's accounts, both sides.
    const fills = log.executions.filter((entry) => entry.record.takerAccountId === noise.accountId);
    expect(fills.length).toBeGreaterThan(sent.length * 0.8);
    for (const fill of fills) expect(fill.record.makerAccountId).toBe(mm.accountId);
    expect(new Set(fills.map((fill) => fill.record.side))).toEqual(new Set(["A", "B"]));
    expect(countOf(run, "noise", "filled") + countOf(run, "noise", "partial")).toBeGreaterThan(sent.length * 0.8);
    expect(run.world.queries.openOrders(noise.wallet)).toHaveLength(0);
  });
});

describe("noise taker, crossBps beyond the IOC band", () => {
  it("caps its cross on a perp inside the band the exchange enforces (10 % from the mark): a crossBps of 1500 is sent 900 bps through, and none is refused", async () => {
    const log = new RunLog();
    const scenario = defineScenario({
      name: "noise-wide-cross",
      description: "",
      seed: 11,
      durationSeconds: 40,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        { name: "noise", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 2, crossBps: 1_500, startDelaySeconds: 5 }, account: { rateTier: 3 } },
      ],
    });
    const { run } = await runScenario(scenario, { observers: [log] });
    const sent = log.requestsOf(agentOf(run, "noise"), "createOrder");
    expect(sent.length).toBeGreaterThan(40);
    expect(new Set(sent.map((request) => request.body["isBuy"]))).toEqual(new Set([true, false]));
    // Without the cap every one of them was refused by the band (CREATE_ORDER_OTHER_ERROR).
    expect(countOf(run, "noise", "error:CREATE_ORDER_OTHER_ERROR")).toBe(0);
    expect(countOf(run, "noise", "filled") + countOf(run, "noise", "partial")).toBeGreaterThan(sent.length * 0.8);
    for (const request of sent) {
      const limit = Number(request.body["limitPx"]);
      const through = request.body["isBuy"] === true ? limit / 3_000 - 1 : 1 - limit / 3_000;
      // 9 % through the oracle (3000 +- a calm drift), inside the 10 % band around the mark.
      expect(through).toBeGreaterThan(0.085);
      expect(through).toBeLessThan(0.095);
    }
  });
});
