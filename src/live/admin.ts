/**
 * The admin API, `/admin/...`: how an operator, a test or a scenario sets
 * up and steers a live mock. JSON in and out. Every action that changes the
 * exchange is an input of the Exchange (kind `admin`, `prices` or `fault`),
 * handed to `context.driver.handle`, so it is stamped, logged and replayed
 * like an order; only the clock endpoint moves time instead (the driver's
 * manual clock; timers are not inputs), and resync and state touch no state.
 * The admin API is not part of the spec, is not edge-limited and needs no
 * signature: bind the server to a private interface.
 *
 * Durability: an action that hands the driver an input or a clock step is
 * answered from `driver.whenDurable`, exactly like REST and /exec order
 * entry: when recording with sync durability, once the group commit holding
 * it is on disk, so a crash never loses an answered admin action. Answers
 * keep their order. Refusals made here before any input (400
 * INPUT_VALIDATION_ERROR, 409, 404, 405) and the reads (GET /admin,
 * GET /admin/state, and resync) are answered at once.
 *
 * Routes (all bodies are strict: an unknown field is refused):
 *
 * | Route | Body | Answer (200) |
 * |---|---|---|
 * | POST /admin/accounts | {wallet, accountId?, deposits?: {asset: amount}} | {accountId} (an explicit id is honoured) |
 * | POST /admin/deposits | {accountId, asset, amount} | {entries, balances} |
 * | POST /admin/withdrawals | {accountId, asset, amount} | {entries, balances} |
 * | POST /admin/transfers | {fromAccountId, toAccountId, asset, amount} | {entries, balances} |
 * | POST /admin/signers | {accountId, signer} | {accountId, signer} |
 * | POST /admin/assets/{asset} | {status: ENABLED or WITHDRAWAL_ONLY} | {asset, status} |
 * | POST /admin/prices | {prices: [{asset or symbol, price}]} | {updated} |
 * | POST /admin/clock | {advanceMs} or {to} (ms; manual clock only; at most one day ahead) | {virtualTime, virtualTimeMicros} |
 * | POST /admin/markets/{symbol} | {halted?, reopening?, settlementPaused?, orderEntryDisabled?, closed?, settlementPrice?} | {symbol} |
 * | POST /admin/wallets/{address} | {whitelisted?, suspended?, rateTier?, feeTierId?, og?, affiliate?, referrer?} | {wallet} |
 * | POST /admin/faults | see below | {faults: [names, in the order applied]} |
 * | POST /admin/resync | (none) | {closed}: stream connections closed with 1012 |
 * | GET /admin/state | | {virtualTime, virtualTimeMicros, clock, fingerprint, counts} |
 * | GET /admin | | {routes} |
 *
 * - Account creation and signer additions are published by the Exchange on
 *   the owner wallet's accounts channel (AccountNotification).
 * - Prices: `asset` sets an asset's index (oracle) price; `symbol` sets a
 *   perp's exchange-mark oracle, or a spot market's base-asset index.
 * - Markets: each flag is set or cleared on its own (a flag the body omits
 *   is left as it is; Exchange.marketAdmin has the full rules).
 *   `halted`: the market is halted, nothing matches: createOrder and
 *   modifyOrder get TRADING_HALTED_ERROR, armed stops wait for the halt to
 *   lift; cancels are accepted and resting orders stay.
 *   `orderEntryDisabled`: the market is cancel-only: createOrder and
 *   modifyOrder get SERVICE_DISABLED_ERROR, cancels are accepted, and the
 *   engine goes on matching (armed stops fire). With both set, new orders
 *   get SERVICE_DISABLED_ERROR and nothing matches.
 *   `reopening`, `settlementPaused`: crossing orders are refused
 *   (CROSSING_ORDERS_TEMPORARILY_UNAVAILABLE_ERROR); settlementPaused busts
 *   the market's matches at their block (MarketPaused).
 *   `closed: true` closes a perp market (its orders cancelled, MARKET_CLOSE
 *   executions at `settlementPrice`, default the mark, then halted); a
 *   closed market does not reopen.
 * - Wallets: an unknown wallet is registered; `feeTierId` names a VIP fee
 *   tier; `referrer` makes the wallet a referee of that wallet.
 * - Faults, one body for several: `{bustNext?: {count, reasonName?},
 *   bustProbability?, delayBlocksMs?, engineUnavailableMs?,
 *   accountOwnerUnavailableMs?, serviceDisabledMs?, oracleStaleMs?,
 *   dropResponses?}`. Each present fault is one fault input, sent in that
 *   order (the order of FaultAction in inputs.ts). bustNext busts the next
 *   `count` matches to settle (0 cancels) with reason `reasonName`
 *   (default "InjectedFailure"): a modeled reason (AccountBelowIM, ...) gets
 *   its typed fields from each busted match, any other name is the
 *   unmodeled `{reasonName, args: {}}`;
 *   the *Ms faults open a window of that many ms from now; dropResponses
 *   drops the responses of the next `count` order-entry requests (the
 *   requests still happen).
 *
 * Errors: 400 `{error, message}` (INPUT_VALIDATION_ERROR for a body that
 * fails its schema or a rule checked here, naming the field; otherwise the
 * Exchange's own code, e.g. NO_ACCOUNTS_FOUND_ERROR, SYMBOL_NOT_FOUND_ERROR,
 * INSUFFICIENT_BALANCE_ERROR); 409 CLOCK_NOT_MANUAL when the clock endpoint
 * is used on the wall clock; 404/405 for unknown routes and methods; 500
 * ServerError if the Exchange throws.
 *
 * A rejected admin action changes nothing: every rule that the Exchange
 * would check only after a first change (the deposits of a new account, a
 * market close, wallet flags the risk layer asserts) is checked here first,
 * and a faults body is validated whole before its first input is sent.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { DecimalInputError, toE18 } from "../core/decimal.ts";
import { MICROS_PER_MILLI, microsToMillis } from "../core/time.ts";
import type { ExchangeAnswer } from "../exchange/exchange.ts";
import type { AdminAction, ExchangeInput, FaultAction } from "../exchange/inputs.ts";
import { walletSettingsProblem } from "../exchange/wallet-settings.ts";
import { AssetStatus } from "../spec/enums.ts";
import { Address, ADDRESS_PATTERN, Asset, ASSET_PATTERN, MarketSymbol, SYMBOL_PATTERN, UNSIGNED_DECIMAL_PATTERN, UnsignedDecimal } from "../spec/scalars.ts";
import { quote } from "../exchange/gateway/validate/errors.ts";
import { JSON_NESTING_MAX, nestingMessage, nestsDeeperThan } from "./request-json.ts";
import { BODY_TOO_LARGE, REST_BODY_LIMIT_BYTES } from "./rest.ts";
import { CLOSED_MESSAGE } from "./driver.ts";
import { internalError, readBody, sendJson, type HttpHandler, type LiveContext } from "./server.ts";

// -- body schemas -------------------------------------------------------------------------------

const AccountId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Durations and counts of faults: positive integers, bounded so that ms x 1000 stays a safe integer. */
const DurationMs = z.number().int().min(1).max(1e12);

