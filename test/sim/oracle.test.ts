import { describe, expect, it } from "vitest";
import { RngRoot } from "../../src/core/rng.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import type { PriceInput } from "../../src/exchange/inputs.ts";
import { Oracle, parsePricePath } from "../../src/sim/oracle.ts";
import type { PriceFeed } from "../../src/sim/scenario.ts";

/** Runs the oracle's schedule by hand, in time order, up to `until`; returns what it published with the time. */
function publishedUntil(feeds: PriceFeed[], until: number, basis = { sd: 0 }, paths = new Map()): { at: number; input: PriceInput }[] {
  const oracle = new Oracle(feeds, DEFAULT_MARKETS, new RngRoot(3), 0, paths, basis);
  const queue: { at: number; seq: number; run: () => void }[] = [];
  let seq = 0;
  let now = 0;
  const out: { at: number; input: PriceInput }[] = [];
  oracle.start(
    (at, run) => queue.push({ at, seq: seq++, run }),
    (input) => out.push({ at: now, input }),
  );
  for (;;) {
    queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = queue.shift();
    if (next === undefined || next.at > until) break;
    now = next.at;
    next.run();
  }
  return out;
}

describe("Oracle", () => {
  it("publishes the start price at t0, then one step every stepMs, the perps following their index asset", () => {
    const out = publishedUntil([{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01, stepMs: 500 }], 2_000_000);
    expect(out.map((entry) => entry.at)).toEqual([0, 500_000, 1_000_000, 1_500_000, 2_000_000]);
    expect(out[0]!.input.prices).toEqual([
      { asset: "WETH", price: "3000.00" },
      { symbol: "ETHRUSDPERP", price: "3000.00" },
    ]);
    const later = out[4]!.input.prices;
    expect(later[0]!.price).not.toBe("3000.00");
    expect(later[1]!.price).toBe(later[0]!.price); // no basis: the mark oracle equals the index
  });

  it("publishes feeds that step at the same instant as one input", () => {
    const out = publishedUntil(
      [
        { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01 },
        { asset: "WBTC", model: "gbm", start: 60000, hourlyVolatility: 0.01, decimals: 1 },
      ],
      1_000_000,
    );
    expect(out).toHaveLength(2);
    expect(out[1]!.input.prices.map((price) => price.asset ?? price.symbol)).toEqual(["WETH", "ETHRUSDPERP", "WBTC", "BTCRUSDPERP"]);
  });

  it("a zero-volatility GBM with drift moves by exactly exp(drift dt)", () => {
    const out = publishedUntil([{ asset: "WETH", model: "gbm", start: 1000, hourlyVolatility: 0, hourlyDrift: 0.36, stepMs: 1_000 }], 10_000_000);
    expect(out[10]!.input.prices[0]!.price).toBe((1000 * Math.exp(0.36 * (10 / 3600))).toFixed(2));
  });

  it("a shock moves the path by its log return from the first step at or after its time, and leaves the random draws as they were", () => {
    const feed = { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.02, stepMs: 1_000 } as const;
    const plain = publishedUntil([feed], 10_000_000).map((entry) => Number(entry.input.prices[0]!.price));
    const shocked = publishedUntil([{ ...feed, shocks: [{ atSeconds: 4.5, logReturn: 0.04 }] }], 10_000_000).map((entry) => Number(entry.input.prices[0]!.price));
    expect(shocked.slice(0, 5)).toEqual(plain.slice(0, 5)); // 0-4 s: before it
    for (let step = 5; step <= 10; step++) expect(shocked[step]! / plain[step]!).toBeCloseTo(Math.exp(0.04), 5);
  });

  it("a positive basis mean puts the perp's mark oracle above its index", () => {
    const out = publishedUntil([{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0 }], 0, { sd: 0, mean: 0.01 } as never);
    expect(out[0]!.input.prices).toEqual([
      { asset: "WETH", price: "3000.00" },
      { symbol: "ETHRUSDPERP", price: "3030.00" },
    ]);
  });

  it("replays a recorded path at its offsets, and stops where it ends", () => {
    const path = parsePricePath("offsetMs,price\n0,2000\n1500,2010.5\n4000,1990\n", "eth.csv");
    const out = publishedUntil([{ asset: "WETH", model: "path", file: "eth.csv" }], 60_000_000, { sd: 0 }, new Map([["eth.csv", path]]));
    expect(out.map((entry) => [entry.at, entry.input.prices[0]!.price])).toEqual([
      [0, "2000.00"],
      [1_500_000, "2010.50"],
      [4_000_000, "1990.00"],
    ]);
  });
});

describe("parsePricePath", () => {
  it("names the line and the rule of a bad point", () => {
    expect(() => parsePricePath("0,1\n5,-2\n", "p.csv")).toThrow('p.csv:2: price "-2" must be a positive number');
    expect(() => parsePricePath("0,1\n0,2\n", "p.csv")).toThrow('p.csv:2: offsetMs "0" must increase');
    expect(() => parsePricePath("# nothing\n", "p.csv")).toThrow("p.csv: the path has no points");
  });
});
