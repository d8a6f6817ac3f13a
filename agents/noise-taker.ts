/**
 * Noise taker: uninformed IOC flow. Orders arrive as a Poisson process
 * (`ratePerSecond`), each on a market drawn uniformly from `symbols`, buy or
 * sell with equal odds, with a lognormal USD size (median `medianNotional`,
 * log-sd `notionalSigma`), and a limit price `crossBps` through the oracle
 * price so that it crosses the book.
 *
 * On a perp market the cross is capped at 900 bps (lib/ioc-band.ts): the
 * service refuses a perp IOC whose limit lies beyond its price band, 10 % of
 * the mark (spec 7.3, CREATE_ORDER_OTHER_ERROR), and the cap keeps 100 bps of
 * that for the mark's distance from the oracle. A larger crossBps is sent at
 * the cap rather than refused; a spot IOC has no band and keeps crossBps.
 *
 * On a perp market a position beyond `maxPositionNotional` is only reduced
 * (the side that would grow it is flipped), so that the taker's random walk
 * stays within its margin.
 *
 * Counts: sent, filled, partial, unfilled (IOC with nothing to take),
 * notional (USD of the quantity sent), error:<code>.
 */
import { MICROS_PER_SECOND } from "../src/core/time.ts";
import { defineAgent, type AgentParamsContext } from "../src/sim/agent.ts";
import { countError } from "./lib/errors.ts";
import { gridOf } from "./lib/grid.ts";
import { iocLimitPx } from "./lib/ioc-band.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { bps, delaySeconds, notional, notionalLimit, number, type ParamRules, paramsProblem, refuseBadParams, symbolList } from "./lib/params.ts";
import { PositionTracker } from "./lib/positions.ts";

export interface NoiseTakerParams {
  /** Markets to trade, one drawn uniformly per order. Default ["ETHRUSDPERP"]. */
  readonly symbols: readonly string[];
  /** Mean orders per second (Poisson arrivals). Default 0.5. */
  readonly ratePerSecond: number;
  /** Median order size in USD. Default 1500. */
  readonly medianNotional: number;
  /** Log standard deviation of the order size. Default 0.7. */
  readonly notionalSigma: number;
  /** How far through the oracle price the limit is set, bps; on a perp at most 900 (the IOC band less room for the mark, lib/ioc-band.ts). Default 200. */
  readonly crossBps: number;
  /** Perp position (USD) beyond which orders only reduce it. Default 40000. */
  readonly maxPositionNotional: number;
  /** Seconds before the first order (lets the makers quote). Default 5. */
  readonly startDelaySeconds: number;
  /** Share of orders that buy (one-sided flow for squeezes). Default 0.5. */
  readonly buyShare: number;
}

export const NOISE_TAKER_DEFAULTS: NoiseTakerParams = {
  symbols: ["ETHRUSDPERP"],
  ratePerSecond: 0.5,
  medianNotional: 1_500,
  notionalSigma: 0.7,
  crossBps: 200,
  maxPositionNotional: 40_000,
  startDelaySeconds: 5,
  buyShare: 0.5,
};

/**
 * The highest mean order rate: 1,000 orders per second, ten times what the
 * default rate limits let one wallet send (tier 3: 6,000 per 60 s, 100 per
 * second), so every order past that is a rate-limit refusal anyway. The
 * run's work grows with the rate (1,000 a second is 3.6 million orders a
 * simulated hour): a huge rate would never let virtual time move on.
 */
export const NOISE_TAKER_RATE_PER_SECOND_MAX = 1_000;

/**
 * The widest lognormal spread of order sizes: a log-sd of 10 already puts
 * one order in a thousand beyond e^31 times the median. Far beyond it the
 * draw overflows to Infinity and the run stops midway when it sizes an
 * order.
 */
export const NOISE_TAKER_NOTIONAL_SIGMA_MAX = 10;

const RULES: ParamRules<NoiseTakerParams> = {
  symbols: symbolList,
  ratePerSecond: number({ min: 0, minExclusive: true, max: NOISE_TAKER_RATE_PER_SECOND_MAX }),
  medianNotional: notional,
  notionalSigma: number({ min: 0, max: NOISE_TAKER_NOTIONAL_SIGMA_MAX }),
  crossBps: bps,
  maxPositionNotional: notionalLimit,
  startDelaySeconds: delaySeconds,
  buyShare: number({ min: 0, max: 1 }),
};

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: NoiseTakerParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES);

export const noiseTaker = defineAgent<NoiseTakerParams>({
  kind: "noise-taker",
  description: "Poisson IOC flow of random side and lognormal size, priced through the market",
  defaults: NOISE_TAKER_DEFAULTS,
  checkParams,
  async start(ctx) {
    const p = ctx.params;
    refuseBadParams("noise-taker", checkParams(p, ctx));
    const grids = p.symbols.map((symbol) => gridOf(ctx.markets, symbol));
    const oracle = await OracleTracker.start(ctx);
    const positions = grids.some((grid) => grid.kind === "perp") ? await PositionTracker.start(ctx) : undefined;
    const logMedian = Math.log(p.medianNotional);

    const next = (): void => {
      ctx.after(Math.max(1, Math.round(ctx.rng.exponential(p.ratePerSecond) * MICROS_PER_SECOND)), send);
    };
    const send = async (): Promise<void> => {
      next();
      const grid = ctx.rng.choice(grids);
      const reference = oracle.price(grid.asset);
      let isBuy = ctx.rng.bernoulli(p.buyShare);
      const notional = ctx.rng.lognormal(logMedian, p.notionalSigma);
      if (reference === undefined) return;
      if (grid.kind === "perp" && positions !== undefined) {
        const exposure = positions.qty(grid.symbol) * reference;
        if (Math.abs(exposure) > p.maxPositionNotional) isBuy = exposure < 0;
      }
      const qty = grid.qtyAtLeastMin(notional / reference);
      const limitPx = iocLimitPx(grid, reference, isBuy, p.crossBps);
      ctx.count("sent");
      ctx.count("notional", Math.round(Number(qty) * reference));
      try {
        const response = await ctx.client.createOrder({ symbol: grid.symbol, isBuy, limitPx, qty, timeInForce: "IOC" });
        const filled = Number(response.cumQty ?? "0");
        ctx.count(filled === 0 ? "unfilled" : response.status === "FILLED" ? "filled" : "partial");
      } catch (error) {
        countError(ctx, error);
      }
    };
    ctx.after(p.startDelaySeconds * MICROS_PER_SECOND, () => next());
  },
});

export default noiseTaker;
