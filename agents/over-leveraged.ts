/**
 * Over-leveraged trader: keeps a position at the market's maximum leverage,
 * without stops, until a price move liquidates it.
 *
 * It aims at `leverage` x equity of notional on `side`, where equity is its
 * rUSD balance plus the unrealized PnL of the position, and scales in with
 * IOCs of at most `chunkNotional` USD every `chunkSeconds` (the book's depth
 * is finite), until the position reaches the target or the exchange refuses
 * more for margin (ACCOUNT_BELOW_INITIAL_MARGIN_ERROR: the leverage cap
 * speaking; it then halves its chunks down to 1/16 before it takes the cap as
 * reached, and later top-ups aim below that leverage). Every `topUpSeconds` it looks again and tops the position up
 * when a favourable move has lowered its leverage by 3 % or more, so
 * that it always sits near the cap: a move against it of about the gap
 * between the initial and the liquidation margin (2.5 % on the default
 * markets) liquidates it.
 *
 * It watches its own perp executions: a LIQUIDATION (or ADL) execution of
 * its account is counted, and after `reenterAfterSeconds` it builds again
 * with what equity is left (if at least `minEquity`), on the other side
 * when `alternate` is set.
 *
 * Its IOCs are priced `crossBps` through the oracle, capped at 900 bps
 * inside the service's perp IOC price band (10 % of the mark, spec 7.3;
 * lib/ioc-band.ts): a larger crossBps is sent at the cap rather than
 * refused.
 *
 * Counts: chunks, chunkUnfilled, built (a build reached its target or the
 * cap), topUps, liquidations, adl, reentries, tooPoorToBuild, error:<code>.
 */
import { MICROS_PER_SECOND } from "../src/core/time.ts";
import { defineAgent, type AgentContext, type AgentParamsContext } from "../src/sim/agent.ts";
import type { PerpExecution } from "../src/spec/execution.ts";
import { readBalance } from "./lib/balances.ts";
import { countError } from "./lib/errors.ts";
import { gridOf, MarketGrid } from "./lib/grid.ts";
import { iocLimitPx } from "./lib/ioc-band.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { assetName, boolean, bps, delaySeconds, marketSymbol, nonNegative, notional, number, oneOf, orNull, type ParamRules, paramsProblem, period, refuseBadParams } from "./lib/params.ts";
import { PositionTracker } from "./lib/positions.ts";

export interface OverLeveragedParams {
  /** The perp market. Default "ETHRUSDPERP". */
  readonly symbol: string;
  /** The side of the first position. Default "long". */
  readonly side: "long" | "short";
  /** Flip the side for each new position after a liquidation. Default true. */
  readonly alternate: boolean;
  /** Target notional over equity; the market's maximum is 20. Default 19. */
  readonly leverage: number;
  /** Largest IOC while building, USD. Default 8000. */
  readonly chunkNotional: number;
  /** Seconds between building IOCs. Default 2. */
  readonly chunkSeconds: number;
  /** Seconds between checks of the leverage once built; a position below 97 % of the target is topped up; null = never. Default 10. */
  readonly topUpSeconds: number | null;
  /** How far through the oracle the IOCs are priced, bps (the pre-trade margin check charges this as a loss); at most 900 is used (the IOC band less room for the mark, lib/ioc-band.ts). Default 40. */
  readonly crossBps: number;
  /** Seconds after the start before building (lets the makers quote). Default 10. */
  readonly startDelaySeconds: number;
  /** Seconds after a liquidation before building again; null = never. Default 60. */
  readonly reenterAfterSeconds: number | null;
  /** Equity (rUSD) below which it does not build again. Default 200. */
  readonly minEquity: number;
  /** The settlement asset whose balance is the equity. Default "rUSD". */
  readonly collateralAsset: string;
}

export const OVER_LEVERAGED_DEFAULTS: OverLeveragedParams = {
  symbol: "ETHRUSDPERP",
  side: "long",
  alternate: true,
  leverage: 19,
  chunkNotional: 8_000,
  chunkSeconds: 2,
  topUpSeconds: 10,
  crossBps: 40,
  startDelaySeconds: 10,
  reenterAfterSeconds: 60,
  minEquity: 200,
  collateralAsset: "rUSD",
};

