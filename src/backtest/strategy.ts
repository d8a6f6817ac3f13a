/**
 * The strategy interface of a market-data replay backtest.
 *
 * A strategy is a typed definition: its name, default parameters, a state
 * made from them, and callbacks that receive a context.
 *
 * Parameters: `checkParams(params)` (optional) says why the parameters (the
 * scenario's marketData.params over the defaults) cannot run, as
 * `<field> "<value>" <rule>` (e.g. `quoteNotional "-5" must be a finite
 * number > 0`), or null. checkScenario calls it, so `shadowbook run`
 * refuses bad params naming `marketData.params.<field>` before it reads the
 * recording; runReplay calls it again before `init`. A strategy whose init
 * may be called directly (a library user skipping both) should also refuse
 * there: the shipped ones throw the same problem from init.
 *
 * Callbacks run on the strategy's own clock, i.e. when a message would
 * reach it:
 *
 * - onStart: at the first recorded event;
 * - onDepth: a depth frame of a market arrived (after the market-data
 *   latency); `ctx.book(symbol)` shows the book as of that frame. Leave it
 *   out unless every frame matters: without it the frames wait and the
 *   book view applies them when read (the same book, far fewer calls);
 * - onTrade: an execution was published (after its settlement, plus the
 *   market-data latency);
 * - onOrder: an order was accepted (resting), rejected (postOnly would
 *   cross), cancelled (by request, an IOC remainder, or stopped at an own
 *   resting order: self-trade prevention), or a cancel was
 *   refused because the order had already filled (it lost the race);
 * - onFill: an own order filled, partly or fully (after the response latency);
 * - onTimer: a timer set with `ctx.setTimer` fired;
 * - onEnd: the recording ended.
 *
 * Orders: `ctx.submit` sends a LIMIT order (GTC or IOC, postOnly optional)
 * with its price in ticks and quantity in lots of the market; `ctx.cancel`
 * sends a cancel. A request the exchange would refuse at admission (a
 * symbol not replayed, a bad side or timeInForce, postOnly with IOC, a
 * price or quantity not a positive whole number of ticks or lots, a
 * quantity below the market's minOrderQty, or a
 * notional beyond the accounts' integers) is refused at once: submit throws
 * a ReplayStrategyError naming the field, the rule and the spec's code
 * (spec 7.3), and nothing changes. Both reach the replayed book after the order-entry
 * latency, in the order they were sent. `ctx.orders` is the strategy's own
 * view of its open orders (what the responses told it so far), and
 * `ctx.position` its position as the fills it has received add up.
 *
 * Objects handed to callbacks (trades, fills, order updates, book views)
 * may be reused by the replay after the callback returns: copy what must
 * be kept. Strategies must be deterministic (agents/ rules): randomness
 * only from `ctx.rng`.
 */
import type { Rng } from "../core/rng.ts";
import type { Micros } from "../core/time.ts";
import type { ReplayStrategyRef } from "../sim/scenario.ts";

export type Side = "B" | "A";

export interface MarketInfo {
  readonly symbol: string;
  readonly tickSize: string;
  readonly qtyStepSize: string;
  /** The smallest order in lots (minOrderQty; 1 when the market's definition is not known). */
  readonly minOrderLots: number;
}

/** The strategy's view of a replayed book (as of the last depth frame it received). */
export interface BookView {
  readonly symbol: string;
  /** Best prices in ticks, NaN when the side is empty. */
  readonly bestBidTicks: number;
  readonly bestAskTicks: number;
  readonly midTicks: number;
  qtyAt(side: Side, priceTicks: number): number;
  /** The best `count` levels of a side as [priceTicks, qtyLots], best first. */
  levels(side: Side, count: number): [number, number][];
}

export interface TradeView {
  readonly symbol: string;
  /** Taker side. */
  readonly side: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  /** The execution's match time (exchange ms). */
  readonly matchMs: number;
}

export interface OrderRequest {
  readonly symbol: string;
  readonly side: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  /** Default GTC. */
  readonly timeInForce?: "GTC" | "IOC";
  /** GTC only (with IOC: INPUT_VALIDATION_ERROR); rejected when it would cross on arrival. */
  readonly postOnly?: boolean;
}

