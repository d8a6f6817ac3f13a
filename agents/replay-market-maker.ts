/**
 * A market maker for replay backtests (src/backtest): it joins the best
 * bid and ask of each replayed market with postOnly GTC orders and waits
 * in the recorded queues.
 *
 * - Every `refreshMicros`, and whenever a depth frame shows a best that
 *   moved `requoteTicks` or more away from its quote, it moves each quote
 *   to its target: the best bid (ask) `edgeTicks` further from the mid,
 *   shifted by `skewTicksPerLot` per lot of position against the
 *   position (a long quotes lower, to sell sooner).
 * - A side is not quoted while the position reached `maxPositionLots` that way.
 * - Size: `quoteNotional` of the quote currency at the mid, in whole lots
 *   (at least the market's minOrderQty); a quote the position limit cuts
 *   below that minimum is not sent.
 * - One quote per side per market: a quote is replaced by cancel, then a new
 *   order once the cancel is answered (or the quote filled), so it never
 *   has two orders on a side.
 */
import { defineReplayStrategy, type ReplayContext } from "../src/backtest/strategy.ts";

export interface ReplayMarketMakerParams {
  /** Markets to quote (default: every replayed market). */
  readonly symbols?: readonly string[];
  readonly quoteNotional: number;
  /** Fixed size in lots (overrides quoteNotional). */
  readonly quoteLots?: number;
  readonly edgeTicks: number;
  readonly skewTicksPerLot: number;
  readonly maxPositionLots?: number;
  /** Position limit as a notional, used when maxPositionLots is not given. */
  readonly maxPositionNotional: number;
  readonly refreshMicros: number;
  readonly requoteTicks: number;
}

interface Quote {
  id: number;
  priceTicks: number;
  /** A cancel was sent and not yet answered. */
  cancelling: boolean;
}

interface MarketState {
  readonly symbol: string;
  readonly tick: number;
  readonly step: number;
  /** The market's smallest order, in lots (its minOrderQty). */
  readonly minLots: number;
  bid: Quote | null;
  ask: Quote | null;
}

interface State {
  readonly params: ReplayMarketMakerParams;
  readonly markets: Map<string, MarketState>;
  readonly byOrder: Map<number, { market: MarketState; side: "B" | "A" }>;
}

function lotsFor(market: MarketState, params: ReplayMarketMakerParams, notional: number, midTicks: number): number {
  const price = midTicks * market.tick;
  return Math.max(1, Math.round(notional / (price * market.step)));
}

function quoteSide(ctx: ReplayContext, state: State, market: MarketState, side: "B" | "A", targetTicks: number, lots: number): void {
  const quote = side === "B" ? market.bid : market.ask;
  if (quote !== null) {
    if (quote.priceTicks === targetTicks || quote.cancelling) return;
    quote.cancelling = ctx.cancel(quote.id);
    return;
  }
  // Below the market's minimum (a quote cut to the position left) the side is not quoted: submit would refuse it.
  if (!(targetTicks > 0) || lots < market.minLots) return;
  const id = ctx.submit({ symbol: market.symbol, side, priceTicks: targetTicks, qtyLots: lots, timeInForce: "GTC", postOnly: true });
  const placed: Quote = { id, priceTicks: targetTicks, cancelling: false };
  if (side === "B") market.bid = placed;
  else market.ask = placed;
  state.byOrder.set(id, { market, side });
}

function requote(ctx: ReplayContext, state: State, market: MarketState): void {
  const book = ctx.book(market.symbol);
  const bestBid = book.bestBidTicks;
  const bestAsk = book.bestAskTicks;
  if (!Number.isFinite(bestBid) || !Number.isFinite(bestAsk) || bestBid >= bestAsk) return;
  const params = state.params;
  const mid = (bestBid + bestAsk) / 2;
  const lots = Math.max(market.minLots, params.quoteLots ?? lotsFor(market, params, params.quoteNotional, mid));
  const maxLots = params.maxPositionLots ?? lotsFor(market, params, params.maxPositionNotional, mid);
  const position = ctx.position(market.symbol);
  const skew = Math.round(position * params.skewTicksPerLot);
  const bidTarget = Math.min(bestBid - params.edgeTicks - skew, bestAsk - 1);
  const askTarget = Math.max(bestAsk + params.edgeTicks - skew, bestBid + 1);
  if (position < maxLots) quoteSide(ctx, state, market, "B", bidTarget, Math.min(lots, maxLots - position));
  else if (market.bid !== null && !market.bid.cancelling) market.bid.cancelling = ctx.cancel(market.bid.id);
  if (position > -maxLots) quoteSide(ctx, state, market, "A", askTarget, Math.min(lots, maxLots + position));
  else if (market.ask !== null && !market.ask.cancelling) market.ask.cancelling = ctx.cancel(market.ask.id);
}

