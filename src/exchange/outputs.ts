/**
 * What the Exchange emits, in order, as it handles inputs and fires timers.
 * The stream publisher (live) and the recorder subscribe to it; the run
 * fingerprint is a hash over it. Every payload is already in the wire shape
 * of the specification (canonical decimal strings, milliseconds), so
 * publishing is routing, not formatting.
 *
 * Wallet-scoped outputs name the wallet that owns the account: wallet
 * channels (/v2/wallet/{address}/...) carry the records of the accounts
 * that address owns.
 */
import type { AccountBalance, AccountNotification, Position, Transfer } from "../spec/account.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import type { WireDepth, WireOrder } from "../engine/wire.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";
import type { AssetOraclePrice, MarketSummary, SpotMarketSummary } from "../spec/market.ts";

export type ExchangeOutput =
  /** One order update; `onOrderChanges` is false for an IOC taker (history only, spec 6.4). */
  | { kind: "order"; wallet: string; row: WireOrder; onOrderChanges: boolean }
  /** A settled perp match or liquidation; `wallets` are the owners of the accounts on either side. */
  | { kind: "perpExecution"; symbol: string; wallets: readonly string[]; record: PerpExecution }
  | { kind: "spotExecution"; symbol: string; wallets: readonly string[]; record: SpotExecution }
  | { kind: "bust"; symbol: string; wallets: readonly string[]; record: ExecutionBust }
  /** A depth UPDATE of the top-100 stream view: only the changed levels, absolute quantities. */
  | { kind: "depth"; symbol: string; depth: WireDepth }
  | { kind: "positions"; wallet: string; positions: Position[] }
  | { kind: "balances"; wallet: string; balances: AccountBalance[] }
  | { kind: "transfer"; wallet: string; entry: Transfer }
  | { kind: "account"; wallet: string; notification: AccountNotification }
  | { kind: "perpSummaries"; summaries: MarketSummary[] }
  | { kind: "spotSummaries"; summaries: SpotMarketSummary[] }
  | { kind: "oraclePrices"; prices: AssetOraclePrice[] }
  /** A block was produced: its matches are settled or busted (no channel carries it; recorders and checkers use it). */
  | { kind: "block"; number: number; timeMicros: number; settled: number; busted: number };

export type ExchangeOutputKind = ExchangeOutput["kind"];

export type OutputListener = (output: ExchangeOutput) => void;
