/**
 * A signed-mode Exchange for gateway tests: funded accounts whose requests
 * are built by the client SDK's plan builders and signed with real EIP-712
 * signatures (the native fast signer) over deterministic keys, and a state
 * digest to check that a rejected request changes nothing.
 *
 * Parties (private key 0x..0N):
 *   alice   key 1, owner of accountId 2 (10,000 rUSD)
 *   bob     key 2, owner of accountId 3 (10,000 rUSD)
 *   carol   key 3, owner of accountId 4 (100 rUSD, 1 WETH; spot tests)
 *   dave    key 4, no account of his own; his requests name accountId 2,
 *           where tests add him as a signer (admin addSigner)
 *   mallory key 9, no wallet at all; her requests name accountId 2
 *
 * Time: requests go in at `world.now`, which tests move with `advance`.
 * Oracle prices (ETH 2000, BTC 60000) are published at the start, and again
 * by `refreshPrices` (they are fresh for 60 s).
 */
import { expect } from "vitest";
import type { Hex } from "viem";
import { cancelAllPlan, type CancelAllParameters } from "../../../src/client/actions/cancelAll.ts";
import { cancelAllAfterPlan, type CancelAllAfterParameters } from "../../../src/client/actions/cancelAllAfter.ts";
import { cancelOrderPlan, type CancelOrderParameters } from "../../../src/client/actions/cancelOrder.ts";
import { createOrderPlan, type CreateOrderParameters } from "../../../src/client/actions/createOrder.ts";
import { modifyOrderPlan, type ModifyOrderParameters } from "../../../src/client/actions/modifyOrder.ts";
import { createClient, type Client } from "../../../src/client/client.ts";
import type { SignedPart } from "../../../src/client/internal/send.ts";
import { createMarketDirectory } from "../../../src/client/markets.ts";
import { privateKeySigner } from "../../../src/client/signer.ts";
import type { OrderEntryRequestBodies } from "../../../src/client/transport.ts";
import { MICROS_PER_MILLI, MICROS_PER_SECOND, type Micros } from "../../../src/core/time.ts";
import type { EngineConfig } from "../../../src/engine/types.ts";
import { DEFAULT_GATEWAY_CONFIG, DEFAULT_MARKETS, defaultExchangeConfig, type GatewayConfig } from "../../../src/exchange/config.ts";
import { Exchange, type ExchangeAnswer } from "../../../src/exchange/exchange.ts";
import type { AdminAction, FaultAction, OrderEntryOperation } from "../../../src/exchange/inputs.ts";
import type { ExchangeOutput } from "../../../src/exchange/outputs.ts";
import type { RiskConfigInput } from "../../../src/risk/config.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../../src/signing/domain.ts";
import { createFastSigner, type FastSigner } from "../../../src/signing/fast-sign.ts";
import { cancelAllAfterMessage, cancelMessage, massCancelMessage, orderMessage, type MarketRef } from "../../../src/signing/messages.ts";
import type { OrderBody } from "../../../src/signing/wire.ts";
import { RequestError, type RequestErrorCode } from "../../../src/spec/errors.ts";
import { START_MICROS } from "../flow.ts";

export { START_MICROS };

