/**
 * Published limits and constants of the contract (spec 8, 9), named with
 * their unit last. First-tier (default) values only: the spec does not show
 * the second and third tiers' numbers (8.3). One value here is not
 * published: the default IOC price band (7.3), the simulator's choice,
 * marked as such. The relations between the limits are asserted when this
 * module loads.
 */
import { UNSIGNED_DECIMAL_PATTERN } from "./scalars.ts";

/** Contract version this simulator implements (spec 9). */
export const CONTRACT_VERSION = "3.5.2";
/** Path prefix of every REST route and streaming channel (spec 9). */
export const API_PATH_PREFIX = "/v2";

// 8.1 Per-wallet request rate, keyed by signing wallet, shared by REST and WebSocket.
/** Sliding window of the per-wallet rate limits. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** createOrder and cancelOrder together, per window (one shared bucket). */
export const CREATE_CANCEL_BUCKET_TIER1 = 30;
/** cancelAll, per window (its own bucket). cancelAllAfter counts toward no bucket. */
export const CANCEL_ALL_BUCKET_TIER1 = 10;

// 8.2 Open-order caps, checked at placement; IOC orders never rest and do not count.
/** Open GTC orders per wallet. */
export const OPEN_ORDER_COUNT_MAX_TIER1 = 100;
/** Total notional of open GTC orders per wallet, a decimal string in USD. */
export const OPEN_ORDER_NOTIONAL_MAX_USD_TIER1 = "5000";

// 8.4 Network-edge limit (REST only): fixed window per source IP or API key, HTTP 429 beyond.
/** REST requests per edge window. */
export const EDGE_LIMIT_REQUESTS = 1000;
/** Fixed window of the edge limit. */
export const EDGE_LIMIT_WINDOW_MS = 60_000;

// 8.5 Other numeric constants.
/** How far ahead the deadline of an IOC order, cancelOrder or cancelAll may be (GTC/GTT: no cap). */
export const DEADLINE_HORIZON_SECONDS_MAX = 600;
/** cancelAllAfter timeoutMs that disarms the switch. */
export const CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM = 0;
/** Smallest non-zero cancelAllAfter timeoutMs. */
export const CANCEL_ALL_AFTER_TIMEOUT_MS_MIN = 5000;
/** Largest cancelAllAfter timeoutMs. */
export const CANCEL_ALL_AFTER_TIMEOUT_MS_MAX = 60000;
/** Levels per side of the depth stream (no size parameter). */
export const DEPTH_STREAM_LEVELS = 100;
/** Levels per side of REST depth without a `limit` query. */
export const DEPTH_REST_LIMIT_DEFAULT = 100;
/** Largest `limit` of REST depth, levels per side. */
export const DEPTH_REST_LIMIT_MAX = 1000;
/** Rows per orderHistory request. */
export const ORDER_HISTORY_LIMIT_MAX = 100;
/** A perp oraclePrice older than this is omitted from MarketSummary. */
export const ORACLE_FRESHNESS_MS = 60_000;
/** Graceful-shutdown drain (close code 1001, readiness 503). */
export const SHUTDOWN_DRAIN_MS = 10_000;

// 7.3 The on-chain price-limit check of a perp IOC. The spec names the check (a perp IOC whose limit price cannot be filled
// within it is CREATE_ORDER_OTHER_ERROR) but publishes no value for it.
/**
 * The default band of that check: a perp IOC's limit may be at most this far
 * from the mark price, bps (1,000 = 10 %). The service publishes no value:
 * this is the simulator's choice, kept here rather than in the exchange's
 * config because both sides of the client interface need it (the gateway's
 * default, DEFAULT_GATEWAY_CONFIG, and the agents, which cannot read a run's
 * band and must keep their crosses inside it: agents/lib/ioc-band.ts). A
 * scenario may set another band (`gateway.iocPriceBandBps`); the agents
 * still assume this one.
 */
export const IOC_PRICE_BAND_BPS_DEFAULT = 1_000;

/**
 * Most fraction digits a decimal input may carry: amounts are signed as E18
 * fixed point (spec 5), so a 19th digit cannot be represented (DESIGN.md:
 * more is INPUT_VALIDATION_ERROR, never rounded).
 */
