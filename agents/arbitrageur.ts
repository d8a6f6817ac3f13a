/**
 * Arbitrageur: trades a perp book against the oracle price.
 *
 * When a market's best ask is more than `thresholdBps` below the oracle
 * price of its asset, it buys what the ask offers (at most
 * `maxOrderNotional` USD, and within `maxPositionNotional` of position) with
 * an IOC at the ask; when the best bid is more than `thresholdBps` above the
 * oracle, it sells. It unwinds a position with a reduce-only IOC once the
 * book is back: a long is sold when the bid is no more than `exitBps` below
 * the oracle (a short mirrors this), so a round trip earns at least
 * thresholdBps - exitBps before fees when the oracle ends where it started
 * (its move in between adds to that or takes from it: there is no stop).
 *
 * It checks a market on every oracle update of its asset and on book
 * changes (at most once per `checkDelayMs`), one order in flight per market.
 * Its position is the settled one (positions channel) plus its fills that
 * have not settled yet: a fill not settled a second later is checked against
 * the wallet's busts, and stops counting only once busted (a stalled chain
 * settles it later), so the position cap holds however late settlement is.
 *
 * Counts: checks, arbBuys, arbSells, exits (orders sent for each reason),
 * unfilled (IOCs that found nothing), error:<code>.
 */
import { MICROS_PER_MILLI } from "../src/core/time.ts";
import { defineAgent, type AgentContext, type AgentParamsContext } from "../src/sim/agent.ts";
import { BookTracker } from "./lib/book.ts";
import { bustedQty } from "./lib/busts.ts";
import { countError } from "./lib/errors.ts";
import { gridOf, MarketGrid } from "./lib/grid.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { bps, delayMs, greaterThan, marketSymbolList, notional, notionalLimit, type ParamRules, paramsProblem, refuseBadParams, type RelationRule, signedBps } from "./lib/params.ts";
import { PositionTracker } from "./lib/positions.ts";

export interface ArbitrageurParams {
  /** The perp markets watched. Default ["ETHRUSDPERP", "BTCRUSDPERP"]. */
  readonly symbols: readonly string[];
  /** Distance of the touch through the oracle that triggers a trade, bps. Default 15. */
  readonly thresholdBps: number;
  /** A long is unwound once the bid is at most this far below the oracle (a short mirrors it), bps. Default 10. */
  readonly exitBps: number;
  /** Largest single IOC, USD. Default 10000. */
  readonly maxOrderNotional: number;
  /** Largest position per market, USD. Default 40000. */
  readonly maxPositionNotional: number;
  /** Least time between two checks of one market caused by book changes, ms. Default 200. */
  readonly checkDelayMs: number;
}

export const ARBITRAGEUR_DEFAULTS: ArbitrageurParams = {
  symbols: ["ETHRUSDPERP", "BTCRUSDPERP"],
  thresholdBps: 15,
  exitBps: 10,
  maxOrderNotional: 10_000,
  maxPositionNotional: 40_000,
  checkDelayMs: 200,
};

const RULES: ParamRules<ArbitrageurParams> = {
  symbols: marketSymbolList("perp"),
  thresholdBps: bps,
  // May be negative: a long is then unwound only once the bid is above the oracle.
  exitBps: signedBps,
  maxOrderNotional: notional,
  maxPositionNotional: notionalLimit,
  checkDelayMs: delayMs,
};

const RELATIONS: readonly RelationRule<ArbitrageurParams>[] = [
  // Else a round trip may lose before fees.
  greaterThan("thresholdBps", "exitBps"),
];

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: ArbitrageurParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES, RELATIONS);

/** How long a fill may take to show on the positions channel before its busts are read (and again after each read). */
const SETTLE_WAIT_MICROS = 1_000_000;

/** An own fill the positions channel does not show yet. */
interface PendingFill {
  readonly orderId: string;
  readonly isBuy: boolean;
  readonly filled: number;
  /** When the order was sent, ms (its busts are read from then). */
  readonly sentMs: number;
  /** Of `filled`, what the wallet's busts showed busted. */
  busted: number;
}

interface Leg {
  readonly isBuy: boolean;
  readonly price: number;
  readonly qty: number;
  readonly reduceOnly: boolean;
  readonly what: "arbBuys" | "arbSells" | "exits";
}

class Watch {
  private busy = false;
  private scheduled = false;
  /** Filled but not yet settled (the positions channel follows settlement), nor busted. */
  private pending: PendingFill[] = [];

  constructor(
    private readonly ctx: AgentContext<ArbitrageurParams>,
    private readonly grid: MarketGrid,
    private readonly book: BookTracker,
    private readonly oracle: OracleTracker,
    private readonly positions: PositionTracker,
  ) {
    book.onChange(() => this.soon());
    oracle.onUpdate((update) => (update.asset === grid.asset ? this.check() : undefined));
    positions.onChange((change) => {
      if (change.symbol === grid.symbol) this.pending = [];
    });
  }