/** The highest leverage the agent may aim for: 1,000x, far beyond any market's (its orders are refused for margin long before). */
export const OVER_LEVERAGED_LEVERAGE_MAX = 1_000;

const RULES: ParamRules<OverLeveragedParams> = {
  symbol: marketSymbol("perp"),
  side: oneOf(["long", "short"]),
  alternate: boolean,
  leverage: number({ min: 0, minExclusive: true, max: OVER_LEVERAGED_LEVERAGE_MAX }),
  chunkNotional: notional,
  chunkSeconds: period,
  // A shorter period would look again at the same instant, forever.
  topUpSeconds: orNull(period),
  crossBps: bps,
  startDelaySeconds: delaySeconds,
  reenterAfterSeconds: orNull(delaySeconds),
  minEquity: nonNegative,
  collateralAsset: assetName,
};

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: OverLeveragedParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES);

/** The smallest chunk tried, as a share of chunkNotional, before the cap counts as reached. */
const CHUNK_SCALE_MIN = 1 / 16;

/** A position below this share of the target leverage is topped up. */
const TOP_UP_BELOW = 0.97;

/** Chunks sent for one build at most (a book too thin to fill the target ends the build). */
const CHUNKS_MAX = 40;

class OverLeveraged {
  private isLong: boolean;
  private building = false;
  private targetNotional = 0;
  private chunksSent = 0;
  private reentryPending = false;
  /** Equity when the current build started. */
  private buildEquity = 0;
  /** Chunks shrink (halve) each time the exchange refuses one for margin. */
  private chunkScale = 1;
  /** The leverage at which the exchange last refused more (the effective cap); Infinity before. */
  private refusedAtLeverage = Infinity;
  /** Counts builds: a chunk timer of an earlier build (one a liquidation cut short) ends instead of running alongside the new one. */
  private buildId = 0;

  constructor(
    private readonly ctx: AgentContext<OverLeveragedParams>,
    private readonly grid: MarketGrid,
    private readonly oracle: OracleTracker,
    private readonly positions: PositionTracker,
  ) {
    this.isLong = ctx.params.side !== "short";
  }

  /** Equity: the collateral balance plus the position's unrealized PnL at the oracle price. */
  private async equity(): Promise<{ equity: number; heldNotional: number } | undefined> {
    const { ctx, grid } = this;
    const balance = await readBalance(ctx, ctx.params.collateralAsset);
    const price = this.oracle.price(grid.asset);
    if (price === undefined) return undefined;
    const position = this.positions.get(grid.symbol);
    const unrealized = position.qty * (price - position.avgEntryPrice);
    return { equity: balance + unrealized, heldNotional: Math.abs(position.qty) * price };
  }

  async build(): Promise<void> {
    const { ctx } = this;
    // Started before the first oracle price (a short startDelaySeconds): wait for it, rather than take it as no equity.
    if (this.oracle.price(this.grid.asset) === undefined) await this.oracle.ready(this.grid.asset);
    const state = await this.equity();
    if (state === undefined || state.equity < ctx.params.minEquity) {
      ctx.count("tooPoorToBuild");
      return;
    }
    this.refusedAtLeverage = Infinity;
    this.start(state.equity);
    await this.chunk();
  }

  private start(equity: number): void {
    this.buildEquity = equity;
    this.chunkScale = 1;
    this.targetNotional = equity * this.ctx.params.leverage;
    this.building = true;
    this.chunksSent = 0;
    this.buildId += 1;
  }

  /** Once built: tops the position up to the target leverage when a favourable move lowered it. */
  async topUp(): Promise<void> {
    const { ctx } = this;
    const every = ctx.params.topUpSeconds;
    if (every === null) return;
    ctx.after(every * MICROS_PER_SECOND, () => this.topUp());
    if (this.building || this.reentryPending || this.positions.qty(this.grid.symbol) === 0) return;
    const state = await this.equity();
    const leverage = Math.min(ctx.params.leverage, this.refusedAtLeverage);
    if (state === undefined || state.heldNotional >= TOP_UP_BELOW * state.equity * leverage) return;
    ctx.count("topUps");
    this.start(state.equity);
    await this.chunk();
  }

