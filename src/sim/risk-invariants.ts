/**
 * The risk and settlement invariants that ExchangeInvariants (invariants.ts)
 * checks besides conservation and the replay of positions. The formulas are
 * the risk layer's own (src/risk/audit.ts, margin.ts), not re-derived here.
 *
 * From the output stream, per record:
 * - Fee v3: protocolFeeCredit + referrerFeeCredit + takerRebateCredit +
 *   poolFeeCredit = takerFee exactly on an ORDER_MATCH; LIQUIDATION, ADL and
 *   MARKET_CLOSE carry takerFee 0 and no fee parts.
 * - Fee amount (FeeRates): the takerFee of a perp ORDER_MATCH is qty x
 *   price x the takerRate of one of the configured fee tiers, rounded
 *   half-even to the settlement asset's decimals (fees.ts): the split
 *   check above cannot see a fee computed on the wrong base.
 * - A bust changes nothing: the settled balances and positions of its two
 *   accounts are what they were at the last output that published a change
 *   of them (SettledAccounts below).
 *
 * From the state, at the checker's block cadence (O(accounts + positions)):
 * - Open interest: long = short, settled and effective (settled + pending);
 *   settled long and short each equal to the sum over positions.
 * - Funding: open funding claims + funding realized = -socialized, so what
 *   longs pay equals what shorts receive until a loss is socialized.
 * - Funding rate (checkFundingRates, after the summary tick's mark
 *   refresh): in every market with fresh prices the rate is
 *   (mark - index) / index clamped to +-fundingRateCap, to half a unit of
 *   its 18th digit, written as rate x index ~ (mark - index) rather than
 *   with funding.ts's own function: longs pay when the mark is above the
 *   index.
 * - Each account's running margin sums equal the sums recomputed from its
 *   positions (audit.auditAccountSums), and each audited position's
 *   settled contributions equal the definitions written out
 *   (checkPositionValuation): the audit recomputes through refreshPosition
 *   itself, so a wrong formula there passes it.
 * - Holds (checkHolds): each account's pendingFees, pendingSpotLoss, each
 *   balance's pendingOut and each position's pending quantity and cost
 *   (pq, pk) equal the sums over the matches still pending
 *   (state.pending), as exposure.ts addPending adds them and
 *   releasePending takes them back; each balance's reserved and each
 *   position's restBuy and restSell equal the sums over the resting orders
 *   (state.resting, holdResting). Exactly, and 0 for an account with no
 *   pending match and no resting order: a hold left behind keeps margin or
 *   balance from the account for good.
 * - After a liquidation step, no account but the pool that the step looked
 *   at is below its liquidation requirement: after a block, the accounts of
 *   its executions; after the summary tick, every holder of a perp market
 *   with fresh prices.
 *
 * From each liquidation pass's outcome (Exchange.observeLiquidations), what
 * the outputs cannot show, since the pass has moved the state before its
 * first output:
 * - Each liquidated account was below its requirement when judged
 *   (checkLiquidationJudgement): its settled margin balance and settled
 *   liquidation requirement, added up again from the positions, balances
 *   and funding claims it was judged on, give balance < requirement, and
 *   equal the running sums the trigger compared.
 * - Each ADL close (checkAdlClose) ranked every opposite position by
 *   unrealized PnL ratio at mark, (q x mark - k) / |k|, highest first, ties
 *   by accountId ascending, and took from each in that order
 *   min(what is left, |its q|), the liquidated leg then the counterparty's.
 */
import { InvariantError } from "../core/assert.ts";
import { formatE18, toE18 } from "../core/decimal.ts";
import { ACCOUNT_SUM_KEYS, auditAccountSums, openFundingClaims, openInterest } from "../risk/audit.ts";
import type { AdlClose, AdlQueueEntry } from "../risk/adl.ts";
import { divRound, E18, E36, formatE36, type Money, type Price, type Qty, type Rate, roundMoneyRatio } from "../risk/fixed.ts";
import type { LiquidationJudgement } from "../risk/liquidation.ts";
import { equitySettled } from "../risk/margin.ts";
import { perpPricesFresh } from "../risk/prices.ts";
import type { AccountState, BalanceState, PositionState, RiskState } from "../risk/state.ts";
import type { PerpExecution } from "../spec/execution.ts";

