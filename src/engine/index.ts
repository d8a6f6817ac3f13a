/** The matching engine: see engine.ts. */
export * from "./types.ts";
export { Engine } from "./engine.ts";
export type {
  CancelForReasonCommand,
  DepthResult,
  EngineOptions,
  OpenOrderImpact,
  OpenOrderImpactUnits,
  PositionChangedCommand,
  SetMarketStateCommand,
  SetMarkPriceCommand,
} from "./engine.ts";
export { CANCEL_REASON_MESSAGES, FillRecord, NULL_SINK, OrderUpdate } from "./events.ts";
export type { EngineHooks, EngineSink } from "./events.ts";
export { DepthStream, depthView } from "./depth.ts";
export type { DepthLevel, DepthLevels } from "./depth.ts";
export { OrderHistory, HISTORY_LIMIT_PER_ACCOUNT_DEFAULT } from "./history.ts";
export type { HistoryQuery } from "./history.ts";
export { MarketUnits } from "./units.ts";
export type { UnitsResult } from "./units.ts";
export { ManualScheduler } from "./timers.ts";
export type { Market } from "./market.ts";
export type { Order } from "./order.ts";
export type { OpenOrderFigures, OpenOrderUnits } from "./open-orders.ts";
export type { EngineStateDump } from "./dump.ts";
export * from "./wire.ts";