  private async chunk(buildId = this.buildId): Promise<void> {
    const { ctx, grid } = this;
    if (!this.building || buildId !== this.buildId) return;
    const price = this.oracle.price(grid.asset);
    if (price === undefined) return this.later(buildId);
    const held = Math.abs(this.positions.qty(grid.symbol)) * price;
    const wanted = Math.min(ctx.params.chunkNotional * this.chunkScale, this.targetNotional - held);
    const qty = grid.qty(wanted / price);
    if (qty === undefined || this.chunksSent >= CHUNKS_MAX) return this.done();
    this.chunksSent += 1;
    ctx.count("chunks");
    const isBuy = this.isLong;
    try {
      const response = await ctx.client.createOrder({
        symbol: grid.symbol,
        isBuy,
        limitPx: iocLimitPx(grid, price, isBuy, ctx.params.crossBps),
        qty,
        timeInForce: "IOC",
        reduceOnly: false,
      });
      if (Number(response.cumQty ?? "0") === 0) ctx.count("chunkUnfilled");
    } catch (error) {
      const code = countError(ctx, error);
      if (code === "ACCOUNT_BELOW_INITIAL_MARGIN_ERROR") {
        // Close to the cap: try smaller chunks; at the smallest, the cap is reached.
        if (this.chunkScale > CHUNK_SCALE_MIN) {
          this.chunkScale /= 2;
          return this.later(buildId);
        }
        // Remember where the cap is, so that top-ups aim below it.
        this.refusedAtLeverage = held / this.buildEquity;
        return this.done();
      }
    }
    return this.later(buildId);
  }

  private later(buildId: number): void {
    this.ctx.after(this.ctx.params.chunkSeconds * MICROS_PER_SECOND, () => this.chunk(buildId));
  }

  private done(): void {
    if (!this.building) return;
    this.building = false;
    this.ctx.count("built");
  }

  /** A perp execution on the wallet's channel. */
  onExecution(rows: readonly PerpExecution[]): Promise<void> | undefined {
    const { ctx } = this;
    let liquidated = false;
    for (const row of rows) {
      if (row.takerAccountId !== ctx.accountId || row.symbol !== this.grid.symbol) continue;
      if (row.type === "LIQUIDATION") {
        ctx.count("liquidations");
        liquidated = true;
      } else if (row.type === "ADL") {
        ctx.count("adl");
        liquidated = true;
      }
    }
    // A liquidation closes every position of the account: build again once, later.
    if (!liquidated || this.reentryPending) return undefined;
    this.building = false;
    const reenter = ctx.params.reenterAfterSeconds;
    if (reenter === null) return undefined;
    if (ctx.params.alternate) this.isLong = !this.isLong;
    this.reentryPending = true;
    ctx.after(reenter * MICROS_PER_SECOND, () => {
      this.reentryPending = false;
      ctx.count("reentries");
      return this.build();
    });
    return undefined;
  }
}

export const overLeveraged = defineAgent<OverLeveragedParams>({
  kind: "over-leveraged",
  description: "builds a position near maximum leverage and holds it until it is liquidated",
  defaults: OVER_LEVERAGED_DEFAULTS,
  checkParams,
  async start(ctx) {
    const p = ctx.params;
    refuseBadParams("over-leveraged", checkParams(p, ctx));
    const grid = gridOf(ctx.markets, p.symbol);
    const oracle = await OracleTracker.start(ctx);
    const positions = await PositionTracker.start(ctx);
    const trader = new OverLeveraged(ctx, grid, oracle, positions);
    await ctx.stream.subscribe(`/v2/wallet/${ctx.wallet}/perpExecutions`, (message) => trader.onExecution(message.data));
    ctx.after(p.startDelaySeconds * MICROS_PER_SECOND, () => trader.build());
    if (p.topUpSeconds !== null) ctx.after((p.startDelaySeconds + p.topUpSeconds) * MICROS_PER_SECOND, () => trader.topUp());
  },
});

export default overLeveraged;