const FEE_PARTS = ["protocolFeeCredit", "referrerFeeCredit", "takerRebateCredit", "poolFeeCredit"] as const;

/** Fee v3 parts of a perp execution sum to its takerFee; executions other than ORDER_MATCH charge none. */
export function checkFeeParts(record: PerpExecution): void {
  const present = FEE_PARTS.filter((part) => record[part] !== undefined);
  if (record.type !== "ORDER_MATCH") {
    if (toE18(record.takerFee, "takerFee") !== 0n || present.length > 0) {
      throw new InvariantError(`fee parts of ${record.type} fill ${record.fillId}: takerFee "${record.takerFee}" with parts [${present.join(", ")}], but only an ORDER_MATCH pays a taker fee`);
    }
    return;
  }
  if (present.length !== FEE_PARTS.length) {
    throw new InvariantError(`fee parts of fill ${record.fillId}: ${FEE_PARTS.filter((part) => !present.includes(part)).join(", ")} missing on a Fee v3 ORDER_MATCH`);
  }
  let sum = 0n;
  for (const part of FEE_PARTS) sum += toE18(record[part]!, part);
  const takerFee = toE18(record.takerFee, "takerFee");
  if (sum !== takerFee) {
    const parts = FEE_PARTS.map((part) => `${part} "${record[part]}"`).join(" + ");
    throw new InvariantError(`fee parts of fill ${record.fillId} sum to "${formatE18(sum)}" but takerFee is "${record.takerFee}": ${parts} must equal takerFee`);
  }
}

/** Long = short open interest, settled and effective; settled long and short each equal to the sum over positions. */
export function checkOpenInterest(state: RiskState): void {
  for (const line of openInterest(state)) {
    const market = `open interest of market ${line.marketId}`;
    if (line.short !== line.shortFromPositions) throw new InvariantError(`${market}: short ${line.short} != sum of short positions ${line.shortFromPositions}`);
    if (line.long !== line.short) throw new InvariantError(`${market}: long ${line.long} != short ${line.short}`);
    if (line.long !== line.longFromPositions) throw new InvariantError(`${market}: long ${line.long} != sum of long positions ${line.longFromPositions}`);
    if (line.longEffective !== line.shortEffective) throw new InvariantError(`${market}: effective long ${line.longEffective} != effective short ${line.shortEffective}`);
  }
}

/** Funding claims of open positions + funding realized = -socialized (10^54). */
export function checkFunding(state: RiskState, atMicros: number): void {
  const claims = openFundingClaims(state, atMicros);
  if (claims + state.fundingRealized !== -state.socialized) {
    throw new InvariantError(
      `funding: open claims ${claims} + realized ${state.fundingRealized} != -socialized ${-state.socialized} (10^54): what longs pay must equal what shorts receive, less socialized losses`,
    );
  }
}

/**
 * Every account's running margin sums equal the sums recomputed from its
 * positions (audit.auditAccountSums). The audit is a pure function of the
 * kept sums and of what refreshPosition reads (each position's settled,
 * pending and resting figures, its market's mark, funding anchors and
 * rates), so an account none of these changed for since its last passing
 * audit passes again and is skipped: the result is the same, for less.
 */
export class AccountSums {
  private readonly inputs = new Map<number, unknown[]>();

  /** Checks every account; returns how many it audited. */
  check(state: RiskState): number {
    let audits = 0;
    for (const account of state.accounts.values()) {
      let seen = this.inputs.get(account.id);
      if (seen === undefined) {
        seen = [];
        this.inputs.set(account.id, seen);
      }
      if (recordInputs(account, seen)) continue;
      audits++;
      const { kept, recomputed } = auditAccountSums(account);
      for (let i = 0; i < kept.length; i++) {
        if (kept[i] !== recomputed[i]) {
          seen.length = 0; // audit it again next time
          throw new InvariantError(`running margin sum ${ACCOUNT_SUM_KEYS[i]} of account ${account.id} is ${kept[i]} but its positions give ${recomputed[i]}`);
        }
      }
      try {
        for (const position of account.positions.values()) checkPositionValuation(position);
      } catch (error) {
        seen.length = 0;
        throw error;
      }
    }
    return audits;
  }
}

