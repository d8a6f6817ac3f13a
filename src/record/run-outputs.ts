/**
 * The run recorder: a RunObserver that writes the run's outputs as Arrow
 * IPC files (the file format, `.arrow`) into an output directory, for the
 * notebooks and any Arrow reader (pyarrow, polars, DuckDB, apache-arrow).
 *
 * Columnar and batched: every file is a set of plain column arrays (typed
 * arrays for numbers) cut into a RecordBatch every `batchRows` rows (default
 * 65,536) with makeData (see columns.ts). With `stream` (what `shadowbook
 * run --out` uses), each file is opened when the run begins and each batch
 * written to it as it fills, so a long run holds one batch per file, not
 * its outputs (the default hour's outputs are ~40 MB of columns); `write()`
 * then writes the last rows and the footers. Without it, the batches stay
 * in memory until `write()` writes the files at the end of the run. Both
 * give the same bytes: every dictionary is seeded with its whole
 * vocabulary (the run's markets, agents and assets, the spec's enums), so
 * no file needs a dictionary delta.
 *
 * Types, for every file:
 * - `time` is Timestamp(ms, UTC): the record's own time for events
 *   (execution, bust and ledger entry `timestamp`, order `lastUpdateAt`),
 *   the virtual sample time for sampled files;
 * - prices, quantities and money are Float64 *analysis* columns, parsed from
 *   the wire decimals (Number(text), correctly rounded to the nearest
 *   double). They are for plots and statistics, not for accounting: the
 *   exact decimals stay in the wire records (the REST reads, the streams,
 *   the input log replay) and summary.json sums money exactly;
 * - ids that are uint64 on the wire (orderId, fillId, clientOrderId, the
 *   ledger entry id) are Utf8; account ids are Int32, sequence numbers Int64;
 * - symbols, agent names, assets and enums are Dictionary<Int32, Utf8>;
 * - an absent optional wire field is null.
 * `agent` is the scenario's agent name owning the account, "(pool)" for the
 * backstop pool account, null for any other account.
 *
 * Files and columns:
 *
 * executions.arrow: one row per settled execution, perp and spot, every
 *   type (ORDER_MATCH, LIQUIDATION, ADL, MARKET_CLOSE), in output order.
 *   time, symbol, market ("perp" | "spot"), type, fillId, sequenceNumber,
 *   side (taker side, "B" | "A"), price (quote per base unit), qty (base
 *   units), notional (price x qty, quote units: the double nearest the
 *   exact product), takerAccountId, takerAgent, takerOrderId,
 *   makerAccountId, makerAgent, makerOrderId (maker fields null on ADL and
 *   MARKET_CLOSE), feeAsset (settlement asset for perps, quote asset for
 *   spot), takerFee (gross, positive = the taker paid), takerRebateCredit,
 *   protocolFeeCredit, referrerFeeCredit, poolFeeCredit (the parts of
 *   takerFee; the taker's net fee is takerFee - takerRebateCredit, as
 *   summary.json's fees count it), makerFee (negative = rebate),
 *   takerRealizedPnl, makerRealizedPnl (price variation + funding, on a
 *   closing leg), takerFundingPnl, makerFundingPnl (positive = received).
 *   takerFee is in feeAsset; the columns after it (perp only: null on spot
 *   executions, and when absent from the record) in the settlement asset.
 *   An ADL is two one-sided rows (the liquidated leg, then its
 *   counterparty's), each with the account as taker.
 *
 * busts.arrow: one row per busted match.
 *   time (chain block time), symbol, market, fillId, sequenceNumber, side,
 *   price, qty, takerAccountId, takerAgent, takerOrderId, makerAccountId,
 *   makerAgent, makerOrderId, reasonName, reasonAccountId (the account
 *   the reason names, when it names one: its accountId, or an unmodeled
 *   reason's args.accountId), reason (the reason object as JSON text).
 *   A busted match is not in executions.arrow.
 *
 * orders.arrow: one row per order update (orderChanges rows, and the
 *   history-only rows of IOC takers), every account.
 *   time (lastUpdateAt), createdAt, symbol, accountId, agent, orderId,
 *   clientOrderId, sequenceNumber, side, orderType, timeInForce, status,
 *   limitPx, triggerPx, qty, cumQty, execQty, fillCount, firstFillId,
 *   reduceOnly, postOnly, triggered, expiresAfterSec (Int64, the GTT
 *   expiry in Unix seconds, as the wire's expiresAfter), cancelReason,
 *   onOrderChanges (false for history-only rows). status, cumQty, execQty
 *   are the matching engine's: they count busted matches too (spec 3.4:
 *   FILLED is never corrected); busts.arrow names both orders of each
 *   busted match (takerOrderId, makerOrderId), so settled filled qty is
 *   cumQty less those busts' qty.
 *
 * ledger.arrow: one row per account ledger entry (spec 2.20 Transfer, as
 *   the transfers stream and REST /v2/wallet/{address}/transfers carry
 *   it: one entry per account side of each on-chain leg, zero-amount legs
 *   never recorded), every account, in the order the ledger recorded them
 *   (id increasing). Every balance change is one entry: an account's
 *   amounts of an asset sum to its realBalance (from zero: the setup
 *   deposits are entries too).
 *   time (the entry's timestamp), id (the entry id, unique across all
 *   accounts, increasing with time), accountId, agent, type (the
 *   TransferType: DEPOSIT, WITHDRAWAL, TRANSFER_IN, TRANSFER_OUT, STAKE,
 *   UNSTAKE, SPOT_LEG, PERP_FEE, PERP_REBATE, REALIZED_PNL, FUNDING,
 *   LIQUIDATION_PENALTY, COLLATERAL_LIQUIDATION, SOCIALIZED_LOSS, see
 *   spec/enums.ts), asset, amount (in `asset` units, signed: positive
 *   credits the account, negative debits it; never 0), netDepositsAfter
 *   (the account's net deposits of `asset` after the entry, the
 *   balanceDEPRECATED of balances.arrow: moved only by DEPOSIT,
 *   WITHDRAWAL, TRANSFER_IN and TRANSFER_OUT, repeated by the other
 *   types), counterpartyAccountId, counterpartyAgent (the other account:
 *   of a TRANSFER_IN/OUT, of a SPOT_LEG between the two sides, the taker
 *   for the pool's or a referrer's PERP_REBATE, the pool for a
 *   liquidated account's LIQUIDATION_PENALTY, COLLATERAL_LIQUIDATION and
 *   pool-covered SOCIALIZED_LOSS and the account for the pool's; null
 *   when none), fillId (the execution the entry settles: REALIZED_PNL,
 *   FUNDING, PERP_FEE, PERP_REBATE and SPOT_LEG entries; null otherwise).
 *   A perp ORDER_MATCH's taker has a PERP_FEE of -takerFee and a
 *   PERP_REBATE of +takerRebateCredit, the pool (counterparty: the
 *   taker) a PERP_REBATE of +poolFeeCredit, a referrer one of
 *   +referrerFeeCredit; a spot taker's fee is a SPOT_LEG of -takerFee in
 *   the quote asset without counterparty; a busted match has no entry.
 *
 * positions.arrow: at each sample, one row per agent and perp market
 *   (qty 0 when flat). time, agent, accountId, symbol, qty (signed: long
 *   positive), avgEntryPrice (null when flat), markPrice, notional
 *   (qty x mark), unrealizedPnl, unrealizedFunding (see sampler.ts).
 *
 * balances.arrow: at each sample, one row per agent and asset held.
 *   time, agent, accountId, asset, realBalance, netDeposits
 *   (balanceDEPRECATED), price (index; 1 for the settlement asset), value
 *   (realBalance x price, rUSD).
 *
 * equity.arrow: at each sample, one row per agent. time, agent, accountId,
 *   equity (mark-to-market, rUSD, see sampler.ts), unrealizedPnl,
 *   unrealizedFunding, marginBalance, initialMargin, liquidationMargin (the
 *   Exchange's margin figures).
 *
 * prices.arrow: at each sample, one row per market. time, symbol, market,
 *   indexPrice (index of the perp's index asset or the spot base asset),
 *   oraclePrice, markPrice, fundingRate (hourly, percent, as the market
 *   summary publishes it), openInterest (base units), longFundingValue,
 *   shortFundingValue, bestBid, bestAsk (null where absent or stale, and
 *   for spot where not applicable): the Exchange's values at the sample
 *   time, those positions.arrow and equity.arrow are valued at
 *   (sampler.ts), not the last published summary's.
 *
 * depth.arrow: at each sample, the top `depthLevels` (default 10) levels of
 *   each side of each market. time, symbol, side ("bid" | "ask"), level
 *   (0 = best), price, qty.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatScaled, toE18 } from "../core/decimal.ts";
import type { Micros } from "../core/time.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import type { Transfer } from "../spec/account.ts";
import type { RunObserver, RunSetup } from "../sim/run.ts";
import type { ExecutionBust } from "../spec/bust.ts";
import { CANCEL_REASONS, EXECUTION_TYPES, ORDER_STATUSES, ORDER_TYPES, TIME_IN_FORCES, TRANSFER_TYPES } from "../spec/enums.ts";
import type { PerpExecution, SpotExecution } from "../spec/execution.ts";
import { BoolColumn, ColumnTable, DEFAULT_BATCH_ROWS, DictColumn, F64Column, I32Column, I64Column, TimeColumn, Utf8Column, type Column } from "./columns.ts";
import { RunSampler } from "./sampler.ts";

/** An order update row, as the "order" output carries it. */
type WireOrder = Extract<ExchangeOutput, { kind: "order" }>["row"];

