/**
 * RiskEngine: the facade the exchange holds. It binds the risk modules to one
 * RiskState and adds nothing of its own but input parsing and the
 * liquidation pass after price inputs.
 *
 * What the exchange calls, in order:
 *  1. setup and admin: createWallet, createAccount, addSigner, deposit,
 *     withdraw, transfer, updateWallet, setAssetStatus, closeMarket;
 *  2. feeds: setIndexPrice, setOraclePrice, setBook. Each returns the marks
 *     that moved (pass markFloorTicks and markBetweenTicks to the engine's setMarkPrice) and the
 *     liquidations it caused (publish them; cancel the liquidated accounts'
 *     orders);
 *  3. admission: checkOrder(intent, atMicros) before an order enters the book;
 *  4. matching, through the engine's hooks: positionLots(accountId,
 *     marketId) and checkFill(match, atMicros); for each fill the engine
 *     keeps (checkFill returned "ok"), addPending(match); when an order
 *     rests, restOrder(order); when it leaves the book other than by a fill,
 *     removeRestingOrder(orderId);
 *  5. settlement: validateMatch(match, atMicros) (settled state only; a
 *     reason means bust); then releasePending(fillId) for every settled or
 *     busted match, and applyPerpExecution / applySpotExecution for every
 *     settled one; after a block, runLiquidations(atMicros);
 *  6. every summaryCadenceMicros (500 ms virtual by default, on the
 *     exchange's timer): computeSummaries; reads between two computations
 *     are served latestSummaries, and a read before the first one
 *     summariesAt, which keeps nothing (a read never changes the state).
 * Every method that depends on time takes atMicros; nothing reads a clock.
 */
import { toE18 } from "../core/decimal.ts";
import { assert } from "../core/assert.ts";
import {
  type WalletFlags,
  addSigner,
  checkAccountAccess,
  createAccount,
  createWallet,
  findWallet,
  getAccount,
  hasAddress,
  getWallet,
  rejection,
  removeSigner,
  updateWalletFlags,
  walletConfiguration,
} from "./accounts.ts";
import { type BookingContext, book, netDepositsText, parseAmount, realBalanceText } from "./collateral.ts";
import { type RiskConfigInput, feeTierParameters, parseRiskConfig } from "./config.ts";
import { applyPerpExecution, applySpotExecution, getPerp, lotsOf } from "./executions.ts";
import { addPending, marketOf, releasePending, removeRestingOrder, restOrder } from "./exposure.ts";
import { type MarkChange, markTicksOf, setBook, setIndexPrice, setOraclePrice } from "./feeds.ts";
import { refreshTier, regularTier } from "./fees.ts";
import { formatE36 } from "./fixed.ts";
import { type LiquidationOutcome, runLiquidations } from "./liquidation.ts";
import { closeMarket } from "./market-close.ts";
import { equityEffective, equitySettled } from "./margin.ts";
import { positionView } from "./positions.ts";
import { checkFill, checkOrder, checkOutflow, validateMatch } from "./pretrade.ts";
import { perpPricesFresh, spotOraclePrice } from "./prices.ts";
import { type BalanceState, type ExecutionIds, type PositionState, type RiskState, createRiskState, defaultExecutionIds } from "./state.ts";
import { assetOraclePrices, marketSummary, spotMarketSummary } from "./summaries.ts";
import type {
  AccountBalanceView,
  AppliedPerpExecution,
  AppliedSpotExecution,
  AssetOraclePriceView,
  AssetStatus,
  BookView,
  FeeTierParametersView,
  BustReason,
  ExecutionInput,
  FillVerdict,
  LedgerEntry,
  MarketSummaryView,
  Match,
  MatchTerms,
  OrderIntent,
  PositionView,
  RestingOrder,
  RiskRejection,
  SpotMarketSummaryView,
  WalletConfigurationView,
} from "./types.ts";

export interface RiskEngineOptions {
  /** Ids for the executions the risk layer makes (liquidation, ADL, market close). */
  readonly ids?: ExecutionIds;
  /** Whether liquidation passes build their audit records at first (RiskState.recordLiquidations); default true. */
  readonly recordLiquidations?: boolean;
}

