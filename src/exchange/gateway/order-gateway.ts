/**
 * The order-entry gateway: every order-bearing request passes here, from
 * REST and WebSocket alike, so their answers are identical.
 *
 * Precedence (DESIGN.md): when several checks fail, the first stage that
 * fails is reported.
 *  0. service: SERVICE_DISABLED_ERROR while order entry is disabled (the
 *     Exchange refuses a create or modify naming a market whose order entry
 *     an admin disabled the same way, before this gateway);
 *  1. structure: schema, cross-field rules, symbol (validate/);
 *  2. account and signature: NO_ACCOUNTS_FOUND_ERROR (or
 *     UNAVAILABLE_ACCOUNT_OWNER_ERROR while owner lookups fail), then
 *     UNAUTHORIZED_SIGNATURE_ERROR (the recovered signer differs from
 *     signerWallet, or is not permissioned on the account), then
 *     UNAUTHORIZED_ACCOUNT_ERROR (a modify or stop cancel by a signer other
 *     than the order's), then NOT_WHITELISTED_ERROR, ACCOUNT_SUSPENDED_ERROR;
 *     the signature is checked before any market rule, so a tampered request
 *     is always a signature failure;
 *  3. nonce and deadline: INVALID_NONCE_ERROR, ORDER_DEADLINE_PASSED_ERROR,
 *     ORDER_DEADLINE_TOO_HIGH_ERROR;
 *  4. limits: RATE_LIMITED_ERROR, then (creates, and modifies raising the
 *     notional) OPEN_ORDER_COUNT_EXCEEDED_ERROR and
 *     OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR; the caps need the order's units,
 *     so an order off the tick/lot grid reports PRICE_QTY_BOUNDS_ERROR here;
 *  5. market rules: UNAVAILABLE_MATCHING_ENGINE_ERROR while the engine is
 *     down, TRADING_HALTED_ERROR, NO_PRICES_FOUND_FOR_SYMBOL_ERROR, the perp
 *     IOC price band (CREATE_ORDER_OTHER_ERROR), pre-trade risk (margin, open
 *     interest, spot balance), then the engine's own rules (post-only,
 *     reduce-only, triggers, duplicates, capacity, crossing while paused).
 *
 * A rejected request changes nothing: nonces and rate-limit slots are
 * consumed only by accepted requests, a new signer's owner id is assigned
 * only once the engine accepts its order, and every check runs before the
 * engine mutates anything.
 */
import { assert } from "../../core/assert.ts";
import { Dec } from "../../core/decimal.ts";
import type { Micros } from "../../core/time.ts";
import type { Engine } from "../../engine/engine.ts";
import type { Order as EngineOrder } from "../../engine/order.ts";
import { cancelAllAfterResponse, cancelResponse, orderResponse } from "../../engine/wire.ts";
import type { CancelOrderCommand, CreateOrderCommand, EngineError, EngineResult } from "../../engine/types.ts";
import type { RiskEngine } from "../../risk/risk.ts";
import type { RequestError } from "../../spec/errors.ts";
import type { OrderEntryOperation } from "../../spec/exec-envelopes.ts";
import type { GatewayConfig, OpenOrderCaps } from "../config.ts";
import type { FaultWindows } from "../faults.ts";
import type { OwnerIds } from "../owners.ts";
import type { SigningConfig } from "../../signing/domain.ts";
import { recoverRequestSigner, type PrecomputedRecovery, type Validated } from "./authenticate.ts";
import { NonceBook } from "./nonces.ts";
import { bucketOf, RateLimiter, type RateBucket, type RateLimits } from "./rate-limiter.ts";
import { checkDeadline } from "./validate/deadline.ts";
import { checkGrid } from "./validate/market-rules.ts";
import { validateRequest } from "./validate/structure.ts";
import type { GridUnits } from "./validate/market-rules.ts";
import type { ValidatedCreateOrder, ValidatedModifyOrder, ValidationContext } from "./validate/types.ts";
import type { Mutable } from "../../core/mutable.ts";

export type GatewayAnswer = { ok: true; payload: Record<string, unknown> } | { ok: false; error: RequestError };