/** The agent name of the backstop pool account. */
export const POOL_AGENT = "(pool)";

export const RUN_OUTPUT_FILES = ["executions", "busts", "orders", "ledger", "positions", "balances", "equity", "prices", "depth"] as const;
export type RunOutputFile = (typeof RUN_OUTPUT_FILES)[number];

export interface RunOutputsOptions {
  /** Rows per RecordBatch (default 65,536). */
  readonly batchRows?: number;
  /** Depth levels per side sampled (default 10); ignored when `sampler` is given. */
  readonly depthLevels?: number;
  /** A sampler shared with other observers (the summary), so each sample is read once. */
  readonly sampler?: RunSampler;
  /** Open the files in `outDir` when the run begins and write each batch as it fills (default false: all at `write()`). */
  readonly stream?: boolean;
}

const SIDES = ["B", "A"];
const MARKET_KINDS = ["perp", "spot"];
/** The spec's modeled bust reasons, then the unmodeled ones the risk layer reports (risk/pretrade.ts validateMatch): every name a run can bust with. */
const BUST_REASONS = ["AccountBelowIM", "InsufficientBalance", "SignatureExpired", "MarketPaused", "DecodedReason", "UnknownReason", "ReduceOnlyViolation", "OpenInterestCapExceeded"];

/** Names, accounts and assets of a run: the dictionary seeds and the agent lookup. */
interface RunVocabulary {
  readonly symbols: string[];
  readonly agents: string[];
  readonly assets: string[];
  readonly agentOf: Map<number, string>;
  readonly kindOf: Map<string, "perp" | "spot">;
  readonly feeAssetOf: Map<string, string>;
}