export type BalanceResult = { readonly ok: true; readonly ledger: readonly LedgerEntry[] } | { readonly ok: false; readonly rejection: RiskRejection };

/** One price of a feed update: an asset's index price, or a perp market's exchange-mark oracle. */
export type FeedPrice = { readonly asset: string; readonly marketId?: undefined; readonly price: string } | { readonly asset?: undefined; readonly marketId: number; readonly price: string };

export interface PriceUpdate {
  readonly markChanges: readonly MarkChange[];
  readonly liquidation: LiquidationOutcome;
}

/** An account's margin figures (canonical decimals, 18 digits). */
export interface MarginView {
  readonly marginBalance: string;
  readonly settledMarginBalance: string;
  readonly initialMargin: string;
  readonly initialMarginWithOrders: string;
  readonly liquidationMargin: string;
}

/** The summaries of one computation (spec 2.9, 2.10), and its time. */
export interface Summaries {
  readonly atMicros: number;
  readonly markets: readonly MarketSummaryView[];
  readonly spotMarkets: readonly SpotMarketSummaryView[];
}

export class RiskEngine {
  readonly state: RiskState;
  private latest: Summaries | undefined;

  constructor(config: RiskConfigInput, options: RiskEngineOptions = {}) {
    this.state = createRiskState(parseRiskConfig(config), options.ids ?? defaultExecutionIds());
    this.state.recordLiquidations = options.recordLiquidations ?? true;
  }

  get summaryCadenceMicros(): number {
    return this.state.config.summaryCadenceMicros;
  }

  // 1. Setup and admin.

  createWallet(address: string, flags: WalletFlags = {}): void {
    createWallet(this.state, address, flags);
  }

  updateWallet(address: string, flags: WalletFlags): void {
    updateWalletFlags(this.state, getWallet(this.state, address), flags);
  }

  createAccount(accountId: number, ownerAddress: string): void {
    createAccount(this.state, accountId, ownerAddress);
  }

  addSigner(accountId: number, signer: string): void {
    addSigner(this.state, accountId, signer);
  }

  removeSigner(accountId: number, signer: string): void {
    removeSigner(this.state, accountId, signer);
  }

  setAssetStatus(asset: string, status: AssetStatus): void {
    const state = this.state.assets.get(asset);
    if (state === undefined) assert(false, `asset ${asset} does not exist`);
    state.status = status;
  }

  /** Credits a deposit (an asset in WITHDRAWAL_ONLY status accepts none). */
  deposit(accountId: number, asset: string, amount: string, atMicros: number): BalanceResult {
    const assetState = this.state.assets.get(asset);
    if (assetState === undefined) return refused(rejection("INPUT_VALIDATION_ERROR", `asset "${asset}" does not exist`));
    if (assetState.status !== "ENABLED") return refused(rejection("INPUT_VALIDATION_ERROR", `asset "${asset}" is ${assetState.status}: deposits are not accepted`));
    const account = this.state.accounts.get(accountId);
    if (account === undefined) return refused(rejection("NO_ACCOUNTS_FOUND_ERROR", `accountId ${accountId} does not exist`));
    const money = parseAmount(assetState, toE18(amount, "amount", { signed: false }), "amount");
    if (typeof money !== "bigint") return refused(money);
    const context = this.context(atMicros);
    book(context, account, assetState, "DEPOSIT", money);
    return { ok: true, ledger: context.ledger };
  }

  /** Debits a withdrawal: the balance must be available and margin must stay at or above initial. */
  withdraw(accountId: number, asset: string, amount: string, atMicros: number): BalanceResult {
    return this.moveOut(accountId, undefined, asset, amount, atMicros);
  }

  /** Moves an amount between two accounts (TRANSFER_OUT / TRANSFER_IN), with the withdrawal checks. */
  transfer(fromAccountId: number, toAccountId: number, asset: string, amount: string, atMicros: number): BalanceResult {
    return this.moveOut(fromAccountId, toAccountId, asset, amount, atMicros);
  }

