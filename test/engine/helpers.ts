/**
 * Test fixtures for the engine: two markets, an engine with a recording
 * sink, a stub position table (the risk layer's, in tests), and builders of
 * commands with sensible defaults.
 */
import { Engine, type EngineOptions } from "../../src/engine/engine.ts";
import type { EngineSink, OrderUpdate } from "../../src/engine/events.ts";
import type {
  CreateOrderCommand,
  EngineResult,
  Fill,
  FillProposal,
  FillVerdict,
  MarketSpec,
  ModifyOrderCommand,
  Rejection,
} from "../../src/engine/types.ts";

/** tickSize 0.5, lot 0.001, minOrderQty 0.001 (1 lot). */
export const PERP: MarketSpec = { marketId: 1, symbol: "BTCPERP", kind: "perp", tickSize: "0.5", qtyStepSize: "0.001", minOrderQty: "0.001" };
/** tickSize 0.01, lot 0.1, minOrderQty 0.3 (3 lots). */
export const SPOT: MarketSpec = { marketId: 2, symbol: "ETHRUSD", kind: "spot", tickSize: "0.01", qtyStepSize: "0.1", minOrderQty: "0.3" };

/** A virtual time: 2023-11-14T22:13:20Z, in µs. */
export const T0 = 1_700_000_000_000_000;
export const SEC = 1_000_000;
/** T0 in Unix seconds. */
export const T0_SEC = T0 / SEC;

export interface Recorder {
  readonly updates: OrderUpdate[];
  readonly fills: Fill[];
  readonly depth: { marketId: number; atMicros: number }[];
}

/** Command fields for the builders: `undefined` removes a default (e.g. qty for a stop). */
export type CreateFields = { [K in keyof CreateOrderCommand]?: CreateOrderCommand[K] | undefined };
export type ModifyFields = { [K in keyof ModifyOrderCommand]?: ModifyOrderCommand[K] | undefined };

/** Drops `undefined` members: the engine sees them omitted, as the wire would. */
function defined<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

export interface Harness {
  readonly engine: Engine;
  readonly rec: Recorder;
  /** Signed positions in lots, by `${accountId}:${marketId}`. */
  readonly positions: Map<string, number>;
  setPosition(accountId: number, marketId: number, lots: number): void;
  /** The fill proposals the risk hook saw. */
  readonly proposals: FillProposal[];
  /** Verdicts the risk hook will give, by maker order id (default "ok"). */
  readonly verdicts: Map<string, FillVerdict>;
  now: number;
  create(cmd: CreateFields & Pick<CreateOrderCommand, "accountId" | "isBuy" | "priceTicks">): OrderUpdate | Rejection;
  buy(accountId: number, priceTicks: number, qtyLots: number, extra?: CreateFields): OrderUpdate;
  sell(accountId: number, priceTicks: number, qtyLots: number, extra?: CreateFields): OrderUpdate;
  modify(order: OrderUpdate, changes: ModifyFields): OrderUpdate | Rejection;
  clear(): void;
}

export function harness(options: Partial<EngineOptions> & { riskHook?: boolean } = {}): Harness {
  const rec: Recorder = { updates: [], fills: [], depth: [] };
  const sink: EngineSink = {
    orderUpdate: (update) => rec.updates.push(update),
    fill: (fill) => rec.fills.push(fill),
    depthChanged: (marketId, atMicros) => rec.depth.push({ marketId, atMicros }),
  };
  const positions = new Map<string, number>();
  const proposals: FillProposal[] = [];
  const verdicts = new Map<string, FillVerdict>();
  const hooks: EngineOptions["hooks"] = {
    positionLots: (accountId, marketId) => positions.get(`${accountId}:${marketId}`) ?? 0,
    ...(options.riskHook === true
      ? {
          checkFill: (proposal: FillProposal) => {
            proposals.push(proposal);
            return verdicts.get(proposal.makerOrderId) ?? "ok";
          },
        }
      : {}),
    ...options.hooks,
  };
  const engine = new Engine({ markets: options.markets ?? [PERP, SPOT], sink, hooks, ...(options.config ? { config: options.config } : {}), ...(options.scheduler ? { scheduler: options.scheduler } : {}) });
  const h: Harness = {
    engine,
    rec,
    positions,
    proposals,
    verdicts,
    now: T0,
    setPosition(accountId, marketId, lots) {
      positions.set(`${accountId}:${marketId}`, lots);
    },
    create(cmd) {
      return engine.createOrder(
        defined({
          atMicros: h.now,
          marketId: PERP.marketId,
          exchangeId: 1,
          ownerId: cmd.accountId,
          orderType: "LIMIT",
          timeInForce: "GTC",
          qtyLots: 10,
          ...cmd,
        }) as CreateOrderCommand,
      );
    },
    buy(accountId, priceTicks, qtyLots, extra = {}) {
      return ok(h.create({ ...extra, accountId, isBuy: true, priceTicks, qtyLots }));
    },
    sell(accountId, priceTicks, qtyLots, extra = {}) {
      return ok(h.create({ ...extra, accountId, isBuy: false, priceTicks, qtyLots }));
    },
    modify(order, changes) {
      const live = engine.order(order.orderId);
      if (live === undefined) throw new Error(`order ${order.orderId} is not live`);
      const base: ModifyOrderCommand = {
        atMicros: h.now,
        marketId: live.market.marketId,
        exchangeId: live.exchangeId,
        accountId: live.accountId,
        ownerId: live.ownerId,
        orderId: live.orderId,
        isBuy: live.isBuy,
        orderType: live.orderType,
        timeInForce: live.timeInForce,
        priceTicks: live.priceTicks,
        ...(live.orderType === "LIMIT" ? { qtyLots: live.qtyLots } : { triggerTicks: live.triggerTicks }),
        ...(live.clientOrderId !== null ? { clientOrderId: live.clientOrderId } : {}),
        ...(live.reduceOnly ? { reduceOnly: true } : {}),
        ...(live.postOnly ? { postOnly: true } : {}),
        ...(live.expiresAfterSec > 0 ? { expiresAfterSec: live.expiresAfterSec } : {}),
      };
      return engine.modifyOrder(defined({ ...base, ...changes }) as ModifyOrderCommand);
    },
    clear() {
      rec.updates.length = 0;
      rec.fills.length = 0;
      rec.depth.length = 0;
      proposals.length = 0;
    },
  };
  return h;
}

export function ok<T>(result: EngineResult<T>): { readonly ok: true } & T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result;
}

export function rejected<T>(result: EngineResult<T>): Rejection["error"] {
  if (result.ok) throw new Error("expected a rejection, got success");
  return result.error;
}

/** The rows of one order, in emission order. */
export function rowsOf(rec: Recorder, orderId: string): OrderUpdate[] {
  return rec.updates.filter((update) => update.orderId === orderId);
}

/** A plain summary of a row for toEqual comparisons. */
export function summary(update: OrderUpdate) {
  return {
    orderId: update.orderId,
    status: update.status,
    qtyLots: update.qtyLots,
    cumLots: update.cumLots,
    execLots: update.execLots,
    firstFillId: update.firstFillId,
    fillCount: update.fillCount,
    cancelReason: update.cancelReason,
  };
}