function vocabularyOf(setup: RunSetup): RunVocabulary {
  const risk = setup.config.risk;
  const agentOf = new Map<number, string>();
  agentOf.set(risk.poolAccountId, POOL_AGENT);
  for (const agent of setup.agents) agentOf.set(agent.accountId, agent.name);
  const kindOf = new Map<string, "perp" | "spot">();
  const feeAssetOf = new Map<string, string>();
  for (const m of risk.perpMarkets) {
    kindOf.set(m.symbol, "perp");
    feeAssetOf.set(m.symbol, risk.settlementAsset);
  }
  for (const m of risk.spotMarkets) {
    kindOf.set(m.symbol, "spot");
    feeAssetOf.set(m.symbol, m.quoteAsset);
  }
  return {
    symbols: [...kindOf.keys()],
    agents: [...setup.agents.map((a) => a.name), POOL_AGENT],
    assets: risk.assets.map((a) => a.asset),
    agentOf,
    kindOf,
    feeAssetOf,
  };
}

/** Makes a table from named columns; `t.c.<name>` pushes, `t.end()` closes the row. */
function table<C extends Record<string, Column>>(name: string, columns: C, batchRows: number): { c: C; t: ColumnTable } {
  return { c: columns, t: new ColumnTable(name, Object.values(columns), batchRows) };
}

