/**
 * Market maker: two-sided quotes around the oracle price, skewed by
 * inventory, refreshed in place with modifyOrder, behind a cancelAllAfter
 * dead-man switch.
 *
 * Every `refreshSeconds`:
 * 1. the dead-man switch is renewed (cancelAllAfter, `deadManMs`): if the
 *    maker stops refreshing (crash, network, or `stopRefreshingAfterSeconds`),
 *    the service cancels its quotes by itself (cancel reason CANCEL_ALL_AFTER);
 * 2. each of the `levels` x 2 quote slots gets its target: level i of a side
 *    sits `spreadBps + i * levelSpacingBps` from the fair price, where the fair
 *    price is the oracle price shifted against the inventory by up to
 *    `skewBps` (a bid rounds down to the tick grid, an ask up, and an ask is
 *    at least a tick above its level's bid), and the side that would grow
 *    the inventory shrinks with it;
 * 3. a slot with a live order is modified in place when its resting size
 *    differs from its target or its price moved by `requoteBps` or more
 *    (modifyOrder keeps the orderId; other slots send nothing),
 *    an empty slot (first refresh, or its order filled or was cancelled) is
 *    filled with a new post-only GTC order. When a create's answer is lost
 *    (a transport failure: the order may rest all the same), the order the
 *    orderChanges stream shows resting at that price and size is taken over.
 *
 * Partial fills: the resting size of a quote is its qty less its cumQty as
 * the orderChanges stream shows them, so a quote that was partly filled is
 * topped back up to its target size at the next refresh even when its
 * target did not move (a modify to cumQty + target: the order keeps its
 * orderId, and a size increase loses its queue priority, as it would for
 * any maker refilling a level). Until the stream shows a fill, the quote
 * counts as unfilled; a fill it shows late is topped up one refresh later.
 *
 * The quote's price and size are read from its orderChanges row, not from
 * what was last sent, whenever the stream has a row newer than the last
 * acknowledged request: a modify whose answer was lost (a transport
 * failure) may have applied all the same, and only the stream says so.
 * Remembering the sent values instead, the maker would re-send that modify
 * at every refresh and the exchange refuse it with EMPTY_MODIFY_ERROR, for
 * the rest of the run. What was sent serves only until the stream shows the
 * request (a row predating it would undo an acknowledged change); an
 * EMPTY_MODIFY_ERROR, which says the order already is what was sent, is
 * adopted as such.
 *
 * Inventory: the perp position (positions channel), or for a spot market the
 * base asset held beyond the starting balance (accountBalances channel).
 *
 * Counts: quotesCreated, modifies, unchanged, pulled (a side's quote
 * cancelled at full inventory), deadManRenewals, fills,
 * deadManCancels (quotes the switch cancelled), refreshStopped, and
 * error:<code> for every rejection (POST_ONLY_WOULD_CROSS_ERROR when the
 * book moved through a quote, ORDER_NOT_FOUND_ERROR when a quote filled
 * while it was being modified).
 */
import { TransportFailedError } from "../src/client/errors.ts";
import { defineAgent, type AgentContext, type AgentParamsContext } from "../src/sim/agent.ts";
import { MICROS_PER_SECOND } from "../src/core/time.ts";
import { CANCEL_ALL_AFTER_TIMEOUT_MS_MAX, CANCEL_ALL_AFTER_TIMEOUT_MS_MIN, DEPTH_REST_LIMIT_MAX } from "../src/spec/limits.ts";
import { BalanceTracker } from "./lib/balances.ts";
import { countError, requestErrorCode } from "./lib/errors.ts";
import { gridOf, MarketGrid } from "./lib/grid.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { OrderTracker } from "./lib/orders.ts";
import { bps, delaySeconds, notional, number, orNull, type ParamRules, paramsProblem, period, refuseBadParams, type RelationRule, symbol } from "./lib/params.ts";
import { PositionTracker } from "./lib/positions.ts";

export interface MarketMakerParams {
  /** The market to quote. Default "ETHRUSDPERP". */
  readonly symbol: string;
  /** Quote levels per side. Default 3. */
  readonly levels: number;
  /** Distance of the best quote from the fair price on each side, bps. Default 8. */
  readonly spreadBps: number;
  /** Distance between consecutive levels, bps. Default 6. */
  readonly levelSpacingBps: number;
  /** Size of one level in USD at the first oracle price; the size in base units is then fixed. Default 4000. */
  readonly levelNotional: number;
  /** Inventory (USD at the fair price) at which the quotes are fully skewed and the growing side is pulled. Default 60000. */
  readonly maxInventoryNotional: number;
  /** Shift of the fair price against a full inventory, bps. Default 10. */
  readonly skewBps: number;
  /** Seconds between refreshes. Default 3. */
  readonly refreshSeconds: number;
  /** A live quote is moved only when its target price is at least this far from its price, bps (0 = on any change). Default 0. */
  readonly requoteBps: number;
  /** The cancelAllAfter timeout renewed at every refresh, ms (5000 to 60000). Default 15000. */
  readonly deadManMs: number;
  /** Seconds after its start at which the maker stops refreshing, so its switch fires; null = never. Default null. */
  readonly stopRefreshingAfterSeconds: number | null;
}