/**
 * A position's settled contributions by the definitions of margin.ts's
 * header, written out rather than through refreshPosition: unrealized PnL
 * q x mark - k; initial and liquidation requirements |q| x mark x the
 * market's imRate and lmRate, rounded up (at cost |k| before any mark, with
 * no PnL).
 */
export function checkPositionValuation(position: PositionState): void {
  const { q, k, market } = position;
  const mark = market.mark;
  const { upnl, im, lm } = settledValuation(q, k, mark, market.config.imRate, market.config.lmRate);
  const figures = [
    ["unrealized PnL", position.upnlSC, upnl],
    ["initial requirement", position.imSC, im],
    ["liquidation requirement", position.lmSC, lm],
  ] as const;
  for (const [name, kept, expected] of figures) {
    if (kept !== expected) {
      throw new InvariantError(
        `settled ${name} of account ${position.account.id} in ${market.config.symbol} is ${kept} but q ${q} and cost ${k} at mark ${mark ?? "(none)"} give ${expected} (10^36; imRate ${formatE18(market.config.imRate)}, lmRate ${formatE18(market.config.lmRate)})`,
      );
    }
  }
}

/**
 * Unrealized PnL and the initial and liquidation requirements of quantity q
 * at cost k at `mark`, by the definitions (see checkPositionValuation).
 */
function settledValuation(q: Qty, k: Money, mark: Price | undefined, imRate: Rate, lmRate: Rate): { upnl: Money; im: Money; lm: Money } {
  let upnl = 0n;
  let notional = k < 0n ? -k : k;
  if (mark !== undefined && (q !== 0n || k !== 0n)) {
    upnl = q * mark - k;
    notional = q < 0n ? -q * mark : q * mark;
  }
  return { upnl, im: divRound(notional * imRate, E18, "ceil"), lm: divRound(notional * lmRate, E18, "ceil") };
}

/** Writes what the account's audit reads into `seen`; true when all of it was already there. */
function recordInputs(account: AccountState, seen: unknown[]): boolean {
  let changed = 0;
  let i = 0;
  for (const key of ACCOUNT_SUM_KEYS) changed |= put(seen, i++, account[key]);
  for (const position of account.positions.values()) {
    const market = position.market;
    const funding = market.funding;
    changed |= put(seen, i++, position);
    changed |= put(seen, i++, position.q);
    changed |= put(seen, i++, position.k);
    changed |= put(seen, i++, position.b);
    changed |= put(seen, i++, position.pq);
    changed |= put(seen, i++, position.pk);
    changed |= put(seen, i++, position.restBuy);
    changed |= put(seen, i++, position.restSell);
    changed |= put(seen, i++, market.config);
    changed |= put(seen, i++, market.mark);
    changed |= put(seen, i++, funding.anchorMicros);
    changed |= put(seen, i++, funding.slope);
    changed |= put(seen, i++, funding.longAnchor);
    changed |= put(seen, i++, funding.shortAnchor);
  }
  if (seen.length !== i) {
    seen.length = i;
    changed = 1;
  }
  return changed === 0;
}

/** Stores `value` at `seen[i]`: 1 when it differs from what was there, else 0. */
function put(seen: unknown[], i: number, value: unknown): number {
  if (seen[i] === value) return 0;
  seen[i] = value;
  return 1;
}

/**
 * No account but the pool left below its liquidation requirement after a
 * liquidation step, for the accounts that step examined at `atMicros`.
 * (Which ones: the risk layer looks at an account when a trade of its own,
 * a mark or funding change or a price of its markets or collateral touches
 * it, so funding accrued since then may take an account below its
 * requirement until the next look: by design, and not a violation.)
 *
 * After a block: the accounts of every execution at the block's time
 * (each flagged itself when applied; the block's step ran after them).
 * Returns how many accounts were checked.
 */
export function checkLiquidationStep(state: RiskState, accountIds: Iterable<number>, atMicros: number, step: string): number {
  let checked = 0;
  for (const accountId of accountIds) {
    const account = state.accounts.get(accountId);
    if (account === undefined || accountId === state.config.poolAccountId) continue;
    checked++;
    if (belowRequirement(account, atMicros)) throw belowAfterStep(account, atMicros, step);
  }
  return checked;
}