function executionsTable(v: RunVocabulary, batchRows: number) {
  return table(
    "executions",
    {
      time: new TimeColumn("time"),
      symbol: new DictColumn("symbol", v.symbols),
      market: new DictColumn("market", MARKET_KINDS),
      type: new DictColumn("type", EXECUTION_TYPES),
      fillId: new Utf8Column("fillId"),
      sequenceNumber: new I64Column("sequenceNumber"),
      side: new DictColumn("side", SIDES),
      price: new F64Column("price"),
      qty: new F64Column("qty"),
      notional: new F64Column("notional"),
      takerAccountId: new I32Column("takerAccountId"),
      takerAgent: new DictColumn("takerAgent", v.agents),
      takerOrderId: new Utf8Column("takerOrderId"),
      makerAccountId: new I32Column("makerAccountId"),
      makerAgent: new DictColumn("makerAgent", v.agents),
      makerOrderId: new Utf8Column("makerOrderId"),
      feeAsset: new DictColumn("feeAsset", v.assets),
      takerFee: new F64Column("takerFee"),
      takerRebateCredit: new F64Column("takerRebateCredit"),
      protocolFeeCredit: new F64Column("protocolFeeCredit"),
      referrerFeeCredit: new F64Column("referrerFeeCredit"),
      poolFeeCredit: new F64Column("poolFeeCredit"),
      makerFee: new F64Column("makerFee"),
      takerRealizedPnl: new F64Column("takerRealizedPnl"),
      makerRealizedPnl: new F64Column("makerRealizedPnl"),
      takerFundingPnl: new F64Column("takerFundingPnl"),
      makerFundingPnl: new F64Column("makerFundingPnl"),
    },
    batchRows,
  );
}

function bustsTable(v: RunVocabulary, batchRows: number) {
  return table(
    "busts",
    {
      time: new TimeColumn("time"),
      symbol: new DictColumn("symbol", v.symbols),
      market: new DictColumn("market", MARKET_KINDS),
      fillId: new Utf8Column("fillId"),
      sequenceNumber: new I64Column("sequenceNumber"),
      side: new DictColumn("side", SIDES),
      price: new F64Column("price"),
      qty: new F64Column("qty"),
      takerAccountId: new I32Column("takerAccountId"),
      takerAgent: new DictColumn("takerAgent", v.agents),
      takerOrderId: new Utf8Column("takerOrderId"),
      makerAccountId: new I32Column("makerAccountId"),
      makerAgent: new DictColumn("makerAgent", v.agents),
      makerOrderId: new Utf8Column("makerOrderId"),
      reasonName: new DictColumn("reasonName", BUST_REASONS),
      reasonAccountId: new I32Column("reasonAccountId"),
      reason: new Utf8Column("reason"),
    },
    batchRows,
  );
}

function ordersTable(v: RunVocabulary, batchRows: number) {
  return table(
    "orders",
    {
      time: new TimeColumn("time"),
      createdAt: new TimeColumn("createdAt"),
      symbol: new DictColumn("symbol", v.symbols),
      accountId: new I32Column("accountId"),
      agent: new DictColumn("agent", v.agents),
      orderId: new Utf8Column("orderId"),
      clientOrderId: new Utf8Column("clientOrderId"),
      sequenceNumber: new I64Column("sequenceNumber"),
      side: new DictColumn("side", SIDES),
      orderType: new DictColumn("orderType", ORDER_TYPES),
      timeInForce: new DictColumn("timeInForce", TIME_IN_FORCES),
      status: new DictColumn("status", ORDER_STATUSES),
      limitPx: new F64Column("limitPx"),
      triggerPx: new F64Column("triggerPx"),
      qty: new F64Column("qty"),
      cumQty: new F64Column("cumQty"),
      execQty: new F64Column("execQty"),
      fillCount: new I32Column("fillCount"),
      firstFillId: new Utf8Column("firstFillId"),
      reduceOnly: new BoolColumn("reduceOnly"),
      postOnly: new BoolColumn("postOnly"),
      triggered: new BoolColumn("triggered"),
      expiresAfterSec: new I64Column("expiresAfterSec"),
      cancelReason: new DictColumn("cancelReason", CANCEL_REASONS),
      onOrderChanges: new BoolColumn("onOrderChanges"),
    },
    batchRows,
  );
}