export const MARKET_MAKER_DEFAULTS: MarketMakerParams = {
  symbol: "ETHRUSDPERP",
  levels: 3,
  spreadBps: 8,
  levelSpacingBps: 6,
  levelNotional: 4_000,
  maxInventoryNotional: 60_000,
  skewBps: 10,
  refreshSeconds: 3,
  requoteBps: 0,
  deadManMs: 15_000,
  stopRefreshingAfterSeconds: null,
};

/** One quote slot: a side and a level, with the order that fills it. */
interface Slot {
  readonly isBuy: boolean;
  readonly level: number;
  orderId: string | undefined;
  /** What was last sent for the slot and acknowledged: price in ticks, and the order's total qty in lots (its filled part included). */
  priceTicks: number;
  qtyLots: number;
  /** The orderChanges cursor when that request was sent: only a row numbered above it shows the order as changed by it. */
  sentAtCursor: number;
  busy: boolean;
}

interface Target {
  readonly priceTicks: number;
  readonly lots: number;
}

/**
 * The most quote levels per side: 1,000, the deepest a client can read a
 * book (REST depth's largest `limit`, DEPTH_REST_LIMIT_MAX; the depth stream
 * shows 100): quotes deeper than that are seen by no one. Each level is two
 * resting orders, each looked at (and maybe modified) at every refresh, so
 * a huge count would allocate that many slots and send that many orders.
 */
export const MARKET_MAKER_LEVELS_MAX = DEPTH_REST_LIMIT_MAX;

const RULES: ParamRules<MarketMakerParams> = {
  symbol,
  levels: number({ min: 1, max: MARKET_MAKER_LEVELS_MAX, integer: true }),
  spreadBps: bps,
  levelSpacingBps: bps,
  levelNotional: notional,
  // A divisor of the inventory.
  maxInventoryNotional: notional,
  skewBps: bps,
  refreshSeconds: period,
  requoteBps: bps,
  // What cancelAllAfter takes: whole ms within the spec's bounds.
  deadManMs: number({ min: CANCEL_ALL_AFTER_TIMEOUT_MS_MIN, max: CANCEL_ALL_AFTER_TIMEOUT_MS_MAX, integer: true }),
  stopRefreshingAfterSeconds: orNull(delaySeconds),
};

const RELATIONS: readonly RelationRule<MarketMakerParams>[] = [
  // Else the switch fires between two refreshes.
  (p) => (p.deadManMs > p.refreshSeconds * 1_000 ? null : `deadManMs "${p.deadManMs}" must be longer than refreshSeconds "${p.refreshSeconds}" s`),
];

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: MarketMakerParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES, RELATIONS);

class MarketMaker {
  private readonly slots: Slot[] = [];
  private readonly slotByOrder = new Map<string, Slot>();
  private lotsPerLevel = 0;
  private stopped = false;
  private readonly stopAtMicros: number;

  constructor(
    private readonly ctx: AgentContext<MarketMakerParams>,
    private readonly grid: MarketGrid,
    private readonly oracle: OracleTracker,
    private readonly inventory: () => number,
    private readonly orders: OrderTracker,
  ) {
    const p = ctx.params;
    for (let level = 0; level < p.levels; level++) {
      for (const isBuy of [true, false]) this.slots.push({ isBuy, level, orderId: undefined, priceTicks: 0, qtyLots: 0, sentAtCursor: 0, busy: false });
    }
    this.stopAtMicros = p.stopRefreshingAfterSeconds === null ? Infinity : ctx.now() + p.stopRefreshingAfterSeconds * MICROS_PER_SECOND;
    orders.onUpdate((row) => {
      const slot = this.slotByOrder.get(row.orderId);
      if (slot === undefined) return;
      if (row.execQty !== undefined) ctx.count("fills");
      if (row.status === "OPEN") return;
      if (row.cancelReason === "CANCEL_ALL_AFTER") ctx.count("deadManCancels");
      this.release(slot);
    });
  }