function forget(state: State, orderId: number): MarketState | undefined {
  const owner = state.byOrder.get(orderId);
  if (owner === undefined) return undefined;
  state.byOrder.delete(orderId);
  const quote = owner.side === "B" ? owner.market.bid : owner.market.ask;
  if (quote?.id === orderId) {
    if (owner.side === "B") owner.market.bid = null;
    else owner.market.ask = null;
  }
  return owner.market;
}

/**
 * Why the parameters (the scenario's marketData.params over the defaults) cannot run, or null:
 * `<field> "<value>" <rule>` (the strategy's checkParams hook; init refuses the same).
 */
function paramsProblem(params: ReplayMarketMakerParams): string | null {
  const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
  const integer = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);
  const { symbols } = params;
  if (symbols !== undefined && !(Array.isArray(symbols) && symbols.every((symbol) => typeof symbol === "string"))) return `symbols "${String(symbols)}" must be a list of market symbols`;
  const rules: readonly [keyof ReplayMarketMakerParams, boolean, string][] = [
    ["quoteNotional", finite(params.quoteNotional) && params.quoteNotional > 0, "a finite number > 0"],
    ["quoteLots", params.quoteLots === undefined || (integer(params.quoteLots) && params.quoteLots > 0), "a positive integer"],
    ["edgeTicks", integer(params.edgeTicks), "an integer"],
    ["skewTicksPerLot", finite(params.skewTicksPerLot), "a finite number"],
    ["maxPositionLots", params.maxPositionLots === undefined || (integer(params.maxPositionLots) && params.maxPositionLots >= 0), "a non-negative integer"],
    ["maxPositionNotional", finite(params.maxPositionNotional) && params.maxPositionNotional >= 0, "a finite number >= 0"],
    ["refreshMicros", integer(params.refreshMicros) && params.refreshMicros > 0, "a positive integer"],
    ["requoteTicks", finite(params.requoteTicks) && params.requoteTicks >= 0, "a finite number >= 0"],
  ];
  for (const [name, ok, rule] of rules) {
    if (!ok) return `${name} "${String(params[name])}" must be ${rule}`;
  }
  return null;
}

export const replayMarketMaker = defineReplayStrategy<ReplayMarketMakerParams, State>({
  name: "replay-market-maker",
  defaults: {
    quoteNotional: 2_000,
    edgeTicks: 0,
    skewTicksPerLot: 0,
    maxPositionNotional: 20_000,
    refreshMicros: 1_000_000,
    requoteTicks: 1,
  },
  checkParams: paramsProblem,
  init(params, ctx) {
    // Again: a library user may call init without checkScenario or runReplay.
    const problem = paramsProblem(params);
    if (problem !== null) throw new RangeError(`replay-market-maker params.${problem}`);
    const symbols = params.symbols ?? ctx.markets.map((market) => market.symbol);
    const markets = new Map<string, MarketState>();
    for (const symbol of symbols) {
      const info = ctx.markets.find((market) => market.symbol === symbol);
      if (info === undefined) throw new Error(`replay-market-maker symbols: "${symbol}" is not a replayed market`);
      markets.set(symbol, { symbol, tick: Number(info.tickSize), step: Number(info.qtyStepSize), minLots: info.minOrderLots, bid: null, ask: null });
    }
    return { params, markets, byOrder: new Map() };
  },
  onStart(ctx, state) {
    ctx.setTimer(ctx.now + state.params.refreshMicros, "refresh");
  },
  onTimer(ctx, state) {
    for (const market of state.markets.values()) requote(ctx, state, market);
    ctx.setTimer(ctx.now + state.params.refreshMicros, "refresh");
  },
  onDepth(ctx, state, book) {
    const market = state.markets.get(book.symbol);
    if (market === undefined) return;
    const threshold = state.params.requoteTicks;
    const bidMoved = market.bid === null || Math.abs(book.bestBidTicks - market.bid.priceTicks) >= threshold + state.params.edgeTicks;
    const askMoved = market.ask === null || Math.abs(book.bestAskTicks - market.ask.priceTicks) >= threshold + state.params.edgeTicks;
    if (bidMoved || askMoved) requote(ctx, state, market);
  },
  onFill(ctx, state, fill) {
    if (fill.leavesLots > 0) return;
    const market = forget(state, fill.orderId);
    if (market !== undefined) requote(ctx, state, market);
  },
  onOrder(ctx, state, update) {
    if (update.type === "accepted") return;
    // Cancelled, rejected, or a cancel too late (the fill answered already): the side is free.
    const market = forget(state, update.orderId);
    if (market !== undefined && update.type !== "cancelRejected") requote(ctx, state, market);
  },
});
