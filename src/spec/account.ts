/**
 * Account state and history: positions, balances, ledger entries and
 * account notifications (spec 2.11, 2.19, 2.20).
 */
import { z } from "zod";
import { AccountEvent, TransferType } from "./enums.ts";
import { PaginationMeta } from "./pagination.ts";
import { Address, Asset, Id, MarketSymbol, Side, SignedDecimal, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/** Spec 2.11 a perp position; all fields required. */
export const Position = z
  .looseObject({
    exchangeId: UnsignedInteger,
    symbol: MarketSymbol,
    accountId: UnsignedInteger,
    qty: UnsignedDecimal,
    side: Side,
    avgEntryPrice: SignedDecimal,
    avgEntryFundingValue: SignedDecimal,
    lastTradeSequenceNumber: UnsignedInteger,
  })
  .meta({ id: "Position" });
export type Position = z.infer<typeof Position>;

/**
 * Spec 2.19 one asset balance of an account. realBalance is net deposits plus
 * realized PnL; balanceDEPRECATED is net deposits only. Both may be negative
 * after losses, hence SignedDecimal (the spec types them "string").
 */
export const AccountBalance = z
  .looseObject({
    accountId: UnsignedInteger,
    asset: Asset,
    realBalance: SignedDecimal,
    balanceDEPRECATED: SignedDecimal.meta({ deprecated: true }),
  })
  .meta({ id: "AccountBalance" });
export type AccountBalance = z.infer<typeof AccountBalance>;

/** True when a SignedDecimal string denotes zero (every mantissa digit is 0). */
export function isZeroDecimal(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 101 || code === 69) return true; // e or E: the exponent cannot make it non-zero
    if (code >= 49 && code <= 57) return false;
  }
  return true;
}

/**
 * Spec 2.20 an account ledger entry: one per account side of each on-chain
 * transfer leg. The spec shows only `netDepositsAfter` (net deposits after
 * the entry, not realBalance) and says zero-amount legs are never returned.
 * The other fields are shadowbook's choice, like a venue's ledger:
 * - `id`: entry id (decimal uint64 string, from a counter);
 * - `accountId`, `asset`: the account side and the asset moved;
 * - `type`: TransferType (see TRANSFER_TYPES);
 * - `amount`: SignedDecimal, non-zero; positive credits the account,
 *   negative debits it;
 * - `timestamp`: ms;
 * - `counterpartyAccountId`: the other account of TRANSFER_IN/TRANSFER_OUT
 *   (and of a SPOT_LEG), when there is one;
 * - `fillId`: the execution the entry settles (fees, rebates, PnL, spot
 *   legs), when there is one.
 */
export const Transfer = z
  .looseObject({
    id: Id,
    accountId: UnsignedInteger,
    asset: Asset,
    type: TransferType,
    amount: SignedDecimal.refine((value) => !isZeroDecimal(value), {
      message: "amount must be non-zero (zero-amount legs are never returned)",
    }),
    netDepositsAfter: SignedDecimal,
    timestamp: UnsignedInteger,
    counterpartyAccountId: UnsignedInteger.exactOptional(),
    fillId: Id.exactOptional(),
  })
  .meta({ id: "Transfer" });
export type Transfer = z.infer<typeof Transfer>;

/**
 * The transfers listing (spec 4.1): entries newest first with
 * `meta.nextCursor`. The wrapper `{data, meta}` mirrors OrderHistoryList;
 * the spec shows only meta.nextCursor.
 */
export const TransferList = z
  .looseObject({
    data: z.array(Transfer),
    meta: PaginationMeta,
  })
  .meta({ id: "TransferList" });
export type TransferList = z.infer<typeof TransferList>;

/** The `contents` of a transfers subscription: the most recent entries, newest first (spec 6.2). */
export const TransfersSnapshot = z
  .looseObject({
    data: z.array(Transfer),
  })
  .meta({ id: "TransfersSnapshot" });
export type TransfersSnapshot = z.infer<typeof TransfersSnapshot>;

/**
 * An account creation or ownership-change notification, the payload of the
 * accounts channel. The spec (2.20, 6.1) does not show its fields; this shape
 * is shadowbook's choice: the account, its owner wallet after the event, the
 * event (see ACCOUNT_EVENTS), the signer added or removed (present only for
 * SIGNER_ADDED and SIGNER_REMOVED) and the event time (ms).
 */
export const AccountNotification = z
  .looseObject({
    accountId: UnsignedInteger,
    ownerWallet: Address,
    event: AccountEvent,
    signer: Address.exactOptional(),
    timestamp: UnsignedInteger,
  })
  .meta({ id: "AccountNotification" });
export type AccountNotification = z.infer<typeof AccountNotification>;

/**
 * One account of a wallet (GET /v2/wallet/{address}/accounts; the spec does
 * not show the route): its id, its owner wallet (lowercase) and the
 * permissioned signers (lowercase, sorted; the owner included).
 */
export const WalletAccount = z
  .looseObject({ accountId: UnsignedInteger, ownerWallet: Address, signers: z.array(Address) })
  .meta({ id: "WalletAccount" });
export type WalletAccount = z.infer<typeof WalletAccount>;
