/**
 * Random engine command streams for the property tests (properties.test.ts,
 * transitions.test.ts): creates of every kind over two markets and six
 * accounts, cancels and modifies of earlier orders (`pick` chooses one),
 * mass cancels, dead-man switches, time steps, mark prices and market
 * states. Each test interprets the commands against its own Run.
 */
import fc from "fast-check";
import { Engine } from "../../src/engine/engine.ts";
import type { OrderUpdate } from "../../src/engine/events.ts";
import type { Order } from "../../src/engine/order.ts";
import type { CreateOrderCommand, Fill, ModifyOrderCommand, OrderType, TimeInForce } from "../../src/engine/types.ts";
import { PERP, SEC, SPOT } from "./helpers.ts";

export const ACCOUNTS = 6;
/** Several accounts share an owner (the signing wallet), so open-order figures add up across accounts. */
export const ownerOf = (accountId: number): number => 100 + (accountId % 4);

export type Command =
  | { kind: "create"; accountId: number; marketId: number; isBuy: boolean; orderType: OrderType; tif: TimeInForce; priceTicks: number; qtyLots: number; postOnly: boolean; reduceOnly: boolean; clientOrderId: number; expiresInSec: number }
  | { kind: "cancel"; pick: number; byClientId: boolean }
  | { kind: "modify"; pick: number; priceDelta: number; qtyDelta: number; postOnly: boolean }
  | { kind: "cancelAll"; accountId: number; marketId: number }
  | { kind: "cancelAllAfter"; accountId: number; timeoutMs: number }
  | { kind: "advance"; dtMicros: number }
  | { kind: "mark"; priceTicks: number }
  | { kind: "state"; halted: boolean; reopening: boolean; settlementPaused: boolean };

/**
 * The command arbitrary. `abnormalStateOdds`: a state command sets each of
 * halted, reopening and settlementPaused with probability 1 in this many
 * (an abnormal state refuses most orders until the next state command, so
 * a test that wants many transitions makes it rarer).
 */
export function commandArbitrary(abnormalStateOdds: number): fc.Arbitrary<Command> {
  const account = fc.integer({ min: 1, max: ACCOUNTS });
  const rarely = fc.constantFrom(...Array.from({ length: abnormalStateOdds - 1 }, () => false), true);
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record({
        kind: fc.constant("create" as const),
        accountId: account,
        marketId: fc.constantFrom(1, 1, 1, 2),
        isBuy: fc.boolean(),
        orderType: fc.constantFrom<OrderType>("LIMIT", "LIMIT", "LIMIT", "LIMIT", "LIMIT", "STOP_LOSS", "TAKE_PROFIT"),
        tif: fc.constantFrom<TimeInForce>("GTC", "GTC", "IOC", "GTT"),
        priceTicks: fc.integer({ min: 95, max: 105 }),
        qtyLots: fc.integer({ min: 1, max: 8 }),
        postOnly: fc.constantFrom(false, false, false, true),
        reduceOnly: fc.constantFrom(false, false, true),
        clientOrderId: fc.integer({ min: 0, max: 4 }),
        expiresInSec: fc.integer({ min: 3, max: 40 }),
      }),
    },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(), byClientId: fc.boolean() }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("modify" as const),
        pick: fc.nat(),
        priceDelta: fc.integer({ min: -4, max: 4 }),
        qtyDelta: fc.integer({ min: -3, max: 3 }),
        postOnly: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), accountId: account, marketId: fc.constantFrom(0, 1, 2) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAllAfter" as const), accountId: account, timeoutMs: fc.constantFrom(0, 5_000, 20_000) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), dtMicros: fc.integer({ min: 0, max: 15 * SEC }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("mark" as const), priceTicks: fc.integer({ min: 93, max: 107 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("state" as const), halted: rarely, reopening: rarely, settlementPaused: rarely }) },
  );
}

/**
 * The engine command of a create (a stop gets a trigger and a limit two
 * ticks through it and no qty; spot quantities are raised over its minimum;
 * flags only where they are allowed, so most creates are valid).
 */