export const CreateAccountBody = z.strictObject({
  wallet: Address,
  accountId: AccountId.exactOptional(),
  deposits: z.record(Asset, UnsignedDecimal).exactOptional(),
});
export const BalanceBody = z.strictObject({ accountId: AccountId, asset: Asset, amount: UnsignedDecimal });
export const TransferBody = z.strictObject({ fromAccountId: AccountId, toAccountId: AccountId, asset: Asset, amount: UnsignedDecimal });
export const SignerBody = z.strictObject({ accountId: AccountId, signer: Address });
export const AssetStatusBody = z.strictObject({ status: AssetStatus });
export const PricesBody = z.strictObject({
  prices: z
    .array(z.strictObject({ asset: Asset.exactOptional(), symbol: MarketSymbol.exactOptional(), price: UnsignedDecimal }))
    .min(1)
    .max(1000),
});
/**
 * How far one clock call may move virtual time: one day. The server runs
 * every block, funding step and agent timer on the way (about 0.25 s of work
 * per simulated hour of the default world) and answers no other client
 * meanwhile, so one unbounded call (advanceMs 1e12: 31 years) would hang it;
 * a client that needs longer advances in steps.
 */
export const CLOCK_STEP_MAX_MS = 86_400_000;

export const ClockBody = z.strictObject({
  advanceMs: z.number().int().min(0).exactOptional(),
  to: z.number().int().min(0).max(Math.floor(Number.MAX_SAFE_INTEGER / MICROS_PER_MILLI)).exactOptional(),
});
export const MarketBody = z.strictObject({
  halted: z.boolean().exactOptional(),
  reopening: z.boolean().exactOptional(),
  settlementPaused: z.boolean().exactOptional(),
  orderEntryDisabled: z.boolean().exactOptional(),
  closed: z.boolean().exactOptional(),
  settlementPrice: UnsignedDecimal.exactOptional(),
});
export const WalletBody = z.strictObject({
  whitelisted: z.boolean().exactOptional(),
  suspended: z.boolean().exactOptional(),
  rateTier: z.number().int().min(1).exactOptional(),
  feeTierId: z.number().int().min(0).exactOptional(),
  og: z.boolean().exactOptional(),
  affiliate: z.boolean().exactOptional(),
  referrer: Address.exactOptional(),
});
export const FaultsBody = z.strictObject({
  bustNext: z
    .strictObject({
      count: z.number().int().min(0).max(1e9),
      reasonName: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9_]*$/)
        .exactOptional(),
    })
    .exactOptional(),
  bustProbability: z.number().min(0).max(1).exactOptional(),
  delayBlocksMs: DurationMs.exactOptional(),
  engineUnavailableMs: DurationMs.exactOptional(),
  accountOwnerUnavailableMs: DurationMs.exactOptional(),
  serviceDisabledMs: DurationMs.exactOptional(),
  oracleStaleMs: DurationMs.exactOptional(),
  dropResponses: z.number().int().min(1).max(1e9).exactOptional(),
});