export type LocalOrderStatus = "pendingNew" | "open" | "pendingCancel";

/** An own order as the strategy knows it. */
export interface LocalOrder {
  readonly id: number;
  readonly symbol: string;
  readonly side: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly leavesLots: number;
  readonly status: LocalOrderStatus;
  readonly timeInForce: "GTC" | "IOC";
}

export interface FillView {
  readonly orderId: number;
  readonly symbol: string;
  readonly side: Side;
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly leavesLots: number;
  readonly maker: boolean;
  /** Exchange time of the fill (µs). */
  readonly atMicros: Micros;
}

export type OrderUpdateType = "accepted" | "rejected" | "cancelled" | "cancelRejected";

export interface OrderUpdate {
  readonly orderId: number;
  readonly symbol: string;
  readonly type: OrderUpdateType;
  /** Why: "postOnly would cross", "IOC remainder", "self-trade prevention", "user cancel", "already filled", "already closed". */
  readonly reason: string;
  readonly leavesLots: number;
}

export interface ReplayContext {
  /** The strategy's clock (µs). */
  readonly now: Micros;
  readonly markets: readonly MarketInfo[];
  /** A seeded random stream of the strategy (`strategy:<name>`). */
  readonly rng: Rng;
  book(symbol: string): BookView;
  /** Sends an order; returns its id (ids count from 1 in submission order). */
  submit(request: OrderRequest): number;
  /** Sends a cancel of an own order (false when the strategy knows no open order of that id). */
  cancel(orderId: number): boolean;
  /** The strategy's open orders (pending ones included), in submission order. */
  orders(symbol?: string): readonly LocalOrder[];
  /** Position in lots as the received fills add up (signed: long > 0). */
  position(symbol: string): number;
  /** Calls onTimer(tag) at `atMicros` (not before now); returns the timer's id. */
  setTimer(atMicros: Micros, tag: string): number;
  clearTimer(timerId: number): void;
}

export interface ReplayStrategyDefinition<P, S> {
  readonly name: string;
  readonly defaults: P;
  /** Why `params` (the scenario's over the defaults) cannot run, as `<field> "<value>" <rule>`, or null (see above). */
  checkParams?(params: P): string | null;
  init(params: P, ctx: ReplayContext): S;
  onStart?(ctx: ReplayContext, state: S): void;
  onDepth?(ctx: ReplayContext, state: S, book: BookView): void;
  onTrade?(ctx: ReplayContext, state: S, trade: TradeView): void;
  onOrder?(ctx: ReplayContext, state: S, update: OrderUpdate): void;
  onFill?(ctx: ReplayContext, state: S, fill: FillView): void;
  onTimer?(ctx: ReplayContext, state: S, tag: string): void;
  onEnd?(ctx: ReplayContext, state: S): void;
}

export interface ReplayStrategy<P = unknown, S = unknown> extends ReplayStrategyDefinition<P, S>, ReplayStrategyRef {
  readonly kind: "replay-strategy";
}

export class ReplayStrategyError extends Error {
  override readonly name = "ReplayStrategyError";
}

/** Declares a replay strategy. */
export function defineReplayStrategy<P, S>(definition: ReplayStrategyDefinition<P, S>): ReplayStrategy<P, S> {
  if (typeof definition.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(definition.name)) {
    throw new ReplayStrategyError(`replay strategy name "${definition.name}" must be letters, digits and _.:-`);
  }
  if (definition.checkParams !== undefined && typeof definition.checkParams !== "function") {
    throw new ReplayStrategyError(`replay strategy "${definition.name}" checkParams must be a function (params) => problem or null`);
  }
  return Object.freeze({ ...definition, kind: "replay-strategy" as const });
}

/** The strategy of a scenario's reference (checks that it is one). */
export function asReplayStrategy(ref: ReplayStrategyRef): ReplayStrategy {
  const strategy = ref as Partial<ReplayStrategy>;
  if (strategy.kind !== "replay-strategy" || typeof strategy.init !== "function") {
    throw new ReplayStrategyError(`marketData.strategy "${String(ref?.name)}" must be made by defineReplayStrategy`);
  }
  return strategy as ReplayStrategy;
}