/** What the gateway reaches in the exchange. */
export interface GatewayDeps {
  readonly engine: Engine;
  readonly risk: RiskEngine;
  readonly owners: OwnerIds;
  readonly faults: FaultWindows;
  readonly config: GatewayConfig;
  readonly signing: SigningConfig;
  readonly context: ValidationContext;
  /** Remembers the signature deadline a resting order was last signed with (settlement checks its fills as maker against it). */
  noteOrderDeadline(orderId: string, deadlineSec: number): void;
  /**
   * The signature deadline of the create or modify the engine is about to
   * run, undefined once it has: every fill the command makes has the
   * command's order as taker, and settlement checks it against this
   * deadline (spec 2.16 stale signature), a modify's own and not the one it
   * replaced. The order's id is known only after the engine answers, too
   * late for the fills of its own round.
   */
  commandDeadline(deadlineSec: number | undefined): void;
}

type Stage = RequestError | null;

function fail(error: string, message: string): { ok: false; error: RequestError } {
  return { ok: false, error: { error: error as RequestError["error"], message } };
}

function fromEngine(error: EngineError): { ok: false; error: RequestError } {
  return { ok: false, error: { error: error.code, message: error.message } };
}

export class OrderGateway {
  readonly nonces = new NonceBook();
  readonly rateLimiter = new RateLimiter();
  /** The owner ids that OwnerIds has assigned, read back through walletOf (see ownerIdOf). */
  private readonly ownerIdsSeen = new Map<string, number>();
  /** The signature recovered ahead of time for the request being handled (withRecovery), if any. */
  private precomputed: PrecomputedRecovery | undefined;
  /** Each account's last recovered signer: the hint for the next request without a signerWallet (speed only: authenticate.ts). */
  private readonly lastSignerByAccount = new Map<number, string>();

  constructor(private readonly deps: GatewayDeps) {}

  /**
   * Runs `run` (which handles one request) with a signature recovered ahead
   * of time by a live driver, and possibly the structure stage's answer
   * (authenticate.ts says when each is used: only for exactly that request,
   * so answers are the same as without it).
   */
  withRecovery<T>(precomputed: PrecomputedRecovery, run: () => T): T {
    this.precomputed = precomputed;
    try {
      return run();
    } finally {
      this.precomputed = undefined;
    }
  }

  /** The signer last recovered for `accountId`'s requests: whom its next request without a signerWallet is likely from (a hint for speed only). */
  likelySignerOf(accountId: number): string | undefined {
    return this.lastSignerByAccount.get(accountId);
  }

  /** Handles one order-entry request at `now`; never throws for anything a client can send. */
  handle(op: OrderEntryOperation, body: unknown, now: Micros): GatewayAnswer {
    if (this.deps.faults.active("serviceDisabled", now)) {
      return fail("SERVICE_DISABLED_ERROR", "order entry is disabled on this service; retry later");
    }
    const prepared = this.precomputed?.validated;
    const validated =
      prepared !== undefined && prepared.body === body && prepared.op === op && prepared.context === this.deps.context
        ? { ok: true as const, value: prepared.value }
        : validateRequest(op, body, this.deps.context);
    if (!validated.ok) return validated;
    const value = validated.value;

    const auth = this.authenticate(value, now);
    if (!auth.ok) return auth;
    const signer = auth.signer;

    // The signer's tier is an admin setting, so its limits hold for the whole request: read once.
    const bucket = bucketOf(op);
    const rate = bucket === undefined ? undefined : { bucket, limits: this.rateLimitsOf(signer) };
    const limits = this.nonceDeadlineAndRate(value, signer, rate, now);
    if (limits !== null) return { ok: false, error: limits };

    const answer = this.execute(value, signer, now);
    if (answer.ok) {
      this.nonces.accept(signer, value.nonce);
      if (rate !== undefined) this.rateLimiter.record(signer, rate.bucket, rate.limits, now);
    }
    return answer;
  }

  // -- stage 2: account, signature, permissions ---------------------------------