function ledgerTable(v: RunVocabulary, batchRows: number) {
  return table(
    "ledger",
    {
      time: new TimeColumn("time"),
      id: new Utf8Column("id"),
      accountId: new I32Column("accountId"),
      agent: new DictColumn("agent", v.agents),
      type: new DictColumn("type", TRANSFER_TYPES),
      asset: new DictColumn("asset", v.assets),
      amount: new F64Column("amount"),
      netDepositsAfter: new F64Column("netDepositsAfter"),
      counterpartyAccountId: new I32Column("counterpartyAccountId"),
      counterpartyAgent: new DictColumn("counterpartyAgent", v.agents),
      fillId: new Utf8Column("fillId"),
    },
    batchRows,
  );
}

function sampledTables(v: RunVocabulary, batchRows: number) {
  return {
    positions: table(
      "positions",
      {
        time: new TimeColumn("time"),
        agent: new DictColumn("agent", v.agents),
        accountId: new I32Column("accountId"),
        symbol: new DictColumn("symbol", v.symbols),
        qty: new F64Column("qty"),
        avgEntryPrice: new F64Column("avgEntryPrice"),
        markPrice: new F64Column("markPrice"),
        notional: new F64Column("notional"),
        unrealizedPnl: new F64Column("unrealizedPnl"),
        unrealizedFunding: new F64Column("unrealizedFunding"),
      },
      batchRows,
    ),
    balances: table(
      "balances",
      {
        time: new TimeColumn("time"),
        agent: new DictColumn("agent", v.agents),
        accountId: new I32Column("accountId"),
        asset: new DictColumn("asset", v.assets),
        realBalance: new F64Column("realBalance"),
        netDeposits: new F64Column("netDeposits"),
        price: new F64Column("price"),
        value: new F64Column("value"),
      },
      batchRows,
    ),
    equity: table(
      "equity",
      {
        time: new TimeColumn("time"),
        agent: new DictColumn("agent", v.agents),
        accountId: new I32Column("accountId"),
        equity: new F64Column("equity"),
        unrealizedPnl: new F64Column("unrealizedPnl"),
        unrealizedFunding: new F64Column("unrealizedFunding"),
        marginBalance: new F64Column("marginBalance"),
        initialMargin: new F64Column("initialMargin"),
        liquidationMargin: new F64Column("liquidationMargin"),
      },
      batchRows,
    ),
    prices: table(
      "prices",
      {
        time: new TimeColumn("time"),
        symbol: new DictColumn("symbol", v.symbols),
        market: new DictColumn("market", MARKET_KINDS),
        indexPrice: new F64Column("indexPrice"),
        oraclePrice: new F64Column("oraclePrice"),
        markPrice: new F64Column("markPrice"),
        fundingRate: new F64Column("fundingRate"),
        openInterest: new F64Column("openInterest"),
        longFundingValue: new F64Column("longFundingValue"),
        shortFundingValue: new F64Column("shortFundingValue"),
        bestBid: new F64Column("bestBid"),
        bestAsk: new F64Column("bestAsk"),
      },
      batchRows,
    ),
    depth: table(
      "depth",
      {
        time: new TimeColumn("time"),
        symbol: new DictColumn("symbol", v.symbols),
        side: new DictColumn("side", ["bid", "ask"]),
        level: new I32Column("level"),
        price: new F64Column("price"),
        qty: new F64Column("qty"),
      },
      batchRows,
    ),
  };
}

type Tables = ReturnType<typeof makeTables>;

function makeTables(v: RunVocabulary, batchRows: number) {
  return {
    executions: executionsTable(v, batchRows),
    busts: bustsTable(v, batchRows),
    orders: ordersTable(v, batchRows),
    ledger: ledgerTable(v, batchRows),
    ...sampledTables(v, batchRows),
  };
}

/**
 * The account a bust reason names: a modeled reason's `accountId`, or an
 * unmodeled one's `args.accountId` (`{reasonName, args}`, spec 2.16, as the
 * risk layer's ReduceOnlyViolation carries it).
 */
function reasonAccountId(reason: ExecutionBust["reason"]): number | undefined {
  const top = (reason as { accountId?: unknown }).accountId;
  if (typeof top === "number") return top;
  const args = (reason as { args?: unknown }).args;
  const inArgs = typeof args === "object" && args !== null ? (args as { accountId?: unknown }).accountId : undefined;
  return typeof inArgs === "number" ? inArgs : undefined;
}

/**
 * price x qty as the double nearest the exact product (as the other
 * columns are the doubles nearest their wire decimals): the product of the
 * two parsed doubles may be one off (2838.39 x 22.685 = 64388.87714999999).
 */