/** A deterministic private key: 0x00..0n. */
export function privateKey(n: number): Hex {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

export const ETH = "ETHRUSDPERP";
export const BTC = "BTCRUSDPERP";
export const SPOT = "WETHRUSD";

export const MARKETS = createMarketDirectory({
  perp: DEFAULT_MARKETS.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
  spot: DEFAULT_MARKETS.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
});

/** The signing reference of a symbol (perp id, or spot id signed + 10^10). */
export function marketRef(symbol: string): MarketRef {
  const entry = MARKETS.require(symbol);
  return { marketId: BigInt(entry.marketId), isSpot: entry.kind === "spot" };
}

const NO_TRANSPORT = {
  request(): never {
    throw new Error("gateway tests hand bodies to Exchange.handle themselves");
  },
};

/** One signer: its key, its SDK client context (for the plan builders) and its own nonce counter. */
export class Party {
  readonly signer: FastSigner;
  readonly address: string;
  readonly client: Client;
  private lastNonce = 1_000n;

  constructor(
    readonly name: string,
    readonly key: Hex,
    readonly accountId: number,
    clock: { now(): Micros },
  ) {
    this.signer = createFastSigner(key, DEFAULT_SIGNING_CONFIG);
    this.address = this.signer.address;
    this.client = createClient({
      transport: NO_TRANSPORT,
      signer: privateKeySigner(key, { path: "fast" }),
      accountId,
      markets: MARKETS,
      clock,
      retry: false,
    });
  }

  /** A fresh nonce (strictly above every one this party drew before). */
  nextNonce(): string {
    this.lastNonce += 1n;
    return this.lastNonce.toString();
  }

  /** The nonce `nextNonce` would give, without drawing it (for requests that are meant to be rejected). */
  peekNonce(): string {
    return (this.lastNonce + 1n).toString();
  }

  /** The signature of a signed part, by this party's key. */
  sign(signed: SignedPart): string {
    switch (signed.kind) {
      case "Order":
        return this.signer.sign("Order", signed.message);
      case "OrderCancel":
        return this.signer.sign("OrderCancel", signed.message);
      case "MassCancel":
        return this.signer.sign("MassCancel", signed.message);
      case "CancelAllAfter":
        return this.signer.sign("CancelAllAfter", signed.message);
    }
  }
}

export interface BuildOptions {
  /** The nonce to sign (default: the party's next). */
  nonce?: string;
  /** Who signs (default: the party whose client built the body). */
  signWith?: Party;
}

export interface WorldOptions {
  gateway?: Partial<GatewayConfig>;
  engine?: Partial<EngineConfig>;
  risk?: (markets: RiskConfigInput) => RiskConfigInput;
  /** Skip the initial oracle prices (default false). */
  noPrices?: boolean;
}

/** The part of the state that a rejected request must leave as it was. */
export type Digest = Record<string, unknown>;

export type Body = Record<string, unknown>;

export class World {
  readonly exchange: Exchange;
  now: Micros = START_MICROS;
  readonly outputs: ExchangeOutput[] = [];
  readonly alice: Party;
  readonly bob: Party;
  readonly carol: Party;
  readonly dave: Party;
  readonly mallory: Party;
  readonly parties: Party[];
  private readonly clock = { now: () => this.now };

  constructor(options: WorldOptions = {}) {
    const risk = options.risk === undefined ? DEFAULT_MARKETS : options.risk(DEFAULT_MARKETS);
    const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, {
      risk,
      engine: options.engine ?? {},
      gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: true, ...options.gateway },
    });
    expect(config.gateway.verifySignatures).toBe(true);
    this.exchange = new Exchange({ config, startMicros: START_MICROS, seed: 42 });
    this.exchange.subscribe((output) => this.outputs.push(output));
    const clock = this.clock;
    this.alice = new Party("alice", privateKey(1), 2, clock);
    this.bob = new Party("bob", privateKey(2), 3, clock);
    this.carol = new Party("carol", privateKey(3), 4, clock);
    this.dave = new Party("dave", privateKey(4), 2, clock);
    this.mallory = new Party("mallory", privateKey(9), 2, clock);
    this.parties = [this.alice, this.bob, this.carol, this.dave, this.mallory];
    this.adminOk({ action: "createAccount", wallet: this.alice.address, accountId: 2, deposits: { rUSD: "10000" } });
    this.adminOk({ action: "createAccount", wallet: this.bob.address, accountId: 3, deposits: { rUSD: "10000" } });
    this.adminOk({ action: "createAccount", wallet: this.carol.address, accountId: 4, deposits: { rUSD: "100", WETH: "1" } });
    if (options.noPrices !== true) this.refreshPrices();
  }

  /** A new party (key 0x..0n) owning a new account `accountId` with `deposits`. */
  newParty(name: string, keyIndex: number, accountId: number, deposits: Readonly<Record<string, string>>): Party {
    const party = new Party(name, privateKey(keyIndex), accountId, this.clock);
    this.adminOk({ action: "createAccount", wallet: party.address, accountId, deposits });
    this.parties.push(party);
    return party;
  }

  // -- time and non-request inputs --------------------------------------------------

  /** Moves the clock (timers due by then fire now, not inside the next request). */
  advance(ms: number, extraMicros = 0): void {
    this.at(this.now + ms * MICROS_PER_MILLI + extraMicros);
  }

  at(micros: Micros): void {
    this.now = micros;
    this.exchange.advanceTo(micros);
  }

  nowSeconds(): number {
    return Math.floor(this.now / MICROS_PER_SECOND);
  }

  refreshPrices(eth = "2000", btc = "60000"): void {
    const answer = this.exchange.handle(
      {
        kind: "prices",
        prices: [
          { asset: "WETH", price: eth },
          { symbol: ETH, price: eth },
          { asset: "WBTC", price: btc },
          { symbol: BTC, price: btc },
        ],
      },
      this.now,
    );
    expect(answer.ok).toBe(true);
  }

  admin(action: AdminAction): ExchangeAnswer {
    return this.exchange.handle({ kind: "admin", admin: action }, this.now);
  }

  adminOk(action: AdminAction): void {
    const answer = this.admin(action);
    expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
  }

  fault(fault: FaultAction): void {
    expect(this.exchange.handle({ kind: "fault", fault }, this.now)).toMatchObject({ ok: true });
  }

  // -- signed bodies, built by the SDK's plans ------------------------------------------

  create(party: Party, parameters: CreateOrderParameters, options: BuildOptions = {}): OrderEntryRequestBodies["createOrder"] {
    const built = createOrderPlan(party.client, parameters).build({ nowMicros: this.now, nonce: options.nonce ?? party.nextNonce() });
    built.body.signature = (options.signWith ?? party).sign(built.signed);
    return built.body;
  }

  modify(party: Party, parameters: ModifyOrderParameters, options: BuildOptions = {}): OrderEntryRequestBodies["modifyOrder"] {
    const built = modifyOrderPlan(party.client, parameters).build({ nowMicros: this.now, nonce: options.nonce ?? party.nextNonce() });
    built.body.signature = (options.signWith ?? party).sign(built.signed);
    return built.body;
  }

  cancel(party: Party, parameters: CancelOrderParameters, options: BuildOptions = {}): OrderEntryRequestBodies["cancelOrder"] {
    const built = cancelOrderPlan(party.client, parameters).build({ nowMicros: this.now, nonce: options.nonce ?? party.nextNonce() });
    built.body.signature = (options.signWith ?? party).sign(built.signed);
    return built.body;
  }

  cancelAll(party: Party, parameters: CancelAllParameters = {}, options: BuildOptions = {}): OrderEntryRequestBodies["cancelAll"] {
    const built = cancelAllPlan(party.client, parameters).build({ nowMicros: this.now, nonce: options.nonce ?? party.nextNonce() });
    built.body.signature = (options.signWith ?? party).sign(built.signed);
    return built.body;
  }

  cancelAllAfter(party: Party, parameters: CancelAllAfterParameters, options: BuildOptions = {}): OrderEntryRequestBodies["cancelAllAfter"] {
    const built = cancelAllAfterPlan(party.client, parameters).build({ nowMicros: this.now, nonce: options.nonce ?? party.nextNonce() });
    built.body.signature = (options.signWith ?? party).sign(built.signed);
    return built.body;
  }

  /**
   * Signs a hand-made body (for what the SDK refuses to build) with the
   * messages of src/signing: the signature is real, the body is whatever
   * the test wrote.
   */
  signRaw<B extends Body>(party: Party, op: OrderEntryOperation, body: B): B {
    const symbol = body["symbol"] as string | undefined;
    let signed: SignedPart;
    switch (op) {
      case "createOrder":
      case "modifyOrder":
        signed = { kind: "Order", message: orderMessage(body as unknown as OrderBody, marketRef(symbol!)) };
        break;
      case "cancelOrder":
        signed = { kind: "OrderCancel", message: cancelMessage(body as never, marketRef(symbol!)) };
        break;
      case "cancelAll":
        signed = { kind: "MassCancel", message: massCancelMessage(body as never, symbol === undefined ? null : marketRef(symbol)) };
        break;
      case "cancelAllAfter":
        signed = { kind: "CancelAllAfter", message: cancelAllAfterMessage(body as never) };
        break;
    }
    return { ...body, signature: party.sign(signed) };
  }

  // -- sending ------------------------------------------------------------------------

  send(op: OrderEntryOperation, body: unknown): ExchangeAnswer {
    return this.exchange.handle({ kind: "request", op, body }, this.now);
  }

  /** Sends and expects success; returns the payload. */
  ok(op: OrderEntryOperation, body: unknown): Record<string, unknown> {
    const answer = this.send(op, body);
    if (!answer.ok) throw new Error(`${op} was rejected: ${answer.error.error}: ${answer.error.message}`);
    return answer.payload;
  }

  /** Rests a GTC order of `party` and returns its orderId. */
  rest(party: Party, parameters: { symbol?: string; isBuy: boolean; qty: string; limitPx: string; clientOrderId?: string; postOnly?: boolean }): string {
    const payload = this.ok("createOrder", this.create(party, { symbol: ETH, timeInForce: "GTC", ...parameters }));
    expect(payload["status"]).toBe("OPEN");
    return payload["orderId"] as string;
  }

  /** Gives `buyer` a long and `seller` a short of `qty` (a resting sell taken by an IOC buy at 2000). */
  trade(buyer: Party, seller: Party, qty: string, symbol = ETH, px = "2000"): void {
    this.rest(seller, { symbol, isBuy: false, qty, limitPx: px });
    const payload = this.ok("createOrder", this.create(buyer, { symbol, isBuy: true, qty, limitPx: px, timeInForce: "IOC" }));
    expect(payload["status"]).toBe("FILLED");
  }

  // -- "a rejected request changes nothing" ------------------------------------------------

  /** How many requests of `bucket` the wallet has in its window now (probed through the public check). */
  usedSlots(wallet: string, bucket: "order" | "cancelAll"): number {
    return usedRateSlots(this.exchange, wallet, bucket, this.now);
  }

  /** exchangeDigest of this exchange and its parties, now. */
  digest(): Digest {
    return exchangeDigest(this.exchange, this.parties, this.now);
  }

  /**
   * Sends a request that must be rejected with `code`, a message naming
   * each of `mentions`, and no effect at all: the same digest after as
   * before, and no output on the exchange's stream.
   */
  expectRejected(op: OrderEntryOperation, body: unknown, code: RequestErrorCode, mentions: readonly string[] = []): RequestError {
    this.at(this.now); // timers due now fire here, not during the request
    const before = this.digest();
    const outputsBefore = this.outputs.length;
    const answer = this.send(op, body);
    expect(answer.ok, `expected ${code}, got ${JSON.stringify(answer)}`).toBe(false);
    if (answer.ok) throw new Error("unreachable");
    const error = RequestError.parse(answer.error);
    expect(error.error, error.message).toBe(code);
    for (const mention of mentions) expect(error.message).toContain(mention);
    expect(error.message).not.toMatch(/\.$/);
    if (code === "RATE_LIMITED_ERROR") expect(error.retryAfterMs).toBeGreaterThanOrEqual(1);
    else expect(error).not.toHaveProperty("retryAfterMs");
    expect(this.outputs.slice(outputsBefore)).toEqual([]);
    expect(this.digest()).toEqual(before);
    return error;
  }

  /** The nonce is still fresh: a cancelAllAfter (counted in no bucket) by `party` with exactly `nonce` is accepted. */
  expectNonceFree(party: Party, nonce: string): void {
    expect(this.exchange.gateway.nonces.last(party.address) < BigInt(nonce)).toBe(true);
    const payload = this.ok("cancelAllAfter", this.cancelAllAfter(party, { timeoutMs: 0 }, { nonce }));
    expect(payload).toEqual({ accountId: party.accountId, timeoutMs: 0 });
    expect(this.exchange.gateway.nonces.last(party.address)).toBe(BigInt(nonce));
  }
}