  private authenticate(value: Validated, now: Micros): { ok: true; signer: string } | { ok: false; error: RequestError } {
    const { risk, faults } = this.deps;
    if (faults.active("accountOwnerUnavailable", now)) {
      return fail("UNAVAILABLE_ACCOUNT_OWNER_ERROR", "account owner lookups are unavailable; retry with backoff");
    }
    const owner = risk.accountOwner(value.accountId);
    if (owner === undefined) return fail("NO_ACCOUNTS_FOUND_ERROR", `accountId ${value.accountId} does not exist`);
    const signer = this.signerOf(value, owner);
    if (!signer.ok) return signer;
    if (!risk.isSigner(value.accountId, signer.signer)) {
      return fail("UNAUTHORIZED_SIGNATURE_ERROR", `signer ${signer.signer} is not permissioned on accountId ${value.accountId}`);
    }
    const foreign = this.foreignOrderCheck(value, signer.signer);
    if (foreign !== null) return { ok: false, error: foreign };
    const access = risk.checkAccess(value.accountId, signer.signer);
    if (access !== null) return fail(access.error, access.message);
    return signer;
  }

  private signerOf(value: Validated, owner: string): { ok: true; signer: string } | { ok: false; error: RequestError } {
    if (this.deps.config.verifySignatures) {
      const precomputed = this.precomputed;
      this.precomputed = undefined;
      const recovered = recoverRequestSigner(value, this.deps.signing, precomputed, this.lastSignerByAccount.get(value.accountId));
      if (recovered.ok) this.lastSignerByAccount.set(value.accountId, recovered.signer);
      return recovered;
    }
    if ("signerWallet" in value) return { ok: true, signer: value.signerWallet.toLowerCase() };
    if (value.operation === "cancelOrder") {
      const target = this.findOrder(value.accountId, value.lookup);
      if (target !== undefined) return { ok: true, signer: this.deps.owners.walletOf(target.ownerId) };
    }
    return { ok: true, signer: owner };
  }

  /** A modify must come from the order's signer; so must the cancel of an armed or fired stop. */
  private foreignOrderCheck(value: Validated, signer: string): Stage {
    if (value.operation !== "modifyOrder" && value.operation !== "cancelOrder") return null;
    const target = this.findOrder(value.accountId, value.lookup);
    if (target === undefined || target.accountId !== value.accountId) return null;
    const orderSigner = this.deps.owners.walletOf(target.ownerId);
    if (orderSigner === signer.toLowerCase()) return null;
    if (value.operation === "cancelOrder" && target.orderType === "LIMIT") return null;
    const what = value.operation === "modifyOrder" ? "modify" : "cancel the stop";
    return {
      error: "UNAUTHORIZED_ACCOUNT_ERROR",
      message: `signer ${signer} may not ${what} order ${target.orderId}: it was signed by ${orderSigner}`,
    };
  }

  private findOrder(accountId: number, lookup: { by: "orderId"; orderId: string } | { by: "clientOrderId"; clientOrderId: string }): EngineOrder | undefined {
    const engine = this.deps.engine;
    // Read at once by the checks of this request, before its command: a peek, which leaves the object reusable.
    return lookup.by === "orderId" ? engine.peekOrder(lookup.orderId) : engine.peekOrderByClientId(accountId, lookup.clientOrderId);
  }

  // -- stage 3 and the first limit ----------------------------------------------

  /** `rate`: the operation's rate bucket and the signer's limits, when the operation counts in one. */
  private nonceDeadlineAndRate(value: Validated, signer: string, rate: { bucket: RateBucket; limits: RateLimits } | undefined, now: Micros): Stage {
    const nonce = this.nonces.checkValue(signer, value.nonce);
    if (!nonce.ok) return { error: "INVALID_NONCE_ERROR", message: nonce.message };
    const deadline = checkDeadline(value, value.deadline, now);
    if (!deadline.ok) return deadline.error;
    if (rate !== undefined) {
      const check = this.rateLimiter.check(signer, rate.bucket, rate.limits, now);
      if (!check.ok) {
        return {
          error: "RATE_LIMITED_ERROR",
          message: `signer ${signer} sent more than ${check.limit} ${rate.bucket === "order" ? "create, modify and cancel" : "cancelAll"} requests in 60 s`,
          retryAfterMs: check.retryAfterMs,
        };
      }
    }
    return null;
  }