/**
 * After the summary tick, whose steps look again at every holder of every
 * perp market whose prices are fresh (feeds.refreshMark): each such holder.
 * Returns how many accounts were checked.
 */
export function checkLiquidationTick(state: RiskState, atMicros: number): number {
  const pool = state.config.poolAccountId;
  const seen = new Set<number>();
  for (const market of state.perps.values()) {
    if (market.closed || !perpPricesFresh(state, market, atMicros)) continue;
    for (const [accountId, position] of market.holders) {
      if (accountId === pool || seen.has(accountId)) continue;
      seen.add(accountId);
      if (belowRequirement(position.account, atMicros)) throw belowAfterStep(position.account, atMicros, "the summary tick");
    }
  }
  return seen.size;
}

/**
 * Settled margin balance below the settled liquidation requirement, with
 * positions held: the definition (margin.ts header), written out here
 * rather than through margin.isLiquidatable, the trigger the liquidation
 * step itself uses, so that a wrong trigger (one that reads the effective
 * requirement, say) does not pass its own check.
 */
function belowRequirement(account: AccountState, atMicros: number): boolean {
  return account.lmS > 0n && equitySettled(account, atMicros) < account.lmS;
}

function belowAfterStep(account: AccountState, atMicros: number, step: string): InvariantError {
  return new InvariantError(
    `account ${account.id} left below its liquidation requirement after the liquidation step of ${step}: margin balance ${equitySettled(account, atMicros)} < requirement ${account.lmS} (10^36)`,
  );
}

/**
 * The settled balances and positions of accounts as of the last output
 * that published a change of them (an execution naming the account, its
 * balances, a transfer of it). A bust must find its accounts unchanged.
 * Only accounts seen in a fill are followed.
 */
export class SettledAccounts {
  private readonly published = new Map<number, SettledView>();

  constructor(private readonly state: RiskState) {}

  /** Starts following an account (a fill of it was seen): its state now is as last published. */
  follow(accountId: number): void {
    if (!this.published.has(accountId)) this.take(accountId);
  }

  /** An output published a change of the account. */
  changed(accountId: number): void {
    if (this.published.has(accountId)) this.take(accountId);
  }

  /** A bust of fill `fillId` named this account: its settled state must be as last published. Returns 1 when compared, 0 for an account not followed. */
  checkUnchanged(accountId: number, fillId: string): number {
    const before = this.published.get(accountId);
    if (before === undefined) return 0;
    const now = settledView(this.state.accounts.get(accountId));
    if (sameView(before, now)) return 1;
    throw new InvariantError(`bust of fill ${fillId} changed the settled state of account ${accountId}: ${describeChange(before, now)}; a busted match leaves balances and positions as they were without it`);
  }

  private take(accountId: number): void {
    this.published.set(accountId, settledView(this.state.accounts.get(accountId)));
  }
}

/** Non-zero settled balances (asset, balance) then non-empty positions (marketId, q, k, b), flat. */
type SettledView = (string | number | bigint)[];

function settledView(account: AccountState | undefined): SettledView {
  const view: SettledView = [];
  if (account === undefined) return view;
  for (const [asset, balance] of account.balances) if (balance.balance !== 0n) view.push(asset, balance.balance);
  for (const [marketId, position] of account.positions) {
    if (position.q !== 0n || position.k !== 0n || position.b !== 0n) view.push(marketId, position.q, position.k, position.b);
  }
  return view;
}

function sameView(a: SettledView, b: SettledView): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** "balance rUSD 5 -> 4, position 1 q 0 -> 2, ..." (only the figures that differ). */
function describeChange(before: SettledView, after: SettledView): string {
  const figures = (view: SettledView) => {
    const map = new Map<string, bigint>();
    let i = 0;
    while (i < view.length && typeof view[i] === "string") {
      map.set(`balance ${String(view[i])}`, view[i + 1] as bigint);
      i += 2;
    }
    for (; i < view.length; i += 4) {
      const market = String(view[i]);
      map.set(`position ${market} q`, view[i + 1] as bigint);
      map.set(`position ${market} k`, view[i + 2] as bigint);
      map.set(`position ${market} b`, view[i + 3] as bigint);
    }
    return map;
  };
  const a = figures(before);
  const b = figures(after);
  const changes: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key) ?? 0n;
    const y = b.get(key) ?? 0n;
    if (x !== y) changes.push(`${key} ${x} -> ${y}`);
  }
  return changes.join(", ");
}

