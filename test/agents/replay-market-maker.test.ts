import { describe, expect, it } from "vitest";
import { replayMarketMaker, type ReplayMarketMakerParams } from "../../agents/replay-market-maker.ts";
import type { ReplayContext } from "../../src/backtest/strategy.ts";

/** A context with one replayed market: enough for init, which only reads the markets. */
const ctx = { markets: [{ symbol: "ETHRUSDPERP", tickSize: "0.01", qtyStepSize: "0.001" }] } as unknown as ReplayContext;
const init = (params: Partial<Record<keyof ReplayMarketMakerParams, unknown>>) => () => replayMarketMaker.init({ ...replayMarketMaker.defaults, ...params } as ReplayMarketMakerParams, ctx);

describe("replay market maker parameters", () => {
  it("accepts its defaults and the shipped scenario's parameters", () => {
    expect(init({})).not.toThrow();
    expect(init({ quoteNotional: 3_000, maxPositionNotional: 30_000, refreshMicros: 2_000_000, requoteTicks: 1, skewTicksPerLot: 0 })).not.toThrow();
    expect(init({ quoteLots: 2, maxPositionLots: 0, edgeTicks: -1 })).not.toThrow();
  });

  it.each<[Partial<Record<keyof ReplayMarketMakerParams, unknown>>, string]>([
    [{ quoteNotional: -5 }, 'params.quoteNotional "-5" must be a finite number > 0'],
    [{ quoteNotional: 0 }, 'params.quoteNotional "0" must be a finite number > 0'],
    [{ quoteNotional: "lots" }, 'params.quoteNotional "lots" must be a finite number > 0'],
    [{ quoteLots: 1.5 }, 'params.quoteLots "1.5" must be a positive integer'],
    [{ edgeTicks: 0.5 }, 'params.edgeTicks "0.5" must be an integer'],
    [{ skewTicksPerLot: Number.NaN }, 'params.skewTicksPerLot "NaN" must be a finite number'],
    [{ maxPositionLots: -1 }, 'params.maxPositionLots "-1" must be a non-negative integer'],
    [{ maxPositionNotional: -1 }, 'params.maxPositionNotional "-1" must be a finite number >= 0'],
    [{ refreshMicros: 0 }, 'params.refreshMicros "0" must be a positive integer'],
    [{ requoteTicks: -1 }, 'params.requoteTicks "-1" must be a finite number >= 0'],
    [{ symbols: "ETHRUSDPERP" }, 'params.symbols "ETHRUSDPERP" must be a list of market symbols'],
  ])("refuses %j, naming the parameter and the rule (checkParams, and init called directly)", (params, message) => {
    const merged = { ...replayMarketMaker.defaults, ...params } as ReplayMarketMakerParams;
    // The hook names the field within params; checkScenario prefixes it with marketData.
    expect(replayMarketMaker.checkParams?.(merged)).toBe(message.slice("params.".length));
    // A library user calling init without checkScenario gets the same refusal.
    expect(init(params)).toThrow(`replay-market-maker ${message}`);
  });

  it("checkParams passes what init accepts", () => {
    expect(replayMarketMaker.checkParams?.(replayMarketMaker.defaults)).toBeNull();
    expect(replayMarketMaker.checkParams?.({ ...replayMarketMaker.defaults, symbols: ["ETHRUSDPERP"], quoteLots: 2, maxPositionLots: 0, edgeTicks: -1 })).toBeNull();
  });
});