/** reasonName of bustNext when none is given. */
export const DEFAULT_BUST_REASON_NAME = "InjectedFailure";

// -- answers ------------------------------------------------------------------------------------

interface AdminReply {
  status: number;
  body: unknown;
}

/** A rejection answered before anything is sent to the Exchange. */
class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function invalid(message: string): AdminError {
  return new AdminError(400, "INPUT_VALIDATION_ERROR", message);
}

function issuePath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) text += typeof key === "number" ? `[${key}]` : `${text === "" ? "" : "."}${String(key)}`;
  return text === "" ? "body" : text;
}

/** What a value of the spec's patterns looks like, for a refusal that names the rule rather than the regex. */
const PATTERN_RULES: readonly (readonly [RegExp, string])[] = [
  [UNSIGNED_DECIMAL_PATTERN, 'must be an unsigned decimal string, e.g. "100" or "2.5"'],
  [ADDRESS_PATTERN, "must be an address: 0x and 40 hex digits"],
  // Symbols and assets share one pattern: one rule for both.
  [SYMBOL_PATTERN.source === ASSET_PATTERN.source ? SYMBOL_PATTERN : ASSET_PATTERN, "must be letters and digits only"],
];

/** The keys the object schema at `path` of `schema` takes, or undefined when there is no object there. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let at: unknown = schema;
  for (const key of path) at = at instanceof z.ZodObject ? (at.shape as Record<string, unknown>)[String(key)] : undefined;
  return at instanceof z.ZodObject ? Object.keys(at.shape as object) : undefined;
}

/** One zod issue as a refusal names it: the field, then the rule (a pattern described, unknown keys with the keys taken). */
function issueText(schema: z.ZodType, issue: z.core.$ZodIssue): string {
  const field = issuePath(issue.path);
  if (issue.code === "invalid_format" && issue.format === "regex") {
    const rule = PATTERN_RULES.find(([pattern]) => String(pattern) === (issue as { pattern?: string }).pattern);
    if (rule !== undefined) return `${field}: ${rule[1]}`;
  }
  if (issue.code === "unrecognized_keys") {
    const keys = keysAt(schema, issue.path);
    if (keys !== undefined) return `${field}: ${issue.message} (it takes ${keys.join(", ")})`;
  }
  return `${field}: ${issue.message}`;
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 3).map((issue) => issueText(schema, issue));
  throw invalid(issues.join("; "));
}

