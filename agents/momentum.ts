/**
 * Momentum trader with protective stops.
 *
 * Signal: the oracle price of the market's asset, sampled every
 * `sampleSeconds`; the fast moving average (`fastSamples`) against the slow
 * one (`slowSamples`). When flat and the fast average is more than
 * `entryThresholdBps` above (below) the slow one, it buys (sells) about
 * `notional` USD with an IOC `crossBps` through the oracle. The entry's and
 * the exits' cross is capped at 900 bps, inside the service's perp IOC price
 * band (10 % of the mark, spec 7.3; lib/ioc-band.ts): a larger crossBps is
 * sent at the cap rather than refused.
 *
 * Protection: once the position shows on the positions channel (after
 * settlement), it arms a STOP_LOSS `stopLossBps` and a TAKE_PROFIT
 * `takeProfitBps` from the average entry price (spec 4.2.1 triggers: no
 * qty, they cover the whole position; the exchange pairs them as OCO and
 * fires them on the mark price). Each stop's child is an IOC whose limit is
 * `stopSlippageBps` beyond its trigger (within the service's trigger band).
 * A position still open after `maxHoldSeconds`, or left without a live stop
 * (a fired stop's IOC child that the book could not fill completely), is
 * closed with a reduce-only IOC; closing makes the exchange cancel the
 * remaining stops (POSITION_CLOSED). After a close it waits
 * `cooldownSeconds` before the next entry.
 *
 * Settlement: an entry that has not shown as a position 5 s after its fill
 * is checked against the wallet's busts, and given up only when busted
 * whole (a stalled chain settles it later: entering again would double
 * it). A position that shows while it is flat is held and protected the
 * same way.
 *
 * Lost answers: an entry whose answer never came (TransportFailedError
 * after the client's timeout, or an unreadable answer: the outcome is
 * unknown) may have filled, and on a stalled chain its position shows only
 * later. So the trader does not go flat on it: it stays entering (no new
 * entry) and reads the entry's fate from the exchange, its orderHistory
 * rows since the entry was sent (lib/history.ts; IOC takers are there,
 * though not on orderChanges). Filled, the entry is awaited like an
 * answered one (settled, or busted whole, as above); unfilled, the trader
 * is flat. Not there, the request may still arrive while its signature is
 * valid (an IOC is signed for 60 s): the trader reads again every 5 s, and
 * is flat only once a read after that deadline does not show it. So a lost
 * answer never leads to a second entry on top of a first that filled.
 * Each read's outcome is used only while that lost entry is still the one
 * being reconciled: its position may show, close, and a new entry be sent
 * while a read is on its way or its retry timer pending, and a stale chain
 * taking the old entry's row for the new entry's fate would wait on a
 * position that never shows (the old one settled), freezing the trader.
 *
 * Counts: entries, entryUnfilled, entryBusted, entryRecovered (a lost
 * entry found filled in the history), entryLostAbsent (a lost entry not in
 * the history after its deadline: given up), stopsArmed, stopLossFired,
 * takeProfitFired, ocoCancelled, stopsPositionClosed, timeExits,
 * remainderExits, closed, error:<code>.
 */
import type { TolerantOrder } from "../src/client/decode.ts";
import { shortDeadline } from "../src/client/deadlines.ts";
import { InvalidResponseError, TransportFailedError } from "../src/client/errors.ts";
import { MICROS_PER_SECOND } from "../src/core/time.ts";
import { defineAgent, type AgentContext, type AgentParamsContext } from "../src/sim/agent.ts";
import type { Order } from "../src/spec/order.ts";
import { bustedQty } from "./lib/busts.ts";
import { countError } from "./lib/errors.ts";
import { gridOf, MarketGrid } from "./lib/grid.ts";
import { findInHistory } from "./lib/history.ts";
import { iocLimitPx } from "./lib/ioc-band.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { OrderTracker } from "./lib/orders.ts";
import { bps, delaySeconds, greaterThan, marketSymbol, NOTIONAL_MAX, number, type ParamRules, paramsProblem, period, positive, positiveBps, refuseBadParams, type RelationRule, type ValueRule } from "./lib/params.ts";
import { PositionTracker } from "./lib/positions.ts";

