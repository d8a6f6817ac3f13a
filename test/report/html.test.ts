import { describe, expect, it } from "vitest";
import { chartSpecs, renderReportHtml } from "../../src/report/html.ts";
import { downsampleIndices, type RunSeries } from "../../src/report/series.ts";
import type { RunSummary } from "../../src/report/summary.ts";

const START_MS = 1_767_225_600_000;
const SAMPLES = 3_600; // one simulated hour at one sample a second

function wave(n: number, base: number, amplitude: number, phase: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => base + amplitude * Math.sin(i / 97 + phase) + (i === 1_234 ? amplitude * 3 : 0));
}

function syntheticSeries(): RunSeries {
  const timesMs = Float64Array.from({ length: SAMPLES }, (_, i) => START_MS + i * 1_000);
  const agents = ["mm-1", "mm-2", "noise-1", "noise-2", "momentum", "gambler"];
  const perps = ["ETHRUSDPERP", "BTCRUSDPERP"];
  const market = (base: number, perp: boolean) =>
    new Map<string, Float64Array>([
      ["index", wave(SAMPLES, base, base * 0.01, 0)],
      ["oracle", wave(SAMPLES, base, base * 0.01, 0.1)],
      ["mark", perp ? wave(SAMPLES, base, base * 0.01, 0.2) : new Float64Array(SAMPLES).fill(NaN)],
      ["fundingRate", perp ? wave(SAMPLES, 0, 0.01, 0) : new Float64Array(SAMPLES).fill(NaN)],
      ["openInterest", perp ? wave(SAMPLES, 50, 10, 0) : new Float64Array(SAMPLES).fill(NaN)],
      ["bestBid", wave(SAMPLES, base * 0.999, base * 0.01, 0)],
      ["bestAsk", wave(SAMPLES, base * 1.001, base * 0.01, 0)],
      ["bidDepth", wave(SAMPLES, 20, 5, 1)],
      ["askDepth", wave(SAMPLES, 20, 5, 2)],
    ]);
  return {
    startMs: START_MS,
    timesMs,
    equity: new Map(agents.map((a, i) => [a, wave(SAMPLES, 100_000 * (i + 1), 500, i)])),
    positions: new Map(agents.map((a, i) => [a, new Map(perps.map((p, j) => [p, wave(SAMPLES, 0, 2, i + j)]))])),
    markets: new Map([
      ["ETHRUSDPERP", market(3_000, true)],
      ["BTCRUSDPERP", market(60_000, true)],
      ["WETHRUSD", market(3_000, false)],
    ]),
  };
}

const summary: RunSummary = {
  scenario: "default",
  description: "a <test> run & more",
  seed: 42,
  signatures: "trusted",
  fingerprint: "ab".repeat(32),
  startMs: START_MS,
  endMs: START_MS + 3_600_000,
  simulatedSeconds: 3_600,
  wallSeconds: 8.5,
  events: 4_000_000,
  inputs: 1_000_000,
  outputs: 3_000_000,
  eventsPerSecond: 470_588,
  speedup: 423,
  settlementAsset: "rUSD",
  samples: SAMPLES,
  exact: true,
  agents: [
    {
      name: "mm-1",
      kind: "market-maker",
      accountId: 2,
      wallet: "0x0000000000000000000000000000000000000002",
      trades: 10,
      takerTrades: 2,
      makerTrades: 8,
      volume: "12345.5",
      fees: "1.25",
      fundingPaid: "0.5",
      fundingReceived: "0.25",
      realizedPnl: "12.5",
      penalties: "0",
      unrealizedPnl: -3.5,
      unrealizedFunding: -0.5,
      equityStart: 100_000,
      equityEnd: 100_007.75,
      flows: 0,
      netPnl: 7.75,
      otherPnl: 0,
      maxDrawdown: 20,
      maxDrawdownFraction: 0.0002,
      orders: 40,
      fillRatio: 0.25,
      liquidationFills: 0,
      adlFills: 0,
      busts: 1,
      counts: {},
    },
  ],
  markets: [{ symbol: "ETHRUSDPERP", kind: "perp", quoteAsset: "rUSD", trades: 10, volume: "12345.5", fees: "1.25", liquidations: 0, adl: 0, marketCloses: 0, busts: 1 }],
  totals: { trades: 10, volume: "12345.5", fees: "1.25", liquidations: 0, adl: 0, busts: 1, blocks: 36_000, settledMatches: 10, bustedMatches: 1 },
};

describe("report.html", () => {
  it("is one self-contained page with an inline SVG per chart and the run's figures", async () => {
    const html = await renderReportHtml(summary, syntheticSeries(), { depthLevels: 10 });
    const charts = chartSpecs(syntheticSeries());
    expect(charts.map((c) => c.id)).toEqual(["equity", "positions", "prices", "funding", "open-interest", "book", "liquidity"]);
    expect(html.match(/<svg[\s>]/g)?.length).toBe(charts.length);
    for (const chart of charts) expect(html).toMatch(new RegExp(`<section id="${chart.id}"><h2>[^<]*</h2><figure><svg`));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?https?:/i);
    expect(html).toContain(summary.fingerprint);
    expect(html).toContain("seed 42");
    expect(html).toContain("a &lt;test&gt; run &amp; more");
    expect(html).toContain("mm-1");
    // One hour, six agents, three markets: the page stays small.
    expect(html.length).toBeLessThan(3_000_000);
  }, 30_000);

  it("says so when there is nothing to draw", async () => {
    const empty: RunSeries = { startMs: START_MS, timesMs: new Float64Array(0), equity: new Map(), positions: new Map(), markets: new Map() };
    const html = await renderReportHtml(summary, empty);
    expect(html).not.toContain("<svg");
    expect(html.match(/Nothing to draw/g)?.length).toBe(7);
  });
});

describe("downsampleIndices", () => {
  it("keeps every point of a short series", () => {
    expect(downsampleIndices(5, 10)).toEqual([0, 1, 2, 3, 4]);
  });

  it("bounds a long series, keeps its ends, its extremes, and ascends", () => {
    const values = wave(SAMPLES, 0, 1, 0);
    values[2_222] = 50;
    values[3_000] = -50;
    const indices = downsampleIndices(values.length, 600, values);
    expect(indices.length).toBeLessThanOrEqual(601);
    expect(indices[0]).toBe(0);
    expect(indices.at(-1)).toBe(SAMPLES - 1);
    expect(indices).toContain(2_222);
    expect(indices).toContain(3_000);
    expect(indices.every((v, i) => i === 0 || v > indices[i - 1]!)).toBe(true);
  });
});