  private moveOut(accountId: number, toAccountId: number | undefined, asset: string, amount: string, atMicros: number): BalanceResult {
    const assetState = this.state.assets.get(asset);
    if (assetState === undefined) return refused(rejection("INPUT_VALIDATION_ERROR", `asset "${asset}" does not exist`));
    const account = this.state.accounts.get(accountId);
    const target = toAccountId === undefined ? undefined : this.state.accounts.get(toAccountId);
    if (account === undefined || (toAccountId !== undefined && target === undefined)) {
      return refused(rejection("NO_ACCOUNTS_FOUND_ERROR", `accountId ${account === undefined ? accountId : toAccountId} does not exist`));
    }
    const money = parseAmount(assetState, toE18(amount, "amount", { signed: false }), "amount");
    if (typeof money !== "bigint") return refused(money);
    const refusal = checkOutflow(account, assetState, money, atMicros);
    if (refusal !== null) return refused(refusal);
    const context = this.context(atMicros);
    if (target === undefined) {
      book(context, account, assetState, "WITHDRAWAL", -money);
    } else {
      book(context, account, assetState, "TRANSFER_OUT", -money, target);
      book(context, target, assetState, "TRANSFER_IN", money, account);
    }
    return { ok: true, ledger: context.ledger };
  }

  closeMarket(marketId: number, settlementPriceTicks: number | undefined, atMicros: number): AppliedPerpExecution[] {
    return closeMarket(this.state, marketId, settlementPriceTicks, atMicros);
  }

  // 2. Feeds.

  setIndexPrice(asset: string, price: string, atMicros: number): PriceUpdate {
    return this.afterPrices(setIndexPrice(this.state, asset, toE18(price, "oraclePrice", { signed: false }), atMicros), atMicros);
  }

  setOraclePrice(marketId: number, price: string, atMicros: number): PriceUpdate {
    return this.afterPrices(setOraclePrice(this.state, marketId, toE18(price, "oraclePrice", { signed: false }), atMicros), atMicros);
  }

  /**
   * The feed prices of one input (index prices by asset, exchange-mark
   * oracles by perp market), applied together, then one liquidation pass:
   * nobody is liquidated at a mark that only existed between two items of
   * the same update (the new index with the old oracle). `markChanges`
   * holds each market's final mark once, in the order the markets first
   * changed.
   */
  setFeedPrices(items: readonly FeedPrice[], atMicros: number): PriceUpdate {
    const changes: MarkChange[] = [];
    for (const item of items) {
      const price = toE18(item.price, "oraclePrice", { signed: false });
      const moved = item.asset !== undefined ? setIndexPrice(this.state, item.asset, price, atMicros) : setOraclePrice(this.state, item.marketId!, price, atMicros);
      for (const change of moved) {
        const at = changes.findIndex((known) => known.marketId === change.marketId);
        if (at < 0) changes.push(change);
        else changes[at] = change;
      }
    }
    return this.afterPrices(changes, atMicros);
  }

  setBook(marketId: number, view: BookView, atMicros: number): PriceUpdate {
    return this.afterPrices(setBook(this.state, marketId, view, atMicros), atMicros);
  }

  private afterPrices(markChanges: MarkChange[], atMicros: number): PriceUpdate {
    return { markChanges, liquidation: runLiquidations(this.state, atMicros) };
  }

  // 3. Admission.

  checkAccess(accountId: number, signer?: string): RiskRejection | null {
    return checkAccountAccess(this.state, accountId, signer);
  }

  checkOrder(intent: OrderIntent, atMicros: number): RiskRejection | null {
    return checkOrder(this.state, intent, atMicros);
  }

  pricesFresh(marketId: number, atMicros: number): boolean {
    const market = marketOf(this.state, marketId);
    if (market === undefined) return false;
    return market.kind === "perp" ? perpPricesFresh(this.state, market, atMicros) : spotOraclePrice(this.state, market, atMicros) !== undefined;
  }

  // 4. Matching hooks and exposure.

  /** Settled plus pending position in lots (signed, long > 0); 0 for spot markets and empty positions. */
  positionLots(accountId: number, marketId: number): number {
    const market = this.state.perps.get(marketId);
    const position = this.state.accounts.get(accountId)?.positions.get(marketId);
    if (market === undefined || position === undefined) return 0;
    return lotsOf(position.q + position.pq, market.config.step);
  }

