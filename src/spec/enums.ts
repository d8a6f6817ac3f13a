/**
 * Enumerations of the contract (spec section 2.2), each as an exported
 * `const` array (the member list, in the spec's order) and a zod enum.
 *
 * Spec 9: TimeInForce, CancelReason, RequestErrorCode and ExecutionType may
 * gain members in later versions; the arrays are the one place to add them.
 */
import { z } from "zod";

export const ORDER_TYPES = ["LIMIT", "STOP_LOSS", "TAKE_PROFIT"] as const;
export const OrderType = z.enum(ORDER_TYPES).meta({ id: "OrderType" });
export type OrderType = z.infer<typeof OrderType>;

export const TRIGGER_ORDER_TYPES = ["STOP_LOSS", "TAKE_PROFIT"] as const;
export const TriggerOrderType = z.enum(TRIGGER_ORDER_TYPES).meta({ id: "TriggerOrderType" });
export type TriggerOrderType = z.infer<typeof TriggerOrderType>;

export const LIMIT_ORDER_TYPES = ["LIMIT"] as const;
export const LimitOrderType = z.enum(LIMIT_ORDER_TYPES).meta({ id: "LimitOrderType" });
export type LimitOrderType = z.infer<typeof LimitOrderType>;

export const TIME_IN_FORCES = ["IOC", "GTC", "GTT"] as const;
export const TimeInForce = z.enum(TIME_IN_FORCES).meta({ id: "TimeInForce" });
export type TimeInForce = z.infer<typeof TimeInForce>;

export const ORDER_STATUSES = ["OPEN", "FILLED", "CANCELLED"] as const;
export const OrderStatus = z.enum(ORDER_STATUSES).meta({ id: "OrderStatus" });
export type OrderStatus = z.infer<typeof OrderStatus>;

/**
 * FEED_RESET stays in the enum but current deployments do not emit it (they
 * close with code 1012 instead); a client that receives it rebuilds its order
 * view, it does not mean orders were cancelled.
 */
export const CANCEL_REASONS = [
  "NO_LIQUIDITY",
  "IOC_REMAINDER",
  "SELF_TRADE_PREVENTION",
  "PROTECTIVE_SELF_TRADE_SWEEP",
  "GTT_EXPIRED",
  "USER_CANCEL",
  "MASS_CANCEL",
  "CANCEL_ALL_AFTER",
  "FEED_RESET",
  "RISK_CANCELLED",
  "RISK_REJECTED",
  "OCO_SIBLING_FIRED",
  "POSITION_CLOSED",
] as const;
export const CancelReason = z.enum(CANCEL_REASONS).meta({ id: "CancelReason" });
export type CancelReason = z.infer<typeof CancelReason>;

/** ADL and MARKET_CLOSE are perp-only; see SPOT_EXECUTION_TYPES. */
export const EXECUTION_TYPES = ["ORDER_MATCH", "LIQUIDATION", "ADL", "MARKET_CLOSE"] as const;
export const ExecutionType = z.enum(EXECUTION_TYPES).meta({ id: "ExecutionType" });
export type ExecutionType = z.infer<typeof ExecutionType>;

/** The ExecutionType members a spot execution may carry (spec 2.2 and 2.15). */
export const SPOT_EXECUTION_TYPES = ["ORDER_MATCH", "LIQUIDATION"] as const;
export const SpotExecutionType = z.enum(SPOT_EXECUTION_TYPES).meta({ id: "SpotExecutionType" });
export type SpotExecutionType = z.infer<typeof SpotExecutionType>;

export const DEPTH_TYPES = ["SNAPSHOT", "UPDATE"] as const;
export const DepthType = z.enum(DEPTH_TYPES).meta({ id: "DepthType" });
export type DepthType = z.infer<typeof DepthType>;

export const TIER_TYPES = ["REGULAR", "VIP"] as const;
export const TierType = z.enum(TIER_TYPES).meta({ id: "TierType" });
export type TierType = z.infer<typeof TierType>;

/** ENABLED: deposits and withdrawals allowed; WITHDRAWAL_ONLY: only withdrawals. */
export const ASSET_STATUSES = ["ENABLED", "WITHDRAWAL_ONLY"] as const;
export const AssetStatus = z.enum(ASSET_STATUSES).meta({ id: "AssetStatus" });
export type AssetStatus = z.infer<typeof AssetStatus>;

/**
 * Kinds of account ledger entry (Transfer.type). The spec (2.20) names the
 * kinds only loosely ("deposits, withdrawals, transfers, stakes, spot legs,
 * perp fees and rebates, and liquidation penalties") and does not show the
 * field; this list is shadowbook's choice, shaped like a perp venue's ledger:
 * - DEPOSIT / WITHDRAWAL: collateral in from / out to the chain;
 * - TRANSFER_IN / TRANSFER_OUT: the two sides of an account-to-account move;
 * - STAKE / UNSTAKE: collateral moved into / out of a staking pool;
 * - SPOT_LEG: one asset leg of a settled spot execution (base or quote);
 * - PERP_FEE / PERP_REBATE: taker or maker fee debit, maker rebate credit;
 * - REALIZED_PNL: price-variation PnL realized when a position shrinks;
 * - FUNDING: funding PnL realized on a position;
 * - LIQUIDATION_PENALTY: the penalty charged to a liquidated account;
 * - COLLATERAL_LIQUIDATION: a collateral asset sold at liquidationDiscount;
 * - SOCIALIZED_LOSS: a share of an unrecovered deficit.
 * Not a spec enum: extend it here when the venue shows more kinds.
 */
export const TRANSFER_TYPES = [
  "DEPOSIT",
  "WITHDRAWAL",
  "TRANSFER_IN",
  "TRANSFER_OUT",
  "STAKE",
  "UNSTAKE",
  "SPOT_LEG",
  "PERP_FEE",
  "PERP_REBATE",
  "REALIZED_PNL",
  "FUNDING",
  "LIQUIDATION_PENALTY",
  "COLLATERAL_LIQUIDATION",
  "SOCIALIZED_LOSS",
] as const;
export const TransferType = z.enum(TRANSFER_TYPES).meta({ id: "TransferType" });
export type TransferType = z.infer<typeof TransferType>;

/**
 * Events of the `/v2/wallet/{address}/accounts` channel. The spec (2.20, 6.1)
 * says only "account creation / ownership-change notifications" and does not
 * show the payload; signer registration events are included because signer
 * permissions gate every order (spec 5.10). Not a spec enum.
 */
export const ACCOUNT_EVENTS = ["ACCOUNT_CREATED", "SIGNER_ADDED", "SIGNER_REMOVED", "OWNER_CHANGED"] as const;
export const AccountEvent = z.enum(ACCOUNT_EVENTS).meta({ id: "AccountEvent" });
export type AccountEvent = z.infer<typeof AccountEvent>;