/** The takerFee of each perp ORDER_MATCH against the configured tiers' taker rates (see the header). */
export class FeeRates {
  private readonly rates: readonly bigint[];

  constructor(private readonly state: RiskState) {
    this.rates = [...new Set(state.config.feeTiers.map((tier) => tier.takerRate))];
  }

  check(record: PerpExecution): void {
    if (record.type !== "ORDER_MATCH") return;
    const fee = toE18(record.takerFee, "takerFee") * E18;
    const notional = toE18(record.qty, "qty") * toE18(record.price, "price");
    const unit = this.state.settlement.config.unit;
    for (const rate of this.rates) if (roundMoneyRatio(notional * rate, E18, unit) === fee) return;
    throw new InvariantError(
      `takerFee "${record.takerFee}" of fill ${record.fillId} (${record.qty} at ${record.price}) is not qty x price x the taker rate of any fee tier (${this.rates.map((rate) => formatE18(rate)).join(", ")}), rounded to the settlement asset's decimals`,
    );
  }
}

/** The funding rate of every open perp market with fresh prices against its mark and index (see the header). */
export function checkFundingRates(state: RiskState, atMicros: number): number {
  let checked = 0;
  for (const market of state.perps.values()) {
    const mark = market.mark;
    const index = market.indexAsset.index?.price;
    if (market.closed || mark === undefined || index === undefined || index <= 0n || !perpPricesFresh(state, market, atMicros)) continue;
    checked++;
    const rate = market.funding.rate;
    const cap = market.config.fundingRateCap;
    const premium = (mark - index) * E18; // rate x index, unclamped and unrounded
    const expected = premium >= cap * index ? cap : premium <= -cap * index ? -cap : undefined;
    const off = rate * index - premium;
    if (expected === undefined ? 2n * (off < 0n ? -off : off) > index : rate !== expected) {
      throw new InvariantError(
        `funding rate of ${market.config.symbol} is ${formatE18(rate)} with mark ${formatE18(mark)} and index ${formatE18(index)}: the rate is (mark - index) / index clamped to +-${formatE18(cap)}`,
      );
    }
  }
  return checked;
}

/**
 * A liquidated account was below its liquidation requirement when the pass
 * judged it: settled margin balance < settled liquidation requirement, with
 * positions held (margin.ts's header; the trigger is margin.isLiquidatable).
 * Both are added up again from the raw figures the judgement carries, by
 * their definitions: the requirement as the sum of |q| x mark x lmRate
 * (rounded up, per position), the margin balance as settlement balance +
 * collateral value (amount x index x (1 - priceHaircut), rounded down; a
 * negative amount at the full index) + sum of q x mark - k + the funding
 * claims rounded down. They must also be the running sums the trigger
 * compared. A trigger that reads another figure (the effective requirement
 * lm, which pending fills raise) liquidates early, and this reports it;
 * the after-step checks only see an account left below.
 */
export function checkLiquidationJudgement(state: RiskState, judgement: LiquidationJudgement): void {
  const { accountId } = judgement;
  let upnl = 0n;
  let requirement = 0n;
  for (const position of judgement.positions) {
    const market = state.perps.get(position.marketId);
    if (market === undefined) throw new InvariantError(`account ${accountId} was liquidated holding a position in market ${position.marketId}, which does not exist`);
    const valued = settledValuation(position.q, position.k, position.mark, market.config.imRate, market.config.lmRate);
    upnl += valued.upnl;
    requirement += valued.lm;
  }
  let collateral = 0n;
  for (const held of judgement.collateral) {
    const asset = state.assets.get(held.asset);
    if (asset === undefined) throw new InvariantError(`account ${accountId} was liquidated holding ${held.asset}, which is not an asset`);
    if (held.index === undefined) continue;
    collateral += held.amount > 0n ? (held.amount * held.index * (E18 - asset.config.priceHaircut)) / E36 : divRound(held.amount * held.index, E18, "floor");
  }
  const balance = judgement.settlementBalance + collateral + upnl + divRound(judgement.fundingClaims, E18, "floor");
  if (requirement !== judgement.requirement || balance !== judgement.marginBalance) {
    throw new InvariantError(
      `account ${accountId} was liquidated on a settled margin balance of ${judgement.marginBalance} and requirement ${judgement.requirement} (10^36, the running sums), but its positions, balances and funding then give ${balance} and ${requirement}`,
    );
  }
  if (!(requirement > 0n && balance < requirement)) {
    throw new InvariantError(
      `account ${accountId} was liquidated with a settled margin balance of ${formatE36(balance)}, not below its settled liquidation requirement ${formatE36(requirement)}: an account is liquidated only when its settled margin balance is below it`,
    );
  }
}