  private rateTierOf(signer: string): number {
    return this.deps.risk.rateTierOf(signer) ?? 1;
  }

  private rateLimitsOf(signer: string): RateLimits {
    const tiers = this.deps.config.rateLimitsByTier;
    return tiers[this.rateTierOf(signer)] ?? tiers[1]!;
  }

  private capsOf(signer: string): OpenOrderCaps {
    const caps = this.deps.config.openOrderCapsByTier;
    return caps[this.rateTierOf(signer)] ?? caps[1]!;
  }

  // -- stages 4 and 5: the operation -----------------------------------------------

  private execute(value: Validated, signer: string, now: Micros): GatewayAnswer {
    switch (value.operation) {
      case "createOrder":
      case "modifyOrder":
        return this.placeOrder(value, signer, now);
      case "cancelOrder":
        return this.engineAvailable(now) ?? this.cancelOrder(value.accountId, value.market.marketId, value.lookup, now);
      case "cancelAll": {
        const unavailable = this.engineAvailable(now);
        if (unavailable !== null) return unavailable;
        const result = this.deps.engine.cancelAll({
          atMicros: now,
          accountId: value.accountId,
          ...(value.market === undefined ? {} : { marketId: value.market.marketId }),
        });
        return result.ok ? { ok: true, payload: { cancelledCount: result.cancelledCount } } : fromEngine(result.error);
      }
      case "cancelAllAfter": {
        const unavailable = this.engineAvailable(now);
        if (unavailable !== null) return unavailable;
        const result = this.deps.engine.cancelAllAfter({ atMicros: now, accountId: value.accountId, timeoutMs: value.timeoutMs });
        return result.ok ? { ok: true, payload: cancelAllAfterResponse(result) } : fromEngine(result.error);
      }
    }
  }

  private engineAvailable(now: Micros): GatewayAnswer | null {
    if (!this.deps.faults.active("engineUnavailable", now)) return null;
    return fail("UNAVAILABLE_MATCHING_ENGINE_ERROR", "the matching engine is unavailable; retry with backoff");
  }

  private cancelOrder(accountId: number, marketId: number, lookup: Parameters<OrderGateway["findOrder"]>[1], now: Micros): GatewayAnswer {
    // Members stored by name, not spread from a fresh object: a spread into a literal takes V8's generic path.
    const command: Mutable<CancelOrderCommand> = { atMicros: now, marketId, accountId };
    if (lookup.by === "orderId") command.orderId = lookup.orderId;
    else command.clientOrderId = lookup.clientOrderId;
    const result = this.deps.engine.cancelOrder(command);
    return result.ok ? { ok: true, payload: cancelResponse(result) } : fromEngine(result.error);
  }

  private placeOrder(value: ValidatedCreateOrder | ValidatedModifyOrder, signer: string, now: Micros): GatewayAnswer {
    const { engine } = this.deps;
    const grid = checkGrid(value);
    if (!grid.ok) return { ok: false, error: grid.error };
    const owner = this.ownerIdOf(signer);
    const command = this.orderCommand(value, grid.value, owner.id, now);
    const caps = this.checkCaps(value, command, signer);
    if (caps !== null) return { ok: false, error: caps };
    const market = this.marketRules(value, grid.value, now);
    if (market !== null) return { ok: false, error: market };

    let result: EngineResult<Parameters<typeof orderResponse>[0]>;
    if (value.operation === "modifyOrder") {
      const risk = this.checkModifyRisk(value, grid.value, now);
      if (risk !== null) return { ok: false, error: risk };
    }
    this.deps.commandDeadline(value.deadline);
    try {
      result = value.operation === "createOrder" ? engine.createOrder(command) : engine.modifyOrder({ ...command, ...modifyLookup(value) });
    } finally {
      this.deps.commandDeadline(undefined);
    }
    if (!result.ok) return fromEngine(result.error);
    if (!owner.assigned) this.assignOwnerId(signer, owner.id);
    // Only an order that rests can be a maker later; one that ended keeps no deadline (its final row already went by).
    if (result.status === "OPEN") this.deps.noteOrderDeadline(result.orderId, value.deadline);
    return { ok: true, payload: orderResponse(result, engine.market(value.market.marketId)!) };
  }