/**
 * Requests of `wallet` in its current `bucket` rate window: the largest
 * limit the limiter refuses (a check only reads), found by doubling, then
 * bisecting.
 */
export function usedRateSlots(exchange: Exchange, wallet: string, bucket: "order" | "cancelAll", now: Micros): number {
  const limiter = exchange.gateway.rateLimiter;
  const admits = (limit: number) => limiter.check(wallet, bucket, { orderPerWindow: limit, cancelAllPerWindow: limit }, now).ok;
  let high = 1;
  while (!admits(high)) {
    high *= 2;
    if (high > 1 << 24) throw new Error(`wallet ${wallet} has more than ${1 << 24} requests in its ${bucket} window`);
  }
  let low = high >> 1; // refused (or 0)
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (admits(mid)) high = mid;
    else low = mid;
  }
  return high - 1;
}

/**
 * Everything a request could change: the engine's whole state (its clock
 * aside: it is time, not state), every account's balances, positions and
 * margin, the risk layer's resting and pending orders and open interest,
 * wallet flags, each party's nonce and rate-limit windows, and the sizes of
 * order history and ledger.
 */
export function exchangeDigest(exchange: Exchange, parties: readonly Party[], now: Micros): Digest {
  const { nowMicros: _clock, ...engine } = exchange.engine.dumpState();
  const risk = exchange.risk;
  const state = risk.state;
  const accountIds = [...state.accounts.keys()].sort((a, b) => a - b);
  return {
    engine,
    accounts: accountIds.map((accountId) => ({
      accountId,
      balances: risk.balances(accountId),
      positions: risk.positions(accountId),
      margin: risk.margin(accountId, now),
      signers: parties.filter((party) => risk.isSigner(accountId, party.address)).map((party) => party.name),
    })),
    resting: [...state.resting.keys()].sort().map((orderId) => risk.restingOrder(orderId)),
    pending: [...state.pending.keys()].sort(),
    openInterest: [...state.perps.entries()].map(([marketId, market]) => ({
      marketId,
      oiLong: market.oiLong.toString(),
      oiShort: market.oiShort.toString(),
      oiLongEff: market.oiLongEff.toString(),
      oiShortEff: market.oiShortEff.toString(),
    })),
    wallets: [...state.wallets.keys()].sort().map((wallet) => ({ wallet, ...risk.walletFlags(wallet) })),
    parties: parties.map((party) => ({
      name: party.name,
      nonce: exchange.gateway.nonces.last(party.address).toString(),
      orderSlots: usedRateSlots(exchange, party.address, "order", now),
      cancelAllSlots: usedRateSlots(exchange, party.address, "cancelAll", now),
    })),
    history: accountIds.map((accountId) => exchange.history.rows(accountId).length),
    ledger: exchange.ledger.latest(accountIds, 1_000_000).length,
  };
}