function exactNotional(price: string, qty: string): number {
  return Number(formatScaled(toE18(price, "price") * toE18(qty, "qty"), 36));
}

/** A float column value: NaN is written as null. */
function pushFinite(column: F64Column, value: number): void {
  if (Number.isNaN(value)) column.pushNull();
  else column.push(value);
}

export class RunOutputsRecorder implements RunObserver {
  readonly sampler: RunSampler;
  private readonly batchRows: number;
  private readonly stream: boolean;
  private vocabulary: RunVocabulary | undefined;
  private tables: Tables | undefined;

  constructor(
    readonly outDir: string,
    options: RunOutputsOptions = {},
  ) {
    this.batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    if (!Number.isSafeInteger(this.batchRows) || this.batchRows < 1) throw new RangeError(`batchRows "${this.batchRows}" must be a positive integer`);
    this.sampler = options.sampler ?? new RunSampler(options.depthLevels);
    this.stream = options.stream === true;
  }

  begin(setup: RunSetup): void {
    this.sampler.begin(setup);
    this.vocabulary = vocabularyOf(setup);
    const tables = makeTables(this.vocabulary, this.batchRows);
    this.tables = tables;
    if (!this.stream) return;
    mkdirSync(this.outDir, { recursive: true });
    try {
      for (const name of RUN_OUTPUT_FILES) tables[name].t.streamTo(this.pathOf(name));
    } catch (error) {
      this.abandon();
      throw error;
    }
  }

  output(output: ExchangeOutput, _atMicros: Micros): void {
    this.sampler.note(output);
    switch (output.kind) {
      case "perpExecution":
        this.perpExecution(output.record);
        break;
      case "spotExecution":
        this.spotExecution(output.record);
        break;
      case "bust":
        this.bust(output.record);
        break;
      case "order":
        this.order(output.row, output.onOrderChanges);
        break;
      case "transfer":
        this.transfer(output.entry);
        break;
      default:
        break;
    }
  }

  sample(atMicros: Micros): void {
    const tables = this.ready();
    const snapshot = this.sampler.sample(atMicros);
    const ms = snapshot.timeMs;
    const { positions, balances, equity, prices, depth } = tables;
    for (const account of snapshot.accounts) {
      const { name, accountId } = account.agent;
      for (const position of account.positions) {
        const c = positions.c;
        c.time.push(ms);
        c.agent.push(name);
        c.accountId.push(accountId);
        c.symbol.push(position.symbol);
        c.qty.push(position.qty);
        pushFinite(c.avgEntryPrice, position.avgEntryPrice);
        pushFinite(c.markPrice, position.markPrice);
        pushFinite(c.notional, position.notional);
        pushFinite(c.unrealizedPnl, position.unrealizedPnl);
        pushFinite(c.unrealizedFunding, position.unrealizedFunding);
        positions.t.endRow();
      }
      for (const balance of account.balances) {
        const c = balances.c;
        c.time.push(ms);
        c.agent.push(name);
        c.accountId.push(accountId);
        c.asset.push(balance.asset);
        c.realBalance.push(balance.realBalance);
        c.netDeposits.push(balance.netDeposits);
        pushFinite(c.price, balance.price);
        pushFinite(c.value, balance.value);
        balances.t.endRow();
      }
      const c = equity.c;
      c.time.push(ms);
      c.agent.push(name);
      c.accountId.push(accountId);
      pushFinite(c.equity, account.equity);
      pushFinite(c.unrealizedPnl, account.unrealizedPnl);
      pushFinite(c.unrealizedFunding, account.unrealizedFunding);
      pushFinite(c.marginBalance, account.marginBalance);
      pushFinite(c.initialMargin, account.initialMargin);
      pushFinite(c.liquidationMargin, account.liquidationMargin);
      equity.t.endRow();
    }
    for (const market of snapshot.markets) {
      const c = prices.c;
      c.time.push(ms);
      c.symbol.push(market.symbol);
      c.market.push(market.kind);
      pushFinite(c.indexPrice, market.indexPrice);
      pushFinite(c.oraclePrice, market.oraclePrice);
      pushFinite(c.markPrice, market.markPrice);
      pushFinite(c.fundingRate, market.fundingRate);
      pushFinite(c.openInterest, market.openInterest);
      pushFinite(c.longFundingValue, market.longFundingValue);
      pushFinite(c.shortFundingValue, market.shortFundingValue);
      pushFinite(c.bestBid, market.bestBid);
      pushFinite(c.bestAsk, market.bestAsk);
      prices.t.endRow();
      this.depthRows(depth, ms, market.symbol, "bid", market.bidPrices, market.bidQtys);
      this.depthRows(depth, ms, market.symbol, "ask", market.askPrices, market.askQtys);
    }
  }