  async refresh(): Promise<void> {
    const { ctx } = this;
    if (this.stopped) return;
    if (ctx.now() >= this.stopAtMicros) {
      this.stopped = true;
      ctx.count("refreshStopped");
      return;
    }
    ctx.after(ctx.params.refreshSeconds * MICROS_PER_SECOND, () => this.refresh());
    const fair = this.oracle.price(this.grid.asset);
    if (fair === undefined) return;
    if (this.lotsPerLevel === 0) this.lotsPerLevel = this.grid.lots(ctx.params.levelNotional / fair) || this.grid.minLots;
    const work: Promise<void>[] = [this.renewDeadMan()];
    const targets = this.targets(fair);
    this.slots.forEach((slot, index) => work.push(this.update(slot, targets[index])));
    await Promise.all(work);
  }

  private async renewDeadMan(): Promise<void> {
    try {
      await this.ctx.client.cancelAllAfter({ timeoutMs: this.ctx.params.deadManMs });
      this.ctx.count("deadManRenewals");
    } catch (error) {
      countError(this.ctx, error);
    }
  }

  /** The target of every slot, in slot order; undefined = the slot should be empty. */
  private targets(fair: number): (Target | undefined)[] {
    const p = this.ctx.params;
    const inventory = Math.max(-1, Math.min(1, (this.inventory() * fair) / p.maxInventoryNotional));
    const center = MarketGrid.shift(fair, -inventory * p.skewBps);
    const bidLots = Math.floor(this.lotsPerLevel * (1 - Math.max(0, inventory)));
    const askLots = Math.floor(this.lotsPerLevel * (1 + Math.min(0, inventory)));
    return this.slots.map((slot) => {
      const lots = slot.isBuy ? bidLots : askLots;
      if (lots < this.grid.minLots) return undefined;
      const distanceBps = p.spreadBps + slot.level * p.levelSpacingBps;
      const bidTicks = this.grid.ticks(MarketGrid.shift(center, -distanceBps), "down");
      if (slot.isBuy) return { priceTicks: bidTicks, lots };
      // At least a tick above the level's bid: with spreadBps 0 and a center on the grid both round to it, and the ask would cross the bid.
      return { priceTicks: Math.max(this.grid.ticks(MarketGrid.shift(center, distanceBps), "up"), bidTicks + 1), lots };
    });
  }

  private async update(slot: Slot, target: Target | undefined): Promise<void> {
    if (slot.busy) return;
    slot.busy = true;
    try {
      if (slot.orderId === undefined) {
        if (target !== undefined) await this.place(slot, target);
      } else if (target === undefined) {
        await this.pull(slot, slot.orderId);
      } else if (this.differs(this.resting(slot, slot.orderId), target)) {
        await this.move(slot, slot.orderId, target);
      } else {
        this.ctx.count("unchanged");
      }
    } finally {
      slot.busy = false;
    }
  }

  private differs(resting: Target, target: Target): boolean {
    return target.lots !== resting.lots || this.movedEnough(resting.priceTicks, target.priceTicks);
  }

  private movedEnough(fromTicks: number, toTicks: number): boolean {
    if (fromTicks === toTicks) return false;
    return Math.abs(toTicks - fromTicks) * 10_000 >= this.ctx.params.requoteBps * fromTicks;
  }

  private async place(slot: Slot, target: Target): Promise<void> {
    const { ctx, grid } = this;
    const limitPx = grid.formatTicks(target.priceTicks);
    const qty = grid.formatLots(target.lots);
    const sentAtCursor = this.orders.cursor;
    try {
      const response = await ctx.client.createOrder({ symbol: grid.symbol, isBuy: slot.isBuy, limitPx, qty, timeInForce: "GTC", postOnly: true });
      ctx.count("quotesCreated");
      if (response.status !== "OPEN") return;
      this.own(slot, response.orderId, target, sentAtCursor);
    } catch (error) {
      countError(ctx, error);
      // The answer was lost, not the request: the order may rest all the same (spec 4.3). Take it over if the
      // orderChanges stream shows it, rather than place a second one at the next refresh and leave this one unmanaged.
      if (error instanceof TransportFailedError) {
        const rested = this.orders
          .all()
          .find((order) => order.symbol === grid.symbol && order.isBuy === slot.isBuy && order.orderType === "LIMIT" && Number(order.limitPx) === Number(limitPx) && Number(order.qty) === Number(qty) && !this.slotByOrder.has(order.orderId));
        if (rested !== undefined && slot.orderId === undefined) this.own(slot, rested.orderId, target, sentAtCursor);
      }
    }
  }

  private own(slot: Slot, orderId: string, target: Target, sentAtCursor: number): void {
    slot.orderId = orderId;
    slot.priceTicks = target.priceTicks;
    slot.qtyLots = target.lots;
    slot.sentAtCursor = sentAtCursor;
    this.slotByOrder.set(orderId, slot);
  }