/**
 * An ADL close ranked the whole opposite side and took from it in rank
 * order (the rule of src/risk/adl.ts's header; spec 3.5.2 names ADL as an
 * execution type and says it may move a side's funding value, but states
 * no ranking):
 * - the queue is every opposite position: each on the other side of the
 *   liquidated one, not the liquidated account, their sizes summing to the
 *   opposite open interest;
 * - its ratios, worked out from each entry's q and k at the mark it was
 *   ranked at as (q x mark - k) / |k|, do not increase along the queue;
 *   equal ones by accountId ascending (compared as a.pnl x |b.k| against
 *   b.pnl x |a.k|, exact);
 * - the executions are, per counterparty in queue order, the liquidated
 *   leg then the counterparty's, each of min(what is still open, |q| of
 *   the counterparty), until the liquidated position is closed.
 * Returns the number of queue entries checked.
 */
export function checkAdlClose(state: RiskState, close: AdlClose): number {
  const market = state.perps.get(close.marketId);
  const symbol = market?.config.symbol ?? `market ${close.marketId}`;
  const at = `ADL of account ${close.liquidatedAccountId} on ${symbol}`;
  const long = close.q > 0n;
  if (close.q === 0n) throw new InvariantError(`${at}: the liquidated position was empty`);
  let size = 0n;
  for (const entry of close.queue) {
    if (entry.accountId === close.liquidatedAccountId || (long ? entry.q >= 0n : entry.q <= 0n)) {
      throw new InvariantError(`${at}: the queue holds account ${entry.accountId} with q ${formatE18(entry.q)}, not a position opposite the liquidated ${formatE18(close.q)}`);
    }
    size += long ? -entry.q : entry.q;
  }
  if (size !== close.oppositeOi) {
    throw new InvariantError(`${at}: the queue's positions sum to ${formatE18(size)} but the opposite open interest was ${formatE18(close.oppositeOi)}: the queue is every opposite position`);
  }
  // The ratios are worked out here from each entry's q and k and the close's mark, the figures recorded as the
  // positions stood. The entries' own pnl and entryNotional are not read: adl.ts fills them in with this same
  // formula from those same fields, so comparing them with it could only catch that one line disagreeing with itself.
  const ratio = (entry: AdlQueueEntry) => ({ pnl: entry.q * close.mark - entry.k, entry: entry.k < 0n ? -entry.k : entry.k });
  for (let i = 1; i < close.queue.length; i++) {
    const a = close.queue[i - 1]!;
    const b = close.queue[i]!;
    const ra = ratio(a);
    const rb = ratio(b);
    const left = ra.pnl * rb.entry;
    const right = rb.pnl * ra.entry;
    if (left > right || (left === right && a.accountId < b.accountId)) continue;
    throw new InvariantError(
      `${at}: account ${a.accountId} (PnL ${formatE36(ra.pnl)} over entry ${formatE36(ra.entry)}) ranked before account ${b.accountId} (PnL ${formatE36(rb.pnl)} over entry ${formatE36(rb.entry)}): ADL takes the highest PnL ratio (q x mark - k) / |k| at mark first, ties by accountId ascending`,
    );
  }
  let remaining = long ? close.q : -close.q;
  let e = 0;
  for (const entry of close.queue) {
    if (remaining === 0n) break;
    const held = entry.q < 0n ? -entry.q : entry.q;
    const take = held < remaining ? held : remaining;
    for (const [accountId, side] of [[close.liquidatedAccountId, long ? "A" : "B"], [entry.accountId, long ? "B" : "A"]] as const) {
      const execution = close.executions[e++];
      if (execution === undefined) throw new InvariantError(`${at}: the close ends before account ${entry.accountId}'s leg, with ${formatE18(remaining)} still open`);
      const record = execution.record;
      const qty = toE18(record.qty, "qty");
      if (record.type !== "ADL" || record.takerAccountId !== accountId || record.side !== side || qty !== take) {
        throw new InvariantError(
          `${at}: fill ${record.fillId} is ${record.type} of account ${record.takerAccountId} ${record.side} ${record.qty}, but the queue gives ADL of account ${accountId} ${side} ${formatE18(take)} (account ${entry.accountId} holds ${formatE18(held)}, ${formatE18(remaining)} left to close)`,
        );
      }
    }
    remaining -= take;
  }
  if (remaining !== 0n || e !== close.executions.length) {
    throw new InvariantError(`${at}: ${close.executions.length} executions for a queue that closes the position in ${e}, with ${formatE18(remaining)} left open`);
  }
  return close.queue.length;
}