  /**
   * The owner id of `signer`, without assigning one: OwnerIds assigns on
   * first sight, and a rejected request must leave no trace (an id given to
   * a signer whose request is then refused would shift every later signer's
   * id). Ids are dense, in order of first appearance, so a signer without
   * one would get the next; it is assigned once the engine accepts.
   */
  private ownerIdOf(signer: string): { id: number; assigned: boolean } {
    // The signer is lowercase (signerOf) and so are the keys: a hit needs no lowercase copy.
    const seen = this.ownerIdsSeen.get(signer);
    const key = seen === undefined ? signer.toLowerCase() : signer;
    const id = seen ?? this.ownerIdsSeen.get(key) ?? this.syncOwnerIds(key);
    return id === undefined ? { id: this.ownerIdsSeen.size, assigned: false } : { id, assigned: true };
  }

  /** Reads the ids assigned since the last look; returns the id of `key` if it has one. */
  private syncOwnerIds(key: string): number | undefined {
    for (;;) {
      const id = this.ownerIdsSeen.size;
      let wallet: string;
      try {
        wallet = this.deps.owners.walletOf(id);
      } catch (error) {
        if (error instanceof RangeError) return this.ownerIdsSeen.get(key);
        throw error;
      }
      this.ownerIdsSeen.set(wallet, id);
    }
  }

  private assignOwnerId(signer: string, expected: number): void {
    const id = this.deps.owners.idOf(signer);
    assert(id === expected, `owner id of ${signer} is ${id}, but the engine was given ${expected}`);
    this.ownerIdsSeen.set(signer.toLowerCase(), id);
  }

  /** The engine command of a create, or the common part of a modify's: members in a fixed order, the optional ones only when they apply. */
  private orderCommand(value: ValidatedCreateOrder | ValidatedModifyOrder, units: GridUnits, ownerId: number, now: Micros): CreateOrderCommand {
    const command: Mutable<CreateOrderCommand> = {
      atMicros: now,
      marketId: value.market.marketId,
      exchangeId: value.exchangeId,
      accountId: value.accountId,
      ownerId,
      isBuy: value.isBuy,
      orderType: value.orderType,
      timeInForce: value.timeInForce,
      priceTicks: units.priceTicks,
    };
    if (units.qtyLots !== undefined) command.qtyLots = units.qtyLots;
    if (units.triggerTicks !== undefined) command.triggerTicks = units.triggerTicks;
    command.reduceOnly = value.reduceOnly;
    command.postOnly = value.postOnly;
    if (value.clientOrderId !== undefined) command.clientOrderId = value.clientOrderId;
    if (value.expiresAfter !== undefined) command.expiresAfterSec = value.expiresAfter;
    command.deadlineSec = value.deadline;
    return command;
  }

  /** Open-order caps of the signer's tier (spec 8.2), for orders that would rest. */
  private checkCaps(value: ValidatedCreateOrder | ValidatedModifyOrder, command: CreateOrderCommand, signer: string): Stage {
    const { engine } = this.deps;
    const caps = this.capsOf(signer);
    if (caps.countMax === undefined && caps.notionalMax === undefined) return null;
    const impact = value.operation === "createOrder" ? engine.openOrderImpactOfCreate(command) : engine.openOrderImpactOfModify({ ...command, ...modifyLookup(value) });
    if (impact.countDelta === 0 && impact.notionalDelta.lte(0)) return null;
    const figures = engine.openOrderFigures(command.ownerId);
    if (caps.countMax !== undefined && figures.count + impact.countDelta > caps.countMax) {
      return {
        error: "OPEN_ORDER_COUNT_EXCEEDED_ERROR",
        message: `signer ${signer} has ${figures.count} open GTC/GTT orders: the cap of its tier is ${caps.countMax}`,
      };
    }
    if (caps.notionalMax !== undefined && impact.notionalDelta.gt(0)) {
      const after = figures.notional.add(impact.notionalDelta);
      if (after.gt(new Dec(caps.notionalMax))) {
        return {
          error: "OPEN_ORDER_NOTIONAL_EXCEEDED_ERROR",
          message: `open GTC/GTT notional of signer ${signer} would be ${after.toFixed()} USD: the cap of its tier is ${caps.notionalMax} USD`,
        };
      }
    }
    return null;
  }