  private depthRows(depth: Tables["depth"], ms: number, symbol: string, side: string, prices: Float64Array, qtys: Float64Array): void {
    const c = depth.c;
    for (let level = 0; level < prices.length; level++) {
      c.time.push(ms);
      c.symbol.push(symbol);
      c.side.push(side);
      c.level.push(level);
      c.price.push(prices[level]!);
      c.qty.push(qtys[level]!);
      depth.t.endRow();
    }
  }

  private ready(): Tables {
    if (this.tables === undefined) throw new Error("RunOutputsRecorder was used before begin");
    return this.tables;
  }

  private perpExecution(record: PerpExecution): void {
    const c = this.executionColumns(record, "perp", record.makerAccountId);
    c.takerRebateCredit.pushDecimal(record.takerRebateCredit);
    c.protocolFeeCredit.pushDecimal(record.protocolFeeCredit);
    c.referrerFeeCredit.pushDecimal(record.referrerFeeCredit);
    c.poolFeeCredit.pushDecimal(record.poolFeeCredit);
    c.makerFee.pushDecimal(record.makerFee);
    c.takerRealizedPnl.pushDecimal(record.takerRealizedPnl);
    c.makerRealizedPnl.pushDecimal(record.makerRealizedPnl);
    c.takerFundingPnl.pushDecimal(record.takerFundingPnl);
    c.makerFundingPnl.pushDecimal(record.makerFundingPnl);
    this.ready().executions.t.endRow();
  }

  private spotExecution(record: SpotExecution): void {
    const c = this.executionColumns(record, "spot", record.makerAccountId);
    c.takerRebateCredit.pushNull();
    c.protocolFeeCredit.pushNull();
    c.referrerFeeCredit.pushNull();
    c.poolFeeCredit.pushNull();
    c.makerFee.pushNull();
    c.takerRealizedPnl.pushNull();
    c.makerRealizedPnl.pushNull();
    c.takerFundingPnl.pushNull();
    c.makerFundingPnl.pushNull();
    this.ready().executions.t.endRow();
  }

  /** The columns perp and spot executions share, up to takerFee; the caller pushes the rest and ends the row. */
  private executionColumns(record: PerpExecution | SpotExecution, market: "perp" | "spot", makerAccountId: number | undefined) {
    const { c } = this.ready().executions;
    const agentOf = this.vocabulary!.agentOf;
    c.time.push(record.timestamp);
    c.symbol.push(record.symbol);
    c.market.push(market);
    c.type.push(record.type);
    c.fillId.push(record.fillId);
    c.sequenceNumber.push(record.sequenceNumber);
    c.side.push(record.side);
    c.price.pushDecimal(record.price);
    c.qty.pushDecimal(record.qty);
    c.notional.push(exactNotional(record.price, record.qty));
    c.takerAccountId.push(record.takerAccountId);
    c.takerAgent.pushOptional(agentOf.get(record.takerAccountId));
    c.takerOrderId.pushOptional(record.takerOrderId);
    c.makerAccountId.pushOptional(makerAccountId);
    c.makerAgent.pushOptional(makerAccountId === undefined ? undefined : agentOf.get(makerAccountId));
    c.makerOrderId.pushOptional(record.makerOrderId);
    c.feeAsset.push(this.vocabulary!.feeAssetOf.get(record.symbol) ?? "");
    c.takerFee.pushDecimal(record.takerFee);
    return c;
  }

