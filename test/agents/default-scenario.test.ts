import { describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { exchangeConfigOf } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { countOf } from "./helpers.ts";

describe("default scenario", () => {
  it("is the built-in market set for an hour, seed 1, trusted, with 0.5 % busts and tier-3 volume agents", () => {
    expect(scenario.name).toBe("default");
    expect(scenario.seed).toBe(1);
    expect(scenario.durationSeconds).toBe(3_600);
    expect(scenario.signatures).toBe("trusted");
    expect(scenario.markets).toBeUndefined();
    expect(exchangeConfigOf(scenario, "trusted").risk).toBe(DEFAULT_MARKETS);
    expect(scenario.settlement?.bustProbability).toBe(0.005);
    expect(scenario.prices.map((feed) => feed.asset)).toEqual(["WETH", "WBTC"]);
    const kinds = scenario.agents.map((entry) => entry.agent.kind);
    for (const kind of ["market-maker", "noise-taker", "momentum", "over-leveraged", "arbitrageur", "chaos"]) expect(kinds).toContain(kind);
    const makers = scenario.agents.filter((entry) => entry.agent.kind === "market-maker");
    expect(makers.map((entry) => entry.params?.["symbol"])).toEqual(["ETHRUSDPERP", "BTCRUSDPERP", "WETHRUSD"]);
    for (const entry of scenario.agents) if (entry.agent.kind !== "chaos") expect(entry.account?.rateTier, entry.name).toBe(3);
  });

  it("runs two minutes with the invariants on, every agent at work, and the same fingerprint twice", async () => {
    const first = await runScenario(scenario, { invariants: true, durationSeconds: 120 });
    const second = await runScenario(scenario, { invariants: true, durationSeconds: 120 });
    expect(first.run.host.failure).toBeUndefined();
    expect(second.figures.fingerprint).toBe(first.figures.fingerprint);
    expect(second.figures.inputs).toBe(first.figures.inputs);
    expect(second.figures.events).toBe(first.figures.events);

    const run = first.run;
    for (const maker of ["mm-eth", "mm-btc", "mm-weth-spot"]) {
      expect(countOf(run, maker, "modifies"), maker).toBeGreaterThan(50);
      expect(countOf(run, maker, "deadManRenewals"), maker).toBeGreaterThanOrEqual(19);
    }
    for (const taker of ["noise-eth-1", "noise-eth-2", "noise-btc", "noise-mixed"]) expect(countOf(run, taker, "filled"), taker).toBeGreaterThan(20);
    expect(countOf(run, "over-leveraged", "chunks")).toBeGreaterThan(2);
    expect(countOf(run, "chaos", "error:PRICE_QTY_BOUNDS_ERROR")).toBeGreaterThan(0);
    // Inputs stay within the budget that keeps an hour under 10 s: about 21,000 an hour.
    expect(first.figures.inputs).toBeLessThan((25_000 * 120) / 3_600);
  });
});