export const DECIMAL_FRACTION_DIGITS_MAX = 18;

function assertLimit(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`Limit relation violated: ${message}`);
}

function assertPositiveInteger(value: number, name: string): void {
  assertLimit(Number.isSafeInteger(value), `${name} ${value} is not a safe integer`);
  assertLimit(value > 0, `${name} ${value} is not positive`);
}

assertPositiveInteger(RATE_LIMIT_WINDOW_MS, "RATE_LIMIT_WINDOW_MS");
assertPositiveInteger(CREATE_CANCEL_BUCKET_TIER1, "CREATE_CANCEL_BUCKET_TIER1");
assertPositiveInteger(CANCEL_ALL_BUCKET_TIER1, "CANCEL_ALL_BUCKET_TIER1");
assertPositiveInteger(OPEN_ORDER_COUNT_MAX_TIER1, "OPEN_ORDER_COUNT_MAX_TIER1");
assertPositiveInteger(EDGE_LIMIT_REQUESTS, "EDGE_LIMIT_REQUESTS");
assertPositiveInteger(EDGE_LIMIT_WINDOW_MS, "EDGE_LIMIT_WINDOW_MS");
assertPositiveInteger(DEADLINE_HORIZON_SECONDS_MAX, "DEADLINE_HORIZON_SECONDS_MAX");
assertPositiveInteger(CANCEL_ALL_AFTER_TIMEOUT_MS_MIN, "CANCEL_ALL_AFTER_TIMEOUT_MS_MIN");
assertPositiveInteger(CANCEL_ALL_AFTER_TIMEOUT_MS_MAX, "CANCEL_ALL_AFTER_TIMEOUT_MS_MAX");
assertPositiveInteger(DEPTH_STREAM_LEVELS, "DEPTH_STREAM_LEVELS");
assertPositiveInteger(IOC_PRICE_BAND_BPS_DEFAULT, "IOC_PRICE_BAND_BPS_DEFAULT");
assertPositiveInteger(DEPTH_REST_LIMIT_DEFAULT, "DEPTH_REST_LIMIT_DEFAULT");
assertPositiveInteger(DEPTH_REST_LIMIT_MAX, "DEPTH_REST_LIMIT_MAX");
assertPositiveInteger(ORDER_HISTORY_LIMIT_MAX, "ORDER_HISTORY_LIMIT_MAX");
assertPositiveInteger(ORACLE_FRESHNESS_MS, "ORACLE_FRESHNESS_MS");
assertPositiveInteger(SHUTDOWN_DRAIN_MS, "SHUTDOWN_DRAIN_MS");
assertPositiveInteger(DECIMAL_FRACTION_DIGITS_MAX, "DECIMAL_FRACTION_DIGITS_MAX");
assertLimit(
  CANCEL_ALL_AFTER_TIMEOUT_MS_DISARM < CANCEL_ALL_AFTER_TIMEOUT_MS_MIN,
  "the disarm timeoutMs must lie below the armed range",
);
assertLimit(
  CANCEL_ALL_AFTER_TIMEOUT_MS_MIN < CANCEL_ALL_AFTER_TIMEOUT_MS_MAX,
  "CANCEL_ALL_AFTER_TIMEOUT_MS_MIN must be below CANCEL_ALL_AFTER_TIMEOUT_MS_MAX",
);
assertLimit(DEPTH_REST_LIMIT_DEFAULT <= DEPTH_REST_LIMIT_MAX, "DEPTH_REST_LIMIT_DEFAULT must not exceed DEPTH_REST_LIMIT_MAX");
assertLimit(DEPTH_STREAM_LEVELS <= DEPTH_REST_LIMIT_MAX, "DEPTH_STREAM_LEVELS must not exceed DEPTH_REST_LIMIT_MAX");
assertLimit(
  UNSIGNED_DECIMAL_PATTERN.test(OPEN_ORDER_NOTIONAL_MAX_USD_TIER1),
  "OPEN_ORDER_NOTIONAL_MAX_USD_TIER1 must be an UnsignedDecimal",
);
assertLimit(/^\d+\.\d+\.\d+$/.test(CONTRACT_VERSION), "CONTRACT_VERSION must be major.minor.patch");