/** What the pending matches and resting orders hold, per account, balance and position (checkHolds). */
interface Holds {
  fees: Map<AccountState, Money>;
  spotLoss: Map<AccountState, Money>;
  /** pendingOut then reserved, per balance. */
  balances: Map<BalanceState, [Money, Money]>;
  /** pq, pk, restBuy, restSell per account, then marketId. */
  positions: Map<AccountState, Map<number, [Qty, Money, Qty, Qty]>>;
}

function add<K>(map: Map<K, Money>, key: K, amount: Money): void {
  if (amount !== 0n) map.set(key, (map.get(key) ?? 0n) + amount);
}

function balanceHold(holds: Holds, balance: BalanceState): [Money, Money] {
  let hold = holds.balances.get(balance);
  if (hold === undefined) {
    hold = [0n, 0n];
    holds.balances.set(balance, hold);
  }
  return hold;
}

function positionHold(holds: Holds, account: AccountState, marketId: number): [Qty, Money, Qty, Qty] {
  let markets = holds.positions.get(account);
  if (markets === undefined) {
    markets = new Map();
    holds.positions.set(account, markets);
  }
  let hold = markets.get(marketId);
  if (hold === undefined) {
    hold = [0n, 0n, 0n, 0n];
    markets.set(marketId, hold);
  }
  return hold;
}

const POSITION_HOLDS = ["pq (pending quantity)", "pk (pending cost)", "restBuy", "restSell"] as const;

/**
 * Every hold an account carries for exposure that is not settled equals
 * what the pending matches and resting orders add up to (see the header):
 * from state.pending, the taker's fee reserve (perp: pendingFees), both
 * sides' pending quantity and cost (perp: pq, pk), the outflows owed (spot:
 * each balance's pendingOut) and the margin each side loses (spot:
 * pendingSpotLoss); from state.resting, each resting spot order's reserved
 * quote (a buy: qty x price) or base (a sell: qty), each resting perp
 * order's restBuy or restSell. Exact (bigint), O(accounts + balances +
 * positions + pending + resting) per state check; the messages are made
 * only on failure. Returns how many accounts were compared.
 */