  /** The engine's checkFill hook: pass the FillProposal and its atMicros. */
  checkFill(match: MatchTerms, atMicros: number): FillVerdict {
    return checkFill(this.state, match, atMicros);
  }

  addPending(match: Match): void {
    addPending(this.state, match);
  }

  releasePending(fillId: string): void {
    releasePending(this.state, fillId);
  }

  restOrder(order: RestingOrder): void {
    restOrder(this.state, order);
  }

  removeRestingOrder(orderId: string): boolean {
    return removeRestingOrder(this.state, orderId);
  }

  /** The mark on the market's tick grid (half-even), for the engine's triggers; undefined before any mark. */
  markPriceTicks(marketId: number): number | undefined {
    const market = getPerp(this.state, marketId);
    return market.mark === undefined ? undefined : markTicksOf(market, market.mark);
  }

  // 5. Settlement.

  validateMatch(match: MatchTerms, atMicros: number): BustReason | null {
    return validateMatch(this.state, match, atMicros);
  }

  applyPerpExecution(input: ExecutionInput, atMicros: number): AppliedPerpExecution {
    return applyPerpExecution(this.state, input, atMicros);
  }

  /**
   * releasePending(input.fillId) then applyPerpExecution(input), with the
   * same result and state, but each side revalued once (by the execution)
   * instead of once more when its pending part is released. The pending
   * match must be the execution's: same market, taker and maker (otherwise
   * the release revalues as releasePending does).
   */
  settlePerpExecution(input: ExecutionInput, atMicros: number): AppliedPerpExecution {
    const pending = this.state.pending.get(input.fillId);
    const same =
      pending !== undefined &&
      pending.marketId === input.marketId &&
      pending.taker.id === input.takerAccountId &&
      pending.maker.id === input.makerAccountId;
    releasePending(this.state, input.fillId, !same);
    return applyPerpExecution(this.state, input, atMicros);
  }

  applySpotExecution(input: ExecutionInput, atMicros: number): AppliedSpotExecution {
    return applySpotExecution(this.state, input, atMicros);
  }

  runLiquidations(atMicros: number): LiquidationOutcome {
    return runLiquidations(this.state, atMicros);
  }

  // 6. Reads.

  positions(accountId: number): PositionView[] {
    const account = getAccount(this.state, accountId);
    const held: PositionState[] = [];
    for (const position of account.positions.values()) {
      if (position.q === 0n) continue;
      // By marketId: inserted among the few held so far (Array.prototype.sort would copy them into a new array first).
      let at = held.push(position) - 1;
      for (; at > 0 && held[at - 1]!.market.config.marketId > position.market.config.marketId; at--) held[at] = held[at - 1]!;
      held[at] = position;
    }
    const views: PositionView[] = [];
    for (const position of held) views.push(positionView(this.state, position));
    return views;
  }

  balances(accountId: number): AccountBalanceView[] {
    const account = getAccount(this.state, accountId);
    const held: BalanceState[] = [];
    for (const balance of account.balances.values()) {
      // By asset symbol, inserted as in positions().
      let at = held.push(balance) - 1;
      for (; at > 0 && held[at - 1]!.asset.config.symbol > balance.asset.config.symbol; at--) held[at] = held[at - 1]!;
      held[at] = balance;
    }
    const views: AccountBalanceView[] = [];
    for (const balance of held) {
      views.push({ accountId, asset: balance.asset.config.symbol, realBalance: realBalanceText(balance), balanceDEPRECATED: netDepositsText(balance) });
    }
    return views;
  }

  margin(accountId: number, atMicros: number): MarginView {
    const account = getAccount(this.state, accountId);
    return {
      marginBalance: formatE36(equityEffective(account, atMicros)),
      settledMarginBalance: formatE36(equitySettled(account, atMicros)),
      initialMargin: formatE36(account.im),
      initialMarginWithOrders: formatE36(account.imOrders),
      liquidationMargin: formatE36(account.lm),
    };
  }