function fromAnswer(answer: ExchangeAnswer, extra: Record<string, unknown> = {}): AdminReply {
  if (answer.ok) return { status: 200, body: { ...answer.payload, ...extra } };
  return { status: 400, body: answer.error };
}

// -- checks made before the Exchange sees the action -----------------------------------------------

/** The amount must be an UnsignedDecimal the asset can hold: positive, within its decimals. */
function checkAmount(context: LiveContext, field: string, asset: string, amount: string): void {
  const definition = context.exchange.config.risk.assets.find((candidate) => candidate.asset === asset);
  if (definition === undefined) throw invalid(`${field === "amount" ? "asset" : field}: asset ${quote(asset)} is not a configured asset`);
  let scaled: bigint;
  try {
    scaled = toE18(amount, field, { signed: false });
  } catch (error) {
    if (error instanceof DecimalInputError) throw invalid(error.message);
    throw error;
  }
  if (scaled <= 0n) throw invalid(`${field} ${quote(amount)} must be greater than 0`);
  if (definition.decimals < 18 && scaled % 10n ** BigInt(18 - definition.decimals) !== 0n) {
    throw invalid(`${field} ${quote(amount)} has more than ${definition.decimals} decimals of ${asset}`);
  }
}

/**
 * A "__proto__" key of `deposits` (JSON.parse makes it an own property)
 * would not come out of zod's record: the account would be created without
 * the deposit asked for, silently. No asset has that name.
 */
function refuseProtoDepositKey(raw: unknown): void {
  if (typeof raw !== "object" || raw === null) return;
  const deposits = (raw as Record<string, unknown>)["deposits"];
  if (typeof deposits === "object" && deposits !== null && Object.hasOwn(deposits, "__proto__")) {
    throw invalid(`deposits: key "__proto__" is not an asset (an asset matches ${ASSET_PATTERN.source})`);
  }
}

function checkDeposits(context: LiveContext, deposits: Readonly<Record<string, string>>): void {
  const statuses = new Map(context.queries.assetDefinitions().map((definition) => [definition.asset, definition.status]));
  for (const [asset, amount] of Object.entries(deposits)) {
    checkAmount(context, `deposits.${asset}`, asset, amount);
    const status = statuses.get(asset);
    if (status !== "ENABLED") throw invalid(`deposits.${asset}: asset ${quote(asset)} is ${status}: deposits are not accepted`);
  }
}

/** Rules the Exchange checks only after the market's first change, or asserts. */
function checkMarket(context: LiveContext, symbol: string, body: z.infer<typeof MarketBody>): void {
  if (Object.keys(body).length === 0) throw invalid("body must set at least one of halted, reopening, settlementPaused, orderEntryDisabled, closed");
  if (body.closed === false) throw invalid("closed can only be true: a closed market does not reopen");
  if (body.settlementPrice !== undefined && body.closed !== true) throw invalid("settlementPrice is given only with closed: true");
  const ref = context.exchange.marketsBySymbol.get(symbol);
  if (ref === undefined || body.closed !== true) return; // an unknown symbol is the Exchange's SYMBOL_NOT_FOUND_ERROR
  if (ref.kind !== "perp") throw invalid(`closed: only perp markets can be closed; ${symbol} is a spot market`);
  const perp = context.exchange.risk.state.perps.get(ref.marketId)!;
  if (perp.closed) throw invalid(`closed: ${symbol} is already closed`);
  const pending = [...context.exchange.risk.state.pending.values()].filter((match) => match.marketId === ref.marketId).length;
  if (pending > 0) throw invalid(`closed: ${symbol} has ${pending} matches pending settlement: advance the clock past the next block, then close`);
  if (body.settlementPrice !== undefined) {
    const ticks = context.exchange.engine.marketBySymbol(symbol)!.units.toTicks(body.settlementPrice, "settlementPrice");
    if (!ticks.ok) throw invalid(ticks.error.message);
    if (ticks.value < 1) throw invalid(`settlementPrice ${quote(body.settlementPrice)} must be greater than 0`);
  } else if (perp.mark === undefined && [...perp.holders.values()].some((position) => position.q !== 0n)) {
    throw invalid(`settlementPrice: ${symbol} has no mark price yet, so the settlement price must be given`);
  }
}