export function checkHolds(state: RiskState): number {
  const holds: Holds = { fees: new Map(), spotLoss: new Map(), balances: new Map(), positions: new Map() };
  for (const pending of state.pending.values()) {
    if (state.perps.has(pending.marketId)) {
      add(holds.fees, pending.taker, pending.takerFee);
      const cost = pending.takerDelta * pending.price;
      const taker = positionHold(holds, pending.taker, pending.marketId);
      taker[0] += pending.takerDelta;
      taker[1] += cost;
      const maker = positionHold(holds, pending.maker, pending.marketId);
      maker[0] -= pending.takerDelta;
      maker[1] -= cost;
    } else {
      for (const outflow of pending.outflows) balanceHold(holds, outflow.balance)[0] += outflow.amount;
      add(holds.spotLoss, pending.taker, pending.takerSpotLoss);
      add(holds.spotLoss, pending.maker, pending.makerSpotLoss);
    }
  }
  for (const order of state.resting.values()) {
    const spot = state.spots.get(order.marketId);
    if (spot === undefined) {
      positionHold(holds, order.account, order.marketId)[order.side === "B" ? 2 : 3] += order.qty;
    } else if (order.side === "B") {
      const balance = order.account.balances.get(spot.quote.config.symbol);
      if (balance === undefined) throw new InvariantError(`resting order ${order.orderId} of account ${order.account.id} buys ${spot.config.symbol} but the account has no ${spot.quote.config.symbol} balance to hold its quote in`);
      balanceHold(holds, balance)[1] += order.qty * order.price;
    } else {
      const balance = order.account.balances.get(spot.base.config.symbol);
      if (balance === undefined) throw new InvariantError(`resting order ${order.orderId} of account ${order.account.id} sells ${spot.config.symbol} but the account has no ${spot.base.config.symbol} balance to hold its base in`);
      balanceHold(holds, balance)[1] += order.qty * E18;
    }
  }
  let balancesSeen = 0;
  let positionsSeen = 0;
  for (const account of state.accounts.values()) {
    const fees = holds.fees.get(account) ?? 0n;
    if (account.pendingFees !== fees) throw holdError(state, account, "pendingFees (the taker fee reserve of its pending perp matches)", account.pendingFees, fees);
    const spotLoss = holds.spotLoss.get(account) ?? 0n;
    if (account.pendingSpotLoss !== spotLoss) throw holdError(state, account, "pendingSpotLoss (the margin its pending spot matches take)", account.pendingSpotLoss, spotLoss);
    for (const [asset, balance] of account.balances) {
      const hold = holds.balances.get(balance);
      if (hold !== undefined) balancesSeen++;
      if (balance.pendingOut !== (hold?.[0] ?? 0n)) throw holdError(state, account, `${asset} pendingOut (the outflows its pending spot matches owe)`, balance.pendingOut, hold?.[0] ?? 0n);
      if (balance.reserved !== (hold?.[1] ?? 0n)) throw holdError(state, account, `${asset} reserved (what its resting spot orders hold)`, balance.reserved, hold?.[1] ?? 0n);
    }
    const markets = holds.positions.get(account);
    for (const [marketId, position] of account.positions) {
      const hold = markets?.get(marketId);
      if (hold !== undefined) positionsSeen++;
      const kept = [position.pq, position.pk, position.restBuy, position.restSell];
      for (let i = 0; i < kept.length; i++) {
        if (kept[i] !== (hold?.[i] ?? 0n)) throw holdError(state, account, `${POSITION_HOLDS[i]} in ${position.market.config.symbol}`, kept[i]!, hold?.[i] ?? 0n);
      }
    }
  }
  if (balancesSeen !== holds.balances.size) {
    for (const [balance, hold] of holds.balances) {
      const owner = [...state.accounts.values()].find((account) => account.balances.get(balance.asset.config.symbol) === balance);
      if (owner === undefined && (hold[0] !== 0n || hold[1] !== 0n)) throw new InvariantError(`pending matches or resting orders hold ${hold[0]} (pendingOut) and ${hold[1]} (reserved) of a ${balance.asset.config.symbol} balance that no account holds (10^36): its hold is lost`);
    }
  }
  if (positionsSeen !== [...holds.positions.values()].reduce((sum, markets) => sum + markets.size, 0)) {
    for (const [account, markets] of holds.positions) {
      for (const [marketId, hold] of markets) {
        // Opposite pending matches can net to nothing: a position holding nothing is dropped (margin.ts isEmptyPosition).
        if (!account.positions.has(marketId) && hold.some((figure) => figure !== 0n)) throw new InvariantError(`account ${account.id} has no position record in market ${marketId}, but its pending matches and resting orders hold pq ${hold[0]}, pk ${hold[1]}, restBuy ${hold[2]}, restSell ${hold[3]} there`);
      }
    }
  }
  return state.accounts.size;
}

function holdError(state: RiskState, account: AccountState, what: string, kept: bigint, expected: bigint): InvariantError {
  const fills = [...state.pending.values()].filter((pending) => pending.taker === account || pending.maker === account).map((pending) => pending.fillId);
  return new InvariantError(
    `account ${account.id} holds ${what} ${kept} but ${fills.length === 0 ? "it has no pending match" : `its pending matches (fills ${fills.join(", ")})`} and its resting orders add up to ${expected} (10^36 money, 10^18 quantities): a settled or busted match, and a filled or removed order, releases exactly what it held`,
  );
}
