/**
 * Execution busts (spec 2.16): a match that failed on-chain settlement and
 * was rolled back, with the reason decoded from the settlement failure.
 */
import { z } from "zod";
import { PaginationMeta } from "./pagination.ts";
import { Asset, Id, MarketSymbol, Side, SignedDecimal, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/**
 * The contract errors that shadowbook models with typed fields. The spec
 * names only AccountBelowIM (accountId, delta, shortfall) and gives
 * insufficient balance, stale signature and market paused as examples of
 * bust causes; the other three variants and their fields are shadowbook's
 * choice, carrying what a settlement contract would report.
 */
export const TYPED_BUST_REASON_NAMES = [
  "AccountBelowIM",
  "InsufficientBalance",
  "SignatureExpired",
  "MarketPaused",
] as const;
export type TypedBustReasonName = (typeof TYPED_BUST_REASON_NAMES)[number];

/** reasonName of a legacy decoded revert string (spec 2.16). */
export const DECODED_REASON_NAME = "DecodedReason";
/** reasonName of undecodable revert bytes (spec 2.16). */
export const UNKNOWN_REASON_NAME = "UnknownReason";

/** Every reasonName that has its own variant; the unmodeled form excludes them. */
export const KNOWN_BUST_REASON_NAMES: ReadonlySet<string> = new Set<string>([
  ...TYPED_BUST_REASON_NAMES,
  DECODED_REASON_NAME,
  UNKNOWN_REASON_NAME,
]);

/** The account would end below initial margin: `delta` is the margin change, `shortfall` the missing amount (rUSD). */
export const BustReasonAccountBelowIM = z
  .looseObject({
    reasonName: z.literal("AccountBelowIM"),
    accountId: UnsignedInteger,
    delta: SignedDecimal,
    shortfall: UnsignedDecimal,
  })
  .meta({ id: "BustReasonAccountBelowIM" });
export type BustReasonAccountBelowIM = z.infer<typeof BustReasonAccountBelowIM>;

/** The account lacked `required` of `asset` and held only `available` (shadowbook's fields). */
export const BustReasonInsufficientBalance = z
  .looseObject({
    reasonName: z.literal("InsufficientBalance"),
    accountId: UnsignedInteger,
    asset: Asset,
    required: UnsignedDecimal,
    available: UnsignedDecimal,
  })
  .meta({ id: "BustReasonInsufficientBalance" });
export type BustReasonInsufficientBalance = z.infer<typeof BustReasonInsufficientBalance>;

/** The order signature's `deadline` (Unix s) had passed at block time (shadowbook's fields). */
export const BustReasonSignatureExpired = z
  .looseObject({
    reasonName: z.literal("SignatureExpired"),
    accountId: UnsignedInteger,
    deadline: UnsignedInteger,
  })
  .meta({ id: "BustReasonSignatureExpired" });
export type BustReasonSignatureExpired = z.infer<typeof BustReasonSignatureExpired>;

/** The market was paused on-chain (shadowbook's fields). */
export const BustReasonMarketPaused = z
  .looseObject({
    reasonName: z.literal("MarketPaused"),
    marketId: UnsignedInteger,
  })
  .meta({ id: "BustReasonMarketPaused" });
export type BustReasonMarketPaused = z.infer<typeof BustReasonMarketPaused>;

/** A legacy decoded revert string (spec 2.16). */
export const BustReasonDecoded = z
  .looseObject({
    reasonName: z.literal(DECODED_REASON_NAME),
    message: z.string(),
  })
  .meta({ id: "BustReasonDecoded" });
export type BustReasonDecoded = z.infer<typeof BustReasonDecoded>;

/** Undecodable revert bytes (spec 2.16); `message` describes or carries them. */
export const BustReasonUnknown = z
  .looseObject({
    reasonName: z.literal(UNKNOWN_REASON_NAME),
    message: z.string(),
  })
  .meta({ id: "BustReasonUnknown" });
export type BustReasonUnknown = z.infer<typeof BustReasonUnknown>;

/**
 * A decoded contract error without a typed variant (spec 2.16):
 * `{reasonName: <error name>, args: {...}}`. A reasonName that has its own
 * variant is refused here, so a malformed known reason fails instead of
 * passing as unmodeled.
 */
export const BustReasonUnmodeled = z
  .looseObject({
    reasonName: z
      .string()
      .min(1)
      .refine((name) => !KNOWN_BUST_REASON_NAMES.has(name), {
        message: "reasonName names a modeled reason, so it must take that reason's fields",
        abort: true, // so that the union reports the modeled variant's issues as well
      }),
    args: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "BustReasonUnmodeled" });
export type BustReasonUnmodeled = z.infer<typeof BustReasonUnmodeled>;

/** The modeled reasons, discriminated by reasonName. */
export const ModeledBustReason = z
  .discriminatedUnion("reasonName", [
    BustReasonAccountBelowIM,
    BustReasonInsufficientBalance,
    BustReasonSignatureExpired,
    BustReasonMarketPaused,
    BustReasonDecoded,
    BustReasonUnknown,
  ])
  .meta({ id: "ModeledBustReason" });
export type ModeledBustReason = z.infer<typeof ModeledBustReason>;

/**
 * Spec 2.16 ExecutionBustReason; branch on `reasonName`. The modeled
 * variants are tried first; any other name takes the unmodeled form.
 */
export const ExecutionBustReason = z
  .union([ModeledBustReason, BustReasonUnmodeled])
  .meta({ id: "ExecutionBustReason" });
export type ExecutionBustReason = z.infer<typeof ExecutionBustReason>;

/** True when `reason` is one of the modeled variants (narrows the union). */
export function isModeledBustReason(reason: ExecutionBustReason): reason is ModeledBustReason {
  return KNOWN_BUST_REASON_NAMES.has(reason.reasonName);
}

/**
 * Spec 2.16 a busted match (spot or perp; the symbol suffix tells which).
 * Every field is required. `side` is the taker side, `qty` the failed base
 * quantity, `price` the attempted price, `timestamp` the chain-side block time
 * (ms); sequenceNumber grows by 1 per bust. Quantity, price and id fields
 * take the scalar patterns, as for executions.
 */
export const ExecutionBust = z
  .looseObject({
    symbol: MarketSymbol,
    takerAccountId: UnsignedInteger,
    exchangeId: UnsignedInteger,
    makerAccountId: UnsignedInteger,
    takerOrderId: Id,
    makerOrderId: Id,
    qty: UnsignedDecimal,
    side: Side,
    price: UnsignedDecimal,
    reason: ExecutionBustReason,
    timestamp: UnsignedInteger,
    sequenceNumber: UnsignedInteger,
    fillId: Id,
  })
  .meta({ id: "ExecutionBust" });
export type ExecutionBust = z.infer<typeof ExecutionBust>;

/**
 * A page of execution busts (spot and perp), newest first (GET
 * /v2/market/{symbol}/executionBusts and /v2/wallet/{address}/executionBusts),
 * with the effective filters in meta: the `{data, meta}` wrapper of
 * PerpExecutionList (the spec does not show one).
 */
export const ExecutionBustList = z.looseObject({ data: z.array(ExecutionBust), meta: PaginationMeta }).meta({ id: "ExecutionBustList" });
export type ExecutionBustList = z.infer<typeof ExecutionBustList>;
