/**
 * A prices input that the Exchange cannot apply is refused whole, naming
 * the item and the rule, before anything moves: a price for the settlement
 * asset (at par) and a price beyond the tick range of a market it feeds
 * threw inside the risk layer after the items before them had applied
 * (an audit, session 21: a 500 from /admin/prices, half applied, and a
 * recorded session that no longer replayed).
 */
import { describe, expect, it } from "vitest";
import { ExchangeQueries } from "../../src/exchange/queries.ts";
import { ETH, World } from "./world.ts";

function pricesInput(w: World, prices: Record<string, string>[]) {
  return w.handle({ kind: "prices", prices } as never);
}

function feedState(w: World) {
  return { oracle: w.exchange.risk.assetOraclePrices(w.now), summary: new ExchangeQueries(w.exchange).perpMarketSummary(ETH) };
}

describe("prices input refusals", () => {
  it.each([
    ["the settlement asset", { asset: "rUSD", price: "1" }, 'prices[1].asset "rUSD" is the settlement asset: it counts at par and takes no price'],
    ["a perp price beyond 2^50 ticks", { symbol: ETH, price: "1e20" }, 'prices[1].price "1e20" is more than 2^50 ticks of ETHRUSDPERP: marks are kept in whole ticks'],
    ["an index price beyond 2^50 ticks of a perp it feeds", { asset: "WETH", price: "1e50" }, 'prices[1].price "1e50" is more than 2^50 ticks of ETHRUSDPERP: marks are kept in whole ticks'],
    ["a spot price beyond 2^50 ticks of a perp its base asset feeds", { symbol: "WETHRUSD", price: "1e20" }, 'prices[1].price "1e20" is more than 2^50 ticks of ETHRUSDPERP: marks are kept in whole ticks'],
  ])("refuses %s, naming it, and moves nothing (not even the valid item before it)", (_name, bad, message) => {
    const w = new World();
    w.prices("2000");
    w.advance(600_000);
    const before = JSON.stringify(feedState(w));
    const answer = pricesInput(w, [{ asset: "WETH", price: "2100" }, bad]);
    expect(answer).toEqual({ ok: false, error: { error: "INPUT_VALIDATION_ERROR", message } });
    expect(JSON.stringify(feedState(w))).toBe(before);
  });

  it("still takes a large price within the range", () => {
    const w = new World();
    expect(pricesInput(w, [{ asset: "WETH", price: "1e12" }, { symbol: ETH, price: "1e12" }]).ok).toBe(true);
  });
});