export interface MomentumParams {
  /** The perp market traded. Default "ETHRUSDPERP". */
  readonly symbol: string;
  /** Seconds between oracle samples. Default 1. */
  readonly sampleSeconds: number;
  /** Samples in the fast moving average. Default 20. */
  readonly fastSamples: number;
  /** Samples in the slow moving average. Default 120. */
  readonly slowSamples: number;
  /** Fast-over-slow difference that opens a position, bps. Default 4. */
  readonly entryThresholdBps: number;
  /** Position size in USD at entry. Default 6000. */
  readonly notional: number;
  /** How far through the oracle the entry and exit IOCs are priced, bps; at most 900 is used (the IOC band less room for the mark, lib/ioc-band.ts). Default 100. */
  readonly crossBps: number;
  /** Stop-loss trigger distance from the entry price, bps. Default 35. */
  readonly stopLossBps: number;
  /** Take-profit trigger distance from the entry price, bps. Default 50. */
  readonly takeProfitBps: number;
  /** Limit of a fired stop's IOC child beyond its trigger, bps (at most the trigger band, 500). Default 100. */
  readonly stopSlippageBps: number;
  /** Seconds a protected position may stay open before it is closed at market. Default 300. */
  readonly maxHoldSeconds: number;
  /** Seconds after a close before the next entry. Default 30. */
  readonly cooldownSeconds: number;
}

export const MOMENTUM_DEFAULTS: MomentumParams = {
  symbol: "ETHRUSDPERP",
  sampleSeconds: 1,
  fastSamples: 20,
  slowSamples: 120,
  entryThresholdBps: 4,
  notional: 6_000,
  crossBps: 100,
  stopLossBps: 35,
  takeProfitBps: 50,
  stopSlippageBps: 100,
  maxHoldSeconds: 300,
  cooldownSeconds: 30,
};

/**
 * The most samples in a moving average: 1,000,000. Each average keeps one
 * number per sample (8 MB at this count), made when the agent starts; a
 * million samples at the default 1 s is 11.6 days of prices, far longer than
 * a momentum signal averages over. A huge count fails to allocate (or
 * exhausts memory) during the run.
 */
export const MOMENTUM_SAMPLES_MAX = 1_000_000;

const SAMPLES = number({ min: 1, max: MOMENTUM_SAMPLES_MAX, integer: true });

/**
 * The trigger band: the service refuses a stop whose limit is more than
 * 500 bps (5 %) from its trigger price (TRIGGER_LIMIT_OUTSIDE_BAND_ERROR), so
 * a wider stopSlippageBps would leave every position without stops.
 */
export const MOMENTUM_STOP_SLIPPAGE_BPS_MAX = 500;

/** `rule`, then at most `max` (`why` says why): `rule` states its own range for what it refuses. */
const atMost =
  (rule: ValueRule, max: number, why: string): ValueRule =>
  (value, context) =>
    rule(value, context) ?? ((value as number) > max ? `must be at most ${max} (${why})` : null);

const RULES: ParamRules<MomentumParams> = {
  symbol: marketSymbol("perp", "stops are perp only"),
  sampleSeconds: period,
  fastSamples: SAMPLES,
  slowSamples: SAMPLES,
  entryThresholdBps: bps,
  notional: atMost(positive, NOTIONAL_MAX, "the largest USD amount an agent's parameter may name"),
  crossBps: bps,
  stopLossBps: positiveBps,
  takeProfitBps: positiveBps,
  stopSlippageBps: atMost(bps, MOMENTUM_STOP_SLIPPAGE_BPS_MAX, "a fired stop's limit must lie within the trigger band, 5 % of its trigger"),
  maxHoldSeconds: delaySeconds,
  cooldownSeconds: delaySeconds,
};

const RELATIONS: readonly RelationRule<MomentumParams>[] = [
  greaterThan("slowSamples", "fastSamples"),
];

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: MomentumParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES, RELATIONS);

/** How long an entry fill may take to show as a position (settlement) before its busts are read (and again after each read). */
const POSITION_WAIT_MICROS = 5 * MICROS_PER_SECOND;
const ARM_ATTEMPTS_MAX = 3;
/** How long a position may be left without stops before its remainder is closed. */
const REMAINDER_GRACE_MICROS = 2 * MICROS_PER_SECOND;

type State = "flat" | "entering" | "awaitingPosition" | "holding";

/** An entry that filled and has not shown as a position yet: its order, its filled lots, and when it was sent (ms). */
interface PendingEntry {
  readonly orderId: string;
  readonly lots: number;
  readonly sentMs: number;
}

/** An entry whose answer was lost: what was sent, when (ms), and the latest deadline it can have been signed with (Unix s). */
interface LostEntry {
  readonly isBuy: boolean;
  readonly limitPx: string;
  readonly qty: string;
  readonly sentMs: number;
  readonly deadline: number;
}

