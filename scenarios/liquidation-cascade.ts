/**
 * Liquidation cascade with ADL: ETH falls about 10 % over twenty minutes
 * (a strongly negative drift plus downward jumps) while six over-leveraged
 * traders are long at 17-19x. Each liquidation closes against the backstop
 * pool while the pool's margin allows, and falls to auto-deleveraging of
 * the most profitable shorts (ADL executions) when it does not; losses
 * beyond the pool are socialized. The pool starts small here: on seed 1
 * all six longs are liquidated; four are closed by ADL (ten ADL executions
 * in all) and two by the pool, grown by liquidation penalties by then (the
 * run summary counts those two as its liquidations), the pool's first
 * between the ADL closes.
 * The market maker and noise takers keep a book to trade against.
 *
 * Fuzz: each seed draws the fall (hourlyDrift -0.45..-0.2 and jumpsPerHour
 * 3..12 of jumpMean -0.015..-0.005), the longs' leverage (topLeverage
 * 15..19: the six sit at top-2, top-1, top, top, top-1, top-2) and the
 * pool's starting deposit (poolRusd 1000..5000: small, so ADL still closes
 * what the pool cannot take), then a fault and the chain's timing
 * (scenarios/fuzz-helpers.ts drawFaults).
 */
import { marketMaker } from "../agents/market-maker.ts";
import { noiseTaker } from "../agents/noise-taker.ts";
import { overLeveraged } from "../agents/over-leveraged.ts";
import type { Rng } from "../src/core/rng.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../src/exchange/config.ts";
import { defineScenario, type FuzzParameters, type FuzzRun, type GbmFeed, type Scenario, type TimelineEntry } from "../src/sim/scenario.ts";
import { applyFaults, drawFaults, round, withAgentParams } from "./fuzz-helpers.ts";

/** How far each long's leverage sits below the top one: 17, 18, 19, 19, 18, 17 for a top of 19. */
const BELOW_TOP = [2, 1, 0, 0, 1, 2] as const;

const longName = (index: number) => `long-${index + 1}`;

const longs = BELOW_TOP.map((below, index) => ({
  name: longName(index),
  agent: overLeveraged,
  params: { symbol: "ETHRUSDPERP", side: "long", alternate: false, leverage: 19 - below, startDelaySeconds: 10 + index * 5, reenterAfterSeconds: null },
  account: { rateTier: 3 as const, deposits: { rUSD: String(5_000 + index * 1_000) } },
}));

/** The falling WETH feed: a negative drift plus downward jumps. */
const weth = (hourlyDrift: number, jumpsPerHour: number, jumpMean: number): GbmFeed => ({
  asset: "WETH",
  model: "gbm",
  start: 3_000,
  hourlyVolatility: 0.01,
  hourlyDrift,
  jumps: { perHour: jumpsPerHour, mean: jumpMean, sd: 0.004 },
});

const poolDeposit = (amount: number): TimelineEntry => ({ atSeconds: 0, admin: { action: "deposit", accountId: DEFAULT_POOL_ACCOUNT_ID, asset: "rUSD", amount: String(amount) } });

function draw(rng: Rng, run: FuzzRun): FuzzParameters {
  return {
    hourlyDrift: round(rng.between(-0.45, -0.2), 3),
    jumpsPerHour: rng.int(3, 12),
    jumpMean: round(rng.between(-0.015, -0.005), 4),
    topLeverage: rng.int(15, 19),
    poolRusd: rng.int(1, 5) * 1_000,
    ...drawFaults(rng, run),
  };
}

function applyTheme(scenario: Scenario, parameters: FuzzParameters): Scenario {
  const top = Number(parameters["topLeverage"]);
  const leverage = new Map(BELOW_TOP.map((below, index) => [longName(index), top - below]));
  const isPoolDeposit = (entry: TimelineEntry) => "admin" in entry && entry.admin.action === "deposit" && entry.admin.accountId === DEFAULT_POOL_ACCOUNT_ID;
  return {
    ...scenario,
    prices: scenario.prices.map((feed) => (feed.asset === "WETH" ? weth(Number(parameters["hourlyDrift"]), Number(parameters["jumpsPerHour"]), Number(parameters["jumpMean"])) : feed)),
    agents: withAgentParams(scenario.agents, (agent) => (leverage.has(agent.name) ? { leverage: leverage.get(agent.name) } : undefined)),
    timeline: (scenario.timeline ?? []).map((entry) => (isPoolDeposit(entry) ? poolDeposit(Number(parameters["poolRusd"])) : entry)),
  };
}

export default defineScenario({
  name: "liquidation-cascade",
  description: "ETH falls ~10 % in twenty minutes; six 17-19x longs are liquidated, ADL closes what the small pool cannot take",
  seed: 1,
  durationSeconds: 1_800,
  signatures: "trusted",
  prices: [
    weth(-0.3, 6, -0.01),
    { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.01, decimals: 1 },
  ],
  timeline: [poolDeposit(3_000)],
  fuzz: { draw, apply: (scenario, parameters) => applyFaults(applyTheme(scenario, parameters), parameters) },
  agents: [
    { name: "mm-eth", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 8_000, maxInventoryNotional: 400_000 }, account: { rateTier: 3, deposits: { rUSD: "5000000" } } },
    { name: "noise-eth", agent: noiseTaker, params: { symbols: ["ETHRUSDPERP"], ratePerSecond: 0.5 }, account: { rateTier: 3, deposits: { rUSD: "500000" } } },
    ...longs,
  ],
});