function checkWallet(context: LiveContext, wallet: string, body: z.infer<typeof WalletBody>): void {
  const problem = walletSettingsProblem(context.exchange.config, wallet, body);
  if (problem !== null) throw invalid(problem);
}

// -- actions ------------------------------------------------------------------------------------

type Params = Readonly<Record<string, string>>;
type Action = (context: LiveContext, body: unknown, params: Params) => AdminReply;

function admin(context: LiveContext, action: AdminAction): ExchangeAnswer {
  return context.driver.handle({ kind: "admin", admin: action });
}

function balancesOf(context: LiveContext, accountIds: readonly number[]): unknown[] {
  return accountIds.flatMap((accountId) => (context.exchange.risk.accountOwner(accountId) === undefined ? [] : context.exchange.risk.balances(accountId)));
}

const createAccount: Action = (context, raw) => {
  refuseProtoDepositKey(raw);
  const body = parse(CreateAccountBody, raw);
  if (body.deposits !== undefined) checkDeposits(context, body.deposits);
  return fromAnswer(admin(context, { action: "createAccount", ...body }));
};

const balanceAction = (kind: "deposit" | "withdraw"): Action => (context, raw) => {
  const body = parse(BalanceBody, raw);
  checkAmount(context, "amount", body.asset, body.amount);
  const answer = admin(context, { action: kind, ...body });
  return fromAnswer(answer, answer.ok ? { balances: balancesOf(context, [body.accountId]) } : {});
};

const transfer: Action = (context, raw) => {
  const body = parse(TransferBody, raw);
  if (body.fromAccountId === body.toAccountId) throw invalid("toAccountId must differ from fromAccountId");
  checkAmount(context, "amount", body.asset, body.amount);
  const answer = admin(context, { action: "transfer", ...body });
  return fromAnswer(answer, answer.ok ? { balances: balancesOf(context, [body.fromAccountId, body.toAccountId]) } : {});
};

const addSigner: Action = (context, raw) => fromAnswer(admin(context, { action: "addSigner", ...parse(SignerBody, raw) }));

const assetStatus: Action = (context, raw, params) => {
  const body = parse(AssetStatusBody, raw);
  const asset = params["asset"]!;
  if (!context.exchange.config.risk.assets.some((candidate) => candidate.asset === asset)) throw invalid(`asset ${quote(asset)} is not a configured asset`);
  return fromAnswer(admin(context, { action: "assetStatus", asset, status: body.status }));
};

const prices: Action = (context, raw) => {
  const body = parse(PricesBody, raw);
  return fromAnswer(context.driver.handle({ kind: "prices", prices: body.prices }));
};

const clock: Action = (context, raw) => {
  const body = parse(ClockBody, raw);
  if ((body.advanceMs === undefined) === (body.to === undefined)) throw invalid("body must give exactly one of advanceMs and to");
  const { driver } = context;
  if (driver.clock !== "manual") throw new AdminError(409, "CLOCK_NOT_MANUAL", "the clock can only be moved by hand on a manual clock (serve with --clock manual)");
  // Shutting down: the input log is closed, and a move now would be run but not logged (as an input would: driver.handle).
  if (driver.isClosed) return fromAnswer({ ok: false, error: { error: "SERVICE_DISABLED_ERROR", message: CLOSED_MESSAGE } });
  if (body.to !== undefined && body.to * MICROS_PER_MILLI < driver.now()) {
    throw invalid(`to ${body.to} is before the current virtual time ${microsToMillis(driver.now())} (ms): the clock never goes back`);
  }
  const stepMs = body.advanceMs ?? body.to! - microsToMillis(driver.now());
  if (stepMs > CLOCK_STEP_MAX_MS) {
    const asked = body.advanceMs !== undefined ? `advanceMs ${body.advanceMs}` : `to ${body.to} (${stepMs} ms ahead)`;
    throw invalid(`${asked} moves the clock more than one day (${CLOCK_STEP_MAX_MS} ms) in one call: advance in steps`);
  }
  const now = body.advanceMs !== undefined ? driver.advanceBy(body.advanceMs) : driver.advanceTo(body.to! * MICROS_PER_MILLI);
  return { status: 200, body: { virtualTime: microsToMillis(now), virtualTimeMicros: now } };
};