  /** Engine availability, halts, price freshness, the perp IOC band and (creates) pre-trade risk. */
  private marketRules(value: ValidatedCreateOrder | ValidatedModifyOrder, units: GridUnits, now: Micros): Stage {
    const { engine, risk, faults } = this.deps;
    if (faults.active("engineUnavailable", now)) {
      return { error: "UNAVAILABLE_MATCHING_ENGINE_ERROR", message: "the matching engine is unavailable; retry with backoff" };
    }
    const market = engine.market(value.market.marketId)!;
    if (market.halted) return { error: "TRADING_HALTED_ERROR", message: `trading is halted on ${market.symbol}` };
    if (!risk.pricesFresh(market.marketId, now)) {
      return { error: "NO_PRICES_FOUND_FOR_SYMBOL_ERROR", message: `no fresh oracle price for ${market.symbol}; retry shortly` };
    }
    if (value.operation === "createOrder" && market.kind === "perp" && !value.isTrigger && value.timeInForce === "IOC") {
      const band = this.iocBand(market.symbol, value.isBuy, units.priceTicks, risk.markPriceTicks(market.marketId));
      if (band !== null) return band;
    }
    if (value.operation === "createOrder" && !value.isTrigger) {
      const check = risk.checkOrder(
        { accountId: value.accountId, marketId: market.marketId, side: value.side, qtyLots: units.qtyLots!, priceTicks: units.priceTicks },
        now,
      );
      if (check !== null) return { error: check.error, message: check.message };
    }
    return null;
  }

  /**
   * The on-chain price-limit check of a perp IOC (spec 7.3): a buy may not
   * pay more than mark x (1 + band), a sell not take less than mark x (1 - band).
   */
  private iocBand(symbol: string, isBuy: boolean, priceTicks: number, markTicks: number | undefined): Stage {
    if (markTicks === undefined) return null;
    const bandBps = this.deps.config.iocPriceBandBps;
    const limit = isBuy ? Math.floor((markTicks * (10_000 + bandBps)) / 10_000) : Math.ceil((markTicks * (10_000 - bandBps)) / 10_000);
    const outside = isBuy ? priceTicks > limit : priceTicks < limit;
    if (!outside) return null;
    return {
      error: "CREATE_ORDER_OTHER_ERROR",
      message: `IOC limit price on ${symbol} is beyond the on-chain price limit of ${bandBps} bps ${isBuy ? "above" : "below"} the mark price`,
    };
  }

  /**
   * Pre-trade risk of a modify: the order is checked as if it replaced
   * itself, so its old resting quantity is lifted for the check and put back
   * (exactly) if the check fails; on success the engine's update re-rests it.
   */
  private checkModifyRisk(value: ValidatedModifyOrder, units: GridUnits, now: Micros): Stage {
    if (value.isTrigger) return null;
    const { risk } = this.deps;
    const target = this.findOrder(value.accountId, value.lookup);
    if (target === undefined || target.accountId !== value.accountId || target.status !== "OPEN") return null;
    const remaining = (units.qtyLots ?? target.qtyLots) - target.cumLots;
    if (remaining <= 0) return null;
    const restingBefore = risk.restingOrder(target.orderId);
    if (restingBefore !== undefined) risk.removeRestingOrder(target.orderId);
    const check = risk.checkOrder({ accountId: value.accountId, marketId: target.market.marketId, side: value.side, qtyLots: remaining, priceTicks: units.priceTicks }, now);
    if (restingBefore !== undefined) risk.restOrder(restingBefore);
    return check === null ? null : { error: check.error, message: check.message };
  }
}

function modifyLookup(value: ValidatedModifyOrder): { orderId?: string; clientOrderId?: string } {
  return value.lookup.by === "orderId" ? { orderId: value.lookup.orderId } : { clientOrderId: value.lookup.clientOrderId };
}