  /** Spec 2.6 FeeTierParameters of every configured tier, in the canonical order (config.compareFeeTiers), canonical decimals. */
  feeTierParameters(): FeeTierParametersView[] {
    return feeTierParameters(this.state.config);
  }

  /**
   * The configuration a wallet the risk layer does not know reads as: the
   * default fee tier (the REGULAR tier of volume 0, which a new wallet gets;
   * not the first tier in the scenario's order) and no flags.
   */
  defaultWalletConfiguration(): WalletConfigurationView {
    return { feeTierId: regularTier(this.state.config.feeTiers, 0n).tierId, ogStatus: false, affiliateStatus: false, refereeStatus: false };
  }

  walletConfiguration(address: string, atMicros: number): WalletConfigurationView {
    const wallet = getWallet(this.state, address);
    refreshTier(this.state, wallet, atMicros);
    return walletConfiguration(wallet);
  }

  /** A resting order as the risk layer counts it (remaining quantity), or undefined when not counted. */
  restingOrder(orderId: string): RestingOrder | undefined {
    const resting = this.state.resting.get(orderId);
    if (resting === undefined) return undefined;
    const market = marketOf(this.state, resting.marketId)!;
    return {
      orderId,
      accountId: resting.account.id,
      marketId: resting.marketId,
      side: resting.side,
      qtyLots: lotsOf(resting.qty, market.config.step),
      priceTicks: lotsOf(resting.price, market.config.tick),
    };
  }

  /** The owning wallet (lowercase) of an account, or undefined when the account does not exist. */
  accountOwner(accountId: number): string | undefined {
    return this.state.accounts.get(accountId)?.wallet.address;
  }

  /** Whether `signer` is permissioned on the account (its owner or an added signer). */
  isSigner(accountId: number, signer: string): boolean {
    const account = this.state.accounts.get(accountId);
    return account !== undefined && hasAddress(account.signers, signer);
  }

  /** The accounts a wallet owns, in the order they were created (empty for an unknown wallet). */
  accountsOf(address: string): readonly number[] {
    return findWallet(this.state, address)?.accountIds ?? [];
  }

  hasWallet(address: string): boolean {
    return findWallet(this.state, address) !== undefined;
  }

  /** The wallet's rate tier, or undefined for an unknown wallet (one lookup: the gateway asks on every request). */
  rateTierOf(address: string): number | undefined {
    return findWallet(this.state, address)?.rateTier;
  }

  /** The gateway's view of a wallet: its rate tier and trading flags. */
  walletFlags(address: string): { readonly rateTier: number; readonly whitelisted: boolean; readonly suspended: boolean } {
    const wallet = getWallet(this.state, address);
    return { rateTier: wallet.rateTier, whitelisted: wallet.whitelisted, suspended: wallet.suspended };
  }

  /** Computes every market's summary at `atMicros` and keeps it as the latest (what reads serve until the next). */
  computeSummaries(atMicros: number): Summaries {
    this.latest = this.summariesAt(atMicros);
    return this.latest;
  }

  /** Every market's summary at `atMicros`, kept nowhere (for a read before the first computation). */
  summariesAt(atMicros: number): Summaries {
    return { atMicros, markets: this.marketSummaries(atMicros), spotMarkets: this.spotMarketSummaries(atMicros) };
  }

  /** The last computed summaries (their updatedAt is the computation time), if any. */
  latestSummaries(): Summaries | undefined {
    return this.latest;
  }

  marketSummaries(atMicros: number): MarketSummaryView[] {
    return [...this.state.perps.values()].map((market) => marketSummary(this.state, market, atMicros));
  }

  spotMarketSummaries(atMicros: number): SpotMarketSummaryView[] {
    return [...this.state.spots.values()].map((market) => spotMarketSummary(this.state, market, atMicros));
  }

  assetOraclePrices(atMicros: number): AssetOraclePriceView[] {
    return assetOraclePrices(this.state, atMicros);
  }

  private context(atMicros: number): BookingContext {
    return { state: this.state, ledger: [], atMicros };
  }
}

function refused(reason: RiskRejection): BalanceResult {
  return { ok: false, rejection: reason };
}