/** A simple moving average over the last `size` values (a ring). */
class MovingAverage {
  private readonly values: number[];
  private next = 0;
  private filled = 0;
  private sum = 0;

  constructor(private readonly size: number) {
    this.values = new Array<number>(size).fill(0);
  }

  push(value: number): void {
    this.sum += value - this.values[this.next]!;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.size;
    if (this.filled < this.size) this.filled += 1;
  }

  get ready(): boolean {
    return this.filled === this.size;
  }

  get value(): number {
    return this.sum / this.filled;
  }
}

class Momentum {
  private state: State = "flat";
  private entry: PendingEntry | undefined;
  /** The lost entry being reconciled; a reconcile chain of any other is stale and stops (see the header). */
  private lost: LostEntry | undefined;
  private cooldownUntil = 0;
  private holdUntil = 0;
  /** Live stops of the position (armed, or fired and not yet done), by orderId. */
  private readonly stops = new Map<string, "STOP_LOSS" | "TAKE_PROFIT">();
  private readonly fired = new Set<string>();
  private arming = false;
  private stopsGoneAtMicros = 0;
  private exiting = false;
  private readonly fast: MovingAverage;
  private readonly slow: MovingAverage;

  constructor(
    private readonly ctx: AgentContext<MomentumParams>,
    private readonly grid: MarketGrid,
    private readonly oracle: OracleTracker,
    private readonly positions: PositionTracker,
    orders: OrderTracker,
  ) {
    this.fast = new MovingAverage(ctx.params.fastSamples);
    this.slow = new MovingAverage(ctx.params.slowSamples);
    positions.onChange((change) => (change.symbol === grid.symbol ? this.onPosition(change.after.qty) : undefined));
    orders.onUpdate((row) => this.onOrder(row));
  }

  sample(): Promise<void> | undefined {
    const { ctx } = this;
    ctx.after(ctx.params.sampleSeconds * MICROS_PER_SECOND, () => this.sample());
    const price = this.oracle.price(this.grid.asset);
    if (price === undefined) return undefined;
    this.fast.push(price);
    this.slow.push(price);
    if (this.state === "holding") return this.manage(price);
    if (this.state !== "flat" || ctx.now() < this.cooldownUntil || !this.slow.ready) return undefined;
    const signalBps = ((this.fast.value - this.slow.value) / this.slow.value) * 10_000;
    if (Math.abs(signalBps) < ctx.params.entryThresholdBps) return undefined;
    return this.enter(signalBps > 0, price);
  }

  private async enter(isBuy: boolean, price: number): Promise<void> {
    const { ctx, grid } = this;
    this.state = "entering";
    ctx.count("entries");
    const sentMs = ctx.nowMs();
    const limitPx = this.iocLimitPx(price, isBuy);
    const qty = grid.qtyAtLeastMin(ctx.params.notional / price);
    let entry: PendingEntry;
    try {
      const response = await ctx.client.createOrder({ symbol: grid.symbol, isBuy, limitPx, qty, timeInForce: "IOC", reduceOnly: false });
      const filled = Number(response.cumQty ?? "0");
      if (filled === 0) {
        ctx.count("entryUnfilled");
        this.toFlat();
        return;
      }
      entry = { orderId: response.orderId, lots: Math.round(filled / grid.step), sentMs };
    } catch (error) {
      countError(ctx, error);
      // A lost answer (TransportFailedError, 10 s on) may come after the entry filled and showed as a position: then it is held.
      if (this.state !== "entering") return;
      if (error instanceof TransportFailedError || error instanceof InvalidResponseError) {
        // The SDK signs each attempt for 60 s from its own time: every attempt was made by now.
        const lost: LostEntry = { isBuy, limitPx, qty, sentMs, deadline: shortDeadline(ctx.now()) };
        this.lost = lost;
        return this.reconcile(lost);
      }
      this.toFlat();
      return;
    }
    if (this.state !== "entering") return; // the position showed before the response
    this.state = "awaitingPosition";
    this.entry = entry;
    this.awaitPosition(entry);
  }