export function createCommandOf(cmd: Extract<Command, { kind: "create" }>, nowMicros: number): CreateOrderCommand {
  const isTrigger = cmd.orderType !== "LIMIT";
  const spot = cmd.marketId === 2;
  return {
    atMicros: nowMicros,
    marketId: cmd.marketId,
    exchangeId: 1,
    accountId: cmd.accountId,
    ownerId: ownerOf(cmd.accountId),
    isBuy: cmd.isBuy,
    orderType: cmd.orderType,
    timeInForce: cmd.tif,
    priceTicks: isTrigger ? cmd.priceTicks + (cmd.isBuy ? 2 : -2) : cmd.priceTicks,
    ...(isTrigger ? { triggerTicks: cmd.priceTicks } : { qtyLots: spot ? cmd.qtyLots + 2 : cmd.qtyLots }),
    ...(cmd.postOnly && cmd.tif !== "IOC" && !isTrigger ? { postOnly: true } : {}),
    ...(cmd.reduceOnly && cmd.tif === "IOC" && !isTrigger && !spot ? { reduceOnly: true } : {}),
    ...(cmd.clientOrderId > 0 ? { clientOrderId: String(cmd.clientOrderId) } : {}),
    ...(cmd.tif === "GTT" ? { expiresAfterSec: Math.floor(nowMicros / SEC) + cmd.expiresInSec } : {}),
  };
}

/** The engine command of a modify of the live `order`: its immutable fields restated, price and qty moved. */
export function modifyCommandOf(cmd: Extract<Command, { kind: "modify" }>, order: Order, nowMicros: number): ModifyOrderCommand & { orderId: string } {
  const isTrigger = order.orderType !== "LIMIT";
  return {
    atMicros: nowMicros,
    marketId: order.market.marketId,
    exchangeId: order.exchangeId,
    accountId: order.accountId,
    ownerId: order.ownerId,
    orderId: order.orderId,
    isBuy: order.isBuy,
    orderType: order.orderType,
    timeInForce: order.timeInForce,
    priceTicks: Math.max(1, order.priceTicks + cmd.priceDelta),
    ...(isTrigger ? { triggerTicks: Math.max(1, order.triggerTicks + cmd.priceDelta) } : { qtyLots: Math.max(1, order.qtyLots + cmd.qtyDelta) }),
    ...(order.clientOrderId !== null ? { clientOrderId: order.clientOrderId } : {}),
    ...(cmd.postOnly && !isTrigger ? { postOnly: true } : {}),
    ...(order.expiresAfterSec > 0 ? { expiresAfterSec: order.expiresAfterSec } : {}),
  };
}

/**
 * An engine (perp market 1, spot market 2) with the risk layer's stand-in:
 * accounts 1-3 start long 12 lots of the perp and 4-6 short (so stops and
 * reduce-only orders have something to protect), positions follow the perp
 * fills as they happen, and the risk hook's verdict is deterministic (every
 * 7th proposal cancels the maker, every 11th otherwise rejects the taker).
 * `positions` is keyed `${accountId}:${marketId}`.
 */
export function engineWithStandInRisk(sink: { orderUpdate(update: OrderUpdate): void; fill(fill: Fill): void }): { engine: Engine; positions: Map<string, number> } {
  const positions = new Map<string, number>();
  for (let accountId = 1; accountId <= ACCOUNTS; accountId++) positions.set(`${accountId}:1`, accountId <= 3 ? 12 : -12);
  const move = (accountId: number, lots: number): void => {
    const key = `${accountId}:1`;
    positions.set(key, (positions.get(key) ?? 0) + lots);
  };
  let proposals = 0;
  const engine = new Engine({
    markets: [PERP, SPOT],
    sink: {
      orderUpdate: (update) => sink.orderUpdate(update),
      fill: (fill) => {
        sink.fill(fill);
        if (fill.marketId !== 1) return;
        const signed = fill.takerSide === "B" ? fill.qtyLots : -fill.qtyLots;
        move(fill.takerAccountId, signed);
        move(fill.makerAccountId, -signed);
      },
    },
    hooks: {
      positionLots: (accountId, marketId) => positions.get(`${accountId}:${marketId}`) ?? 0,
      checkFill: () => {
        proposals += 1;
        return proposals % 7 === 3 ? "cancel-maker" : proposals % 11 === 5 ? "reject-taker" : "ok";
      },
    },
  });
  return { engine, positions };
}