  private async move(slot: Slot, orderId: string, target: Target): Promise<void> {
    const { ctx, grid } = this;
    const filled = this.cumLots(orderId);
    const sentAtCursor = this.orders.cursor;
    try {
      const response = await ctx.client.modifyOrder({
        orderId,
        symbol: grid.symbol,
        isBuy: slot.isBuy,
        limitPx: grid.formatTicks(target.priceTicks),
        qty: grid.formatLots(filled + target.lots),
        timeInForce: "GTC",
        postOnly: true,
      });
      ctx.count("modifies");
      if (slot.orderId === orderId) this.sent(slot, target.priceTicks, filled + target.lots, sentAtCursor);
      if (response.status !== "OPEN" && slot.orderId === orderId) this.release(slot);
    } catch (error) {
      const code = countError(ctx, error);
      // The quote is gone (filled or cancelled while the modify was on its way): place a new one next time.
      if (code === "ORDER_NOT_FOUND_ERROR" && slot.orderId === orderId) this.release(slot);
      // The order already has this price and size (an earlier modify applied though its answer was lost, and the
      // stream has not shown it yet): it is what was sent, so the next refresh does not send it again.
      if (code === "EMPTY_MODIFY_ERROR" && slot.orderId === orderId) this.sent(slot, target.priceTicks, filled + target.lots, sentAtCursor);
    }
  }

  private async pull(slot: Slot, orderId: string): Promise<void> {
    try {
      await this.ctx.client.cancelOrder({ symbol: this.grid.symbol, orderId });
      this.ctx.count("pulled");
      if (slot.orderId === orderId) this.release(slot);
    } catch (error) {
      countError(this.ctx, error);
      // Only an order that is gone (filled or cancelled meanwhile) frees the slot. A refused cancel (order entry
      // disabled, rate limited) leaves the quote resting: the slot keeps it, and the next refresh pulls it again.
      const code = requestErrorCode(error);
      if ((code === "CANCEL_ORDER_OTHER_ERROR" || code === "ORDER_NOT_FOUND_ERROR") && slot.orderId === orderId) this.release(slot);
    }
  }

  private sent(slot: Slot, priceTicks: number, qtyLots: number, sentAtCursor: number): void {
    slot.priceTicks = priceTicks;
    slot.qtyLots = qtyLots;
    slot.sentAtCursor = sentAtCursor;
  }

  /**
   * The slot's order as it rests: its price in ticks and the lots still resting (qty less cumQty). From its
   * orderChanges row when the stream has one newer than the last acknowledged request (it also shows a modify
   * whose answer was lost); else from what that request sent, less the fills the stream shows.
   */
  private resting(slot: Slot, orderId: string): Target {
    const row = this.orders.get(orderId);
    const filled = row === undefined ? 0 : Math.round(row.cumQty / this.grid.step);
    if (row !== undefined && row.qty !== undefined && row.sequenceNumber > slot.sentAtCursor) {
      return { priceTicks: this.grid.ticks(Number(row.limitPx), "nearest"), lots: Math.round(Number(row.qty) / this.grid.step) - filled };
    }
    return { priceTicks: slot.priceTicks, lots: slot.qtyLots - filled };
  }

  /** The filled part of `orderId` in lots, as far as the orderChanges stream has told (0 before its first row). */
  private cumLots(orderId: string): number {
    const live = this.orders.get(orderId);
    return live === undefined ? 0 : Math.round(live.cumQty / this.grid.step);
  }

  private release(slot: Slot): void {
    if (slot.orderId !== undefined) this.slotByOrder.delete(slot.orderId);
    slot.orderId = undefined;
    slot.priceTicks = 0;
    slot.qtyLots = 0;
    slot.sentAtCursor = 0;
  }
}

export const marketMaker = defineAgent<MarketMakerParams>({
  kind: "market-maker",
  description: "inventory-skewed two-sided quotes around the oracle, refreshed with modifyOrder, behind a cancelAllAfter dead-man switch",
  defaults: MARKET_MAKER_DEFAULTS,
  checkParams,
  async start(ctx) {
    refuseBadParams("market-maker", checkParams(ctx.params, ctx));
    const grid = gridOf(ctx.markets, ctx.params.symbol);
    const oracle = await OracleTracker.start(ctx);
    const orders = await OrderTracker.start(ctx);
    let inventory: () => number;
    if (grid.kind === "perp") {
      const positions = await PositionTracker.start(ctx);
      inventory = () => positions.qty(grid.symbol);
    } else {
      const balances = await BalanceTracker.start(ctx);
      const startBase = balances.balance(grid.asset);
      inventory = () => balances.balance(grid.asset) - startBase;
    }
    const maker = new MarketMaker(ctx, grid, oracle, inventory, orders);
    await oracle.ready(grid.asset);
    await maker.refresh();
  },
});

export default marketMaker;