  /**
   * Finds out what became of an entry whose answer was lost, from its
   * orderHistory rows (see the header), while the trader stays "entering".
   * The entry is the one non-reduce-only LIMIT the trader sent on its
   * market since `lost.sentMs` at that side, price and size: it sends one
   * entry at a time, and its exits are reduce-only.
   */
  private async reconcile(lost: LostEntry): Promise<void> {
    const { ctx, grid } = this;
    // Still this entry's chain: not given up, recovered or held since (a later entry would be a different LostEntry).
    const current = () => this.lost === lost && this.state === "entering";
    if (!current()) return;
    // A read that starts after the deadline sees every row the request can ever make.
    const final = ctx.now() > lost.deadline * MICROS_PER_SECOND;
    const side = lost.isBuy ? "B" : "A";
    let row: TolerantOrder | undefined;
    try {
      row = await findInHistory(
        ctx,
        lost.sentMs,
        (order) =>
          order.symbol === grid.symbol &&
          order.orderType === "LIMIT" &&
          order.side === side &&
          order.reduceOnly !== true &&
          order.createdAt >= Math.floor(lost.sentMs) &&
          Number(order.limitPx) === Number(lost.limitPx) &&
          Number(order.qty) === Number(lost.qty),
      );
    } catch (error) {
      countError(ctx, error);
      if (current()) ctx.after(POSITION_WAIT_MICROS, () => this.reconcile(lost));
      return;
    }
    if (!current()) return; // its position showed meanwhile (it is held), or a later entry is being reconciled
    if (row === undefined) {
      if (final) {
        ctx.count("entryLostAbsent");
        this.toFlat();
      } else {
        ctx.after(POSITION_WAIT_MICROS, () => this.reconcile(lost));
      }
      return;
    }
    const filled = Number(row.cumQty ?? "0");
    if (filled === 0) {
      ctx.count("entryUnfilled");
      this.toFlat();
      return;
    }
    ctx.count("entryRecovered");
    const entry: PendingEntry = { orderId: row.orderId, lots: Math.round(filled / grid.step), sentMs: lost.sentMs };
    this.lost = undefined;
    this.state = "awaitingPosition";
    this.entry = entry;
    this.awaitPosition(entry);
  }

  /**
   * Waits for `entry` to show as a position. One that has not shown after
   * POSITION_WAIT_MICROS was busted, or the chain is slow: the order's busts
   * tell which (lib/busts.ts). Busted whole, it is given up; else it is still
   * on its way (a stalled chain settles it later), and it waits again.
   */
  private awaitPosition(entry: PendingEntry): void {
    const { ctx, grid } = this;
    const waiting = () => this.entry === entry && this.state === "awaitingPosition" && this.positions.qty(grid.symbol) === 0;
    ctx.after(POSITION_WAIT_MICROS, async () => {
      if (!waiting()) return;
      let bustedLots = 0;
      try {
        bustedLots = Math.round((await bustedQty(ctx, entry.orderId, entry.sentMs)) / grid.step);
      } catch (error) {
        countError(ctx, error);
      }
      if (!waiting()) return;
      if (bustedLots < entry.lots) {
        this.awaitPosition(entry);
        return;
      }
      ctx.count("entryBusted");
      this.toFlat();
    });
  }

  private onPosition(qty: number): Promise<void> | undefined {
    if (qty === 0) {
      if (this.state === "holding") {
        this.ctx.count("closed");
        this.toFlat();
      }
      return undefined;
    }
    // A position that shows while flat (an entry whose answer was lost, settling after it was given up) is held and protected too.
    if (this.state === "holding") return undefined;
    this.state = "holding";
    this.lost = undefined;
    this.holdUntil = this.ctx.now() + this.ctx.params.maxHoldSeconds * MICROS_PER_SECOND;
    return this.arm(1);
  }