  private soon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.ctx.after(this.ctx.params.checkDelayMs * MICROS_PER_MILLI, () => {
      this.scheduled = false;
      return this.check();
    });
  }

  /** The trade the book and the oracle call for now, if any. */
  private leg(): Leg | undefined {
    const p = this.ctx.params;
    const reference = this.oracle.price(this.grid.asset);
    if (reference === undefined) return undefined;
    const { bid, bidQty, ask, askQty } = this.book.touch();
    const unsettled = this.pending.reduce((sum, fill) => sum + (fill.isBuy ? 1 : -1) * (fill.filled - fill.busted), 0);
    const position = this.positions.qty(this.grid.symbol) + unsettled;
    const exposure = position * reference;
    const orderQty = p.maxOrderNotional / reference;
    if (ask !== undefined && ask <= MarketGrid.shift(reference, -p.thresholdBps) && exposure < p.maxPositionNotional) {
      return { isBuy: true, price: ask, qty: Math.min(askQty, orderQty, (p.maxPositionNotional - exposure) / reference), reduceOnly: false, what: "arbBuys" };
    }
    if (bid !== undefined && bid >= MarketGrid.shift(reference, p.thresholdBps) && exposure > -p.maxPositionNotional) {
      return { isBuy: false, price: bid, qty: Math.min(bidQty, orderQty, (p.maxPositionNotional + exposure) / reference), reduceOnly: false, what: "arbSells" };
    }
    if (position > 0 && bid !== undefined && bid >= MarketGrid.shift(reference, -p.exitBps)) {
      return { isBuy: false, price: bid, qty: Math.min(bidQty, position), reduceOnly: true, what: "exits" };
    }
    if (position < 0 && ask !== undefined && ask <= MarketGrid.shift(reference, p.exitBps)) {
      return { isBuy: true, price: ask, qty: Math.min(askQty, -position), reduceOnly: true, what: "exits" };
    }
    return undefined;
  }

  /**
   * A fill still pending SETTLE_WAIT_MICROS later was busted, or the chain is
   * slow: the order's busts tell which (lib/busts.ts). What they show busted
   * stops counting; the rest is still on its way, and is looked at again.
   */
  private awaitSettlement(fill: PendingFill): void {
    const { ctx, grid } = this;
    ctx.after(SETTLE_WAIT_MICROS, async () => {
      if (!this.pending.includes(fill)) return;
      let busted = fill.busted;
      try {
        busted = await bustedQty(ctx, fill.orderId, fill.sentMs);
      } catch (error) {
        countError(ctx, error);
      }
      if (!this.pending.includes(fill)) return;
      fill.busted = Math.min(fill.filled, busted);
      if (Math.round((fill.filled - fill.busted) / grid.step) > 0) this.awaitSettlement(fill);
      else this.pending = this.pending.filter((candidate) => candidate !== fill);
    });
  }

  async check(): Promise<void> {
    if (this.busy) return;
    const { ctx, grid } = this;
    ctx.count("checks");
    const leg = this.leg();
    if (leg === undefined) return;
    const qty = grid.qty(leg.qty);
    if (qty === undefined) return;
    this.busy = true;
    ctx.count(leg.what);
    const sentMs = ctx.nowMs();
    try {
      const response = await ctx.client.createOrder({
        symbol: grid.symbol,
        isBuy: leg.isBuy,
        limitPx: grid.price(leg.price, "nearest"),
        qty,
        timeInForce: "IOC",
        reduceOnly: leg.reduceOnly,
      });
      const filled = Number(response.cumQty ?? "0");
      if (filled === 0) ctx.count("unfilled");
      else {
        const fill: PendingFill = { orderId: response.orderId, isBuy: leg.isBuy, filled, sentMs, busted: 0 };
        this.pending.push(fill);
        this.awaitSettlement(fill);
      }
    } catch (error) {
      countError(ctx, error);
    } finally {
      this.busy = false;
    }
  }
}

export const arbitrageur = defineAgent<ArbitrageurParams>({
  kind: "arbitrageur",
  description: "takes a perp book's touch when it is far enough through the oracle price, unwinds when the book is back",
  defaults: ARBITRAGEUR_DEFAULTS,
  checkParams,
  async start(ctx) {
    const p = ctx.params;
    refuseBadParams("arbitrageur", checkParams(p, ctx));
    const grids = p.symbols.map((symbol) => gridOf(ctx.markets, symbol));
    const oracle = await OracleTracker.start(ctx);
    const positions = await PositionTracker.start(ctx);
    for (const grid of grids) new Watch(ctx, grid, await BookTracker.start(ctx, grid.symbol), oracle, positions);
  },
});

export default arbitrageur;