const market: Action = (context, raw, params) => {
  const body = parse(MarketBody, raw);
  const symbol = params["symbol"]!;
  checkMarket(context, symbol, body);
  return fromAnswer(admin(context, { action: "market", symbol, ...body }));
};

const wallet: Action = (context, raw, params) => {
  const body = parse(WalletBody, raw);
  const address = params["address"]!;
  checkWallet(context, address, body);
  return fromAnswer(admin(context, { action: "wallet", wallet: address, ...body }));
};

/** The fault inputs of a faults body, in the documented order. */
export function faultInputs(body: z.infer<typeof FaultsBody>): FaultAction[] {
  const faults: FaultAction[] = [];
  if (body.bustNext !== undefined) faults.push({ fault: "bustNext", count: body.bustNext.count, reasonName: body.bustNext.reasonName ?? DEFAULT_BUST_REASON_NAME });
  if (body.bustProbability !== undefined) faults.push({ fault: "bustProbability", probability: body.bustProbability });
  if (body.delayBlocksMs !== undefined) faults.push({ fault: "delayBlocks", durationMs: body.delayBlocksMs });
  if (body.engineUnavailableMs !== undefined) faults.push({ fault: "engineUnavailable", durationMs: body.engineUnavailableMs });
  if (body.accountOwnerUnavailableMs !== undefined) faults.push({ fault: "accountOwnerUnavailable", durationMs: body.accountOwnerUnavailableMs });
  if (body.serviceDisabledMs !== undefined) faults.push({ fault: "serviceDisabled", durationMs: body.serviceDisabledMs });
  if (body.oracleStaleMs !== undefined) faults.push({ fault: "oracleStale", durationMs: body.oracleStaleMs });
  if (body.dropResponses !== undefined) faults.push({ fault: "dropResponses", count: body.dropResponses });
  return faults;
}

const faults: Action = (context, raw) => {
  const inputs = faultInputs(parse(FaultsBody, raw));
  if (inputs.length === 0) throw invalid("body must set at least one fault");
  for (const fault of inputs) {
    const answer = context.driver.handle({ kind: "fault", fault } satisfies ExchangeInput);
    if (!answer.ok) return fromAnswer(answer);
  }
  return { status: 200, body: { faults: inputs.map((fault) => fault.fault) } };
};

const resync: Action = (context) => ({ status: 200, body: { closed: context.resyncStreams() } });

const state: Action = (context) => {
  const now = context.driver.now();
  return {
    status: 200,
    body: { virtualTime: microsToMillis(now), virtualTimeMicros: now, clock: context.driver.clock, fingerprint: context.fingerprint(), counts: context.counts() },
  };
};

// -- routing --------------------------------------------------------------------------------------

interface AdminRoute {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly action: Action;
  /** False for routes that read no body. */
  readonly body: boolean;
  /**
   * True for routes that hand the driver inputs or clock steps: their answer
   * waits for the input log (`driver.whenDurable`), as REST and /exec
   * answers do. The reads (and resync, which changes no state) answer at once.
   */
  readonly durable: boolean;
}