  /** Arms the stop-loss and the take-profit around the settled entry price. */
  private async arm(attempt: number): Promise<void> {
    const { ctx, grid } = this;
    const position = this.positions.get(grid.symbol);
    if (position.qty === 0 || this.state !== "holding") {
      this.arming = false;
      return;
    }
    this.arming = true;
    const long = position.qty > 0;
    const entry = position.avgEntryPrice;
    const p = ctx.params;
    const wanted = (["STOP_LOSS", "TAKE_PROFIT"] as const).filter((type) => ![...this.stops.values()].includes(type));
    const results = await Promise.all(
      wanted.map(async (orderType) => {
        const awayBps = orderType === "STOP_LOSS" ? -p.stopLossBps : p.takeProfitBps;
        const trigger = MarketGrid.shift(entry, long ? awayBps : -awayBps);
        const triggerTicks = grid.ticks(trigger, "nearest");
        // The child's limit, rounded away from the trigger (a child that fills more), but never beyond the
        // band the service measures from the trigger on the grid: rounding alone put a 500 bps limit past it.
        const bandTicks = Math.floor((triggerTicks * MOMENTUM_STOP_SLIPPAGE_BPS_MAX) / 10_000);
        const limitTicks = grid.ticks(MarketGrid.shift(trigger, long ? -p.stopSlippageBps : p.stopSlippageBps), long ? "down" : "up");
        try {
          const response = await ctx.client.createOrder({
            symbol: grid.symbol,
            isBuy: !long,
            orderType,
            triggerPx: grid.formatTicks(triggerTicks),
            limitPx: grid.formatTicks(long ? Math.max(limitTicks, triggerTicks - bandTicks) : Math.min(limitTicks, triggerTicks + bandTicks)),
            timeInForce: "IOC",
          });
          if (response.status === "OPEN") this.stops.set(response.orderId, orderType);
          ctx.count("stopsArmed");
          return true;
        } catch (error) {
          countError(ctx, error);
          return false;
        }
      }),
    );
    if (results.every((ok) => ok) || attempt >= ARM_ATTEMPTS_MAX) {
      this.arming = false;
      return;
    }
    ctx.after(MICROS_PER_SECOND, () => this.arm(attempt + 1));
  }

  private onOrder(row: Order): void {
    const type = this.stops.get(row.orderId);
    if (type === undefined) return;
    if (row.triggered === true && !this.fired.has(row.orderId)) {
      this.fired.add(row.orderId);
      this.ctx.count(type === "STOP_LOSS" ? "stopLossFired" : "takeProfitFired");
    }
    if (row.status === "OPEN") return;
    if (row.cancelReason === "OCO_SIBLING_FIRED") this.ctx.count("ocoCancelled");
    if (row.cancelReason === "POSITION_CLOSED") this.ctx.count("stopsPositionClosed");
    this.stops.delete(row.orderId);
    this.fired.delete(row.orderId);
    if (this.stops.size === 0) this.stopsGoneAtMicros = this.ctx.now();
  }

  /**
   * A held position is closed at market when it is held too long, or when no
   * stop protects it any more (a fired stop's IOC child that the book could
   * not fill completely leaves a remainder).
   */
  private manage(price: number): Promise<void> | undefined {
    const qty = this.positions.qty(this.grid.symbol);
    if (qty === 0 || this.exiting || this.arming) return undefined;
    if (this.ctx.now() >= this.holdUntil) {
      this.ctx.count("timeExits");
      return this.exit(qty, price);
    }
    // A fired child's fills settle with the next block: give the position time to show them.
    if (this.stops.size === 0 && this.ctx.now() - this.stopsGoneAtMicros >= REMAINDER_GRACE_MICROS) {
      this.ctx.count("remainderExits");
      return this.exit(qty, price);
    }
    return undefined;
  }

  private async exit(qty: number, price: number): Promise<void> {
    const { ctx, grid } = this;
    this.exiting = true;
    const isBuy = qty < 0;
    try {
      await ctx.client.createOrder({
        symbol: grid.symbol,
        isBuy,
        limitPx: this.iocLimitPx(price, isBuy),
        qty: grid.qtyAtLeastMin(Math.abs(qty)),
        timeInForce: "IOC",
        reduceOnly: true,
      });
    } catch (error) {
      countError(ctx, error);
    } finally {
      this.exiting = false;
    }
  }

  /** The limit of an entry or exit IOC: `crossBps` through `price`, within the IOC band (lib/ioc-band.ts). */
  private iocLimitPx(price: number, isBuy: boolean): string {
    return iocLimitPx(this.grid, price, isBuy, this.ctx.params.crossBps);
  }

  private toFlat(): void {
    this.state = "flat";
    this.lost = undefined;
    this.cooldownUntil = this.ctx.now() + this.ctx.params.cooldownSeconds * MICROS_PER_SECOND;
  }
}

export const momentum = defineAgent<MomentumParams>({
  kind: "momentum",
  description: "moving-average momentum on the oracle, each position protected by a stop-loss and a take-profit",
  defaults: MOMENTUM_DEFAULTS,
  checkParams,
  async start(ctx) {
    const p = ctx.params;
    refuseBadParams("momentum", checkParams(p, ctx));
    const grid = gridOf(ctx.markets, p.symbol);
    const oracle = await OracleTracker.start(ctx);
    const positions = await PositionTracker.start(ctx);
    const orders = await OrderTracker.start(ctx);
    const trader = new Momentum(ctx, grid, oracle, positions, orders);
    await oracle.ready(grid.asset);
    trader.sample();
  },
});

export default momentum;