  private bust(record: ExecutionBust): void {
    const { c, t } = this.ready().busts;
    const v = this.vocabulary!;
    c.time.push(record.timestamp);
    c.symbol.push(record.symbol);
    c.market.push(v.kindOf.get(record.symbol) ?? "perp");
    c.fillId.push(record.fillId);
    c.sequenceNumber.push(record.sequenceNumber);
    c.side.push(record.side);
    c.price.pushDecimal(record.price);
    c.qty.pushDecimal(record.qty);
    c.takerAccountId.push(record.takerAccountId);
    c.takerAgent.pushOptional(v.agentOf.get(record.takerAccountId));
    c.takerOrderId.push(record.takerOrderId);
    c.makerAccountId.push(record.makerAccountId);
    c.makerAgent.pushOptional(v.agentOf.get(record.makerAccountId));
    c.makerOrderId.push(record.makerOrderId);
    c.reasonName.push(record.reason.reasonName);
    c.reasonAccountId.pushOptional(reasonAccountId(record.reason));
    c.reason.push(JSON.stringify(record.reason));
    t.endRow();
  }

  private order(row: WireOrder, onOrderChanges: boolean): void {
    const { c, t } = this.ready().orders;
    c.time.push(row.lastUpdateAt);
    c.createdAt.push(row.createdAt);
    c.symbol.push(row.symbol);
    c.accountId.push(row.accountId);
    c.agent.pushOptional(this.vocabulary!.agentOf.get(row.accountId));
    c.orderId.push(row.orderId);
    c.clientOrderId.pushOptional(row.clientOrderId);
    c.sequenceNumber.pushOptional(row.sequenceNumber);
    c.side.push(row.side);
    c.orderType.push(row.orderType);
    c.timeInForce.pushOptional(row.timeInForce);
    c.status.push(row.status);
    c.limitPx.pushDecimal(row.limitPx);
    c.triggerPx.pushDecimal(row.triggerPx);
    c.qty.pushDecimal(row.qty);
    c.cumQty.pushDecimal(row.cumQty);
    c.execQty.pushDecimal(row.execQty);
    c.fillCount.pushOptional(row.fillCount);
    c.firstFillId.pushOptional(row.firstFillId);
    c.reduceOnly.pushOptional(row.reduceOnly);
    c.postOnly.pushOptional(row.postOnly);
    c.triggered.pushOptional(row.triggered);
    c.expiresAfterSec.pushOptional(row.expiresAfter);
    c.cancelReason.pushOptional(row.cancelReason);
    c.onOrderChanges.push(onOrderChanges);
    t.endRow();
  }

  private transfer(entry: Transfer): void {
    const { c, t } = this.ready().ledger;
    const agentOf = this.vocabulary!.agentOf;
    const counterparty = entry.counterpartyAccountId;
    c.time.push(entry.timestamp);
    c.id.push(entry.id);
    c.accountId.push(entry.accountId);
    c.agent.pushOptional(agentOf.get(entry.accountId));
    c.type.push(entry.type);
    c.asset.push(entry.asset);
    c.amount.pushDecimal(entry.amount);
    c.netDepositsAfter.pushDecimal(entry.netDepositsAfter);
    c.counterpartyAccountId.pushOptional(counterparty);
    c.counterpartyAgent.pushOptional(counterparty === undefined ? undefined : agentOf.get(counterparty));
    c.fillId.pushOptional(entry.fillId);
    t.endRow();
  }

  /** Rows recorded so far, per file. */
  rowCounts(): Record<RunOutputFile, number> {
    const tables = this.ready();
    const counts = {} as Record<RunOutputFile, number>;
    for (const name of RUN_OUTPUT_FILES) counts[name] = tables[name].t.rowCount;
    return counts;
  }

  /** Writes every file into `outDir` (created if needed; streamed: the last rows and the footers); returns their paths, in RUN_OUTPUT_FILES order. */
  write(): string[] {
    const tables = this.ready();
    if (this.stream) return RUN_OUTPUT_FILES.map((name) => tables[name].t.close());
    mkdirSync(this.outDir, { recursive: true });
    return RUN_OUTPUT_FILES.map((name) => {
      const path = this.pathOf(name);
      writeFileSync(path, tables[name].t.toIPC());
      return path;
    });
  }

  /** Streamed, after a run that failed: closes the files and removes them (nothing else in `outDir`). */
  abandon(): void {
    const tables = this.tables;
    if (tables === undefined || !this.stream) return;
    for (const name of RUN_OUTPUT_FILES) {
      tables[name].t.abandon();
      rmSync(this.pathOf(name), { force: true });
    }
  }

  private pathOf(name: RunOutputFile): string {
    return join(this.outDir, `${name}.arrow`);
  }
}