const ROUTES: readonly AdminRoute[] = [
  { method: "GET", path: "/admin", action: () => ({ status: 200, body: { routes: ROUTES.map((route) => `${route.method} ${route.path}`) } }), body: false, durable: false },
  { method: "POST", path: "/admin/accounts", action: createAccount, body: true, durable: true },
  { method: "POST", path: "/admin/deposits", action: balanceAction("deposit"), body: true, durable: true },
  { method: "POST", path: "/admin/withdrawals", action: balanceAction("withdraw"), body: true, durable: true },
  { method: "POST", path: "/admin/transfers", action: transfer, body: true, durable: true },
  { method: "POST", path: "/admin/signers", action: addSigner, body: true, durable: true },
  { method: "POST", path: "/admin/assets/{asset}", action: assetStatus, body: true, durable: true },
  { method: "POST", path: "/admin/prices", action: prices, body: true, durable: true },
  { method: "POST", path: "/admin/clock", action: clock, body: true, durable: true },
  { method: "POST", path: "/admin/markets/{symbol}", action: market, body: true, durable: true },
  { method: "POST", path: "/admin/wallets/{address}", action: wallet, body: true, durable: true },
  { method: "POST", path: "/admin/faults", action: faults, body: true, durable: true },
  { method: "POST", path: "/admin/resync", action: resync, body: false, durable: false },
  { method: "GET", path: "/admin/state", action: state, body: false, durable: false },
];

const PARAM_PATTERNS: Readonly<Record<string, RegExp>> = { asset: ASSET_PATTERN, symbol: SYMBOL_PATTERN, address: ADDRESS_PATTERN };

function match(template: string, path: string): Record<string, string> | null {
  const want = template.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (!segment.startsWith("{")) {
      if (segment !== got[i]) return null;
      continue;
    }
    const name = segment.slice(1, -1);
    let value: string;
    try {
      value = decodeURIComponent(got[i]!);
    } catch {
      throw invalid(`${name} ${quote(got[i]!)} is not valid percent-encoding`);
    }
    if (!PARAM_PATTERNS[name]!.test(value)) throw invalid(`${name} ${quote(value)} does not match ${PARAM_PATTERNS[name]!.source}`);
    params[name] = value;
  }
  return params;
}

async function readJson(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
  const mediaType = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") throw invalid(`request body must be application/json, got ${mediaType === undefined ? "no content type" : quote(mediaType)}`);
  const text = await readBody(request, response, REST_BODY_LIMIT_BYTES);
  if (text === undefined) throw invalid(BODY_TOO_LARGE);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw invalid(`request body is not valid JSON: ${(error as Error).message}`);
  }
  if (nestsDeeperThan(body, JSON_NESTING_MAX)) throw invalid(nestingMessage("request body"));
  return body;
}

async function serve(context: LiveContext, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  const method = (request.method ?? "GET").toUpperCase();
  const candidates = ROUTES.filter((route) => route.path.split("/").length === url.pathname.split("/").length);
  let found: { route: AdminRoute; params: Record<string, string> } | undefined;
  const allowed: string[] = [];
  for (const route of candidates) {
    const params = match(route.path, url.pathname);
    if (params === null) continue;
    allowed.push(route.method);
    if (route.method === method) found = { route, params };
  }
  if (allowed.length === 0) return sendJson(response, 404, { error: "NOT_FOUND", message: `no admin route ${method} ${url.pathname}` });
  if (found === undefined) {
    response.setHeader("allow", allowed.join(", "));
    return sendJson(response, 405, { error: "METHOD_NOT_ALLOWED", message: `method ${method} is not allowed on ${url.pathname}; allowed: ${allowed.join(", ")}` });
  }
  const body = found.route.body ? await readJson(request, response) : undefined;
  const reply = found.route.action(context, body, found.params);
  if (found.route.durable) context.driver.whenDurable(() => sendJson(response, reply.status, reply.body));
  else sendJson(response, reply.status, reply.body);
}

export function createAdminHandler(context: LiveContext): HttpHandler {
  return (request, response, url) => {
    serve(context, request, response, url).catch((error: unknown) => {
      // An AdminError is thrown before any input (nothing to wait for); the Exchange throwing leaves a logged step.
      if (error instanceof AdminError) sendJson(response, error.status, { error: error.code, message: error.message });
      else context.driver.whenDurable(() => internalError(response, error));
    });
  };
}
