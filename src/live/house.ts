/**
 * The house: what makes a live mock server look like a market when no
 * scenario brings agents of its own.
 *
 * - An oracle feed: at most once per second of virtual time, every asset
 *   with a start price moves by a seeded geometric Brownian step; the
 *   asset prices and each perp's exchange-mark oracle (a small seeded basis
 *   from its index) are published as a prices input, like any other input
 *   (so it is logged and replays).
 * - Market makers: one funded tier-3 account per market, perp and spot,
 *   quoting a ladder of post-only GTC orders around the oracle price (a
 *   perp's index asset, a spot market's base asset), requoted every few
 *   seconds with cancelAll + creates, signed like any client's requests.
 *   Perp makers hold rUSD; spot makers hold both the quote and the base
 *   asset, since a spot order is checked against what it would spend.
 *
 * The house acts on `tick(now)`: the wall-clock server calls it from a timer,
 * and a manual-clock server from the clock endpoint, so with `--clock
 * manual` the house only acts when the clock is advanced. It acts at the
 * time it is woken, once per kind of action due: a manual clock moved by a
 * minute in one call moves prices one step and requotes once (at the new
 * time), not sixty steps at the times in between (the Exchange is already
 * there). Advance in steps of a second or less to get the per-second feed.
 * The agents of `serve <scenario>` behave alike (src/cli/serve-scenario.ts).
 */
import type { Hex } from "viem";
import { createClient, type Client } from "../client/client.ts";
import { createMarketDirectory } from "../client/markets.ts";
import type { OrderEntryTransport } from "../client/transport.ts";
import { RngRoot, type Rng } from "../core/rng.ts";
import { MICROS_PER_SECOND, type Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { LiveDriver } from "./driver.ts";

export interface HouseOptions {
  seed: number | string;
  /** Starting index price per asset (default: ETH 3000, BTC 60000). */
  startPrices?: Readonly<Record<string, number>>;
  /** Seconds between requotes. */
  requoteSeconds?: number;
  /** Price levels per side. */
  levels?: number;
}

const DEFAULT_START_PRICES: Readonly<Record<string, number>> = { WETH: 3000, WBTC: 60000 };
/** Hourly volatility of the oracle's random walk. */
const HOURLY_VOLATILITY = 0.01;

/** Market-maker keys: deterministic, far from any key a test or client would pick. */
function houseKey(index: number): Hex {
  return `0x${(0x5ad0b00c00000000n + BigInt(index)).toString(16).padStart(64, "0")}`;
}

/** Perp makers hold rUSD collateral only. */
const PERP_MAKER_DEPOSITS: Readonly<Record<string, string>> = { rUSD: "10000000" };
/** Spot makers hold both sides of their market (about equal value at the default start price). */
const SPOT_MAKER_QUOTE_DEPOSIT = "10000000";
const SPOT_MAKER_BASE_DEPOSIT = "3000";

/** A market the house quotes: a perp around its index asset, a spot market around its base asset. */
interface MakerMarket {
  readonly symbol: string;
  readonly asset: string;
  readonly tickSize: string;
  readonly minOrderQty: string;
  readonly deposits: Readonly<Record<string, string>>;
}

interface Maker {
  readonly client: Client;
  readonly symbol: string;
  readonly asset: string;
  readonly tickDecimals: number;
  readonly qty: string;
}

export class House {
  private readonly prices = new Map<string, number>();
  private readonly oracle: Rng;
  private readonly makers: Maker[] = [];
  private nextOracleAt: Micros;
  private nextQuoteAt: Micros;
  private acting = false;

  constructor(
    private readonly driver: LiveDriver,
    private readonly config: ExchangeConfig,
    private readonly options: HouseOptions,
  ) {
    const rng = new RngRoot(options.seed);
    this.oracle = rng.stream("house:oracle");
    for (const asset of config.risk.assets) {
      const start = (options.startPrices ?? DEFAULT_START_PRICES)[asset.asset];
      if (start !== undefined) this.prices.set(asset.asset, start);
    }
    const now = driver.now();
    this.nextOracleAt = now;
    this.nextQuoteAt = now;
  }

  /** Creates and funds the makers' accounts (admin inputs) and publishes the first prices. */
  open(): void {
    this.acting = true; // the admin inputs below move time: no ticking until the makers exist
    const transport = this.transport();
    const markets = createMarketDirectory({
      perp: this.config.risk.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
      spot: this.config.risk.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
    });
    // Perps first (their keys, accounts and order of acting are those of a house without spot makers), then spot.
    const quoted: MakerMarket[] = [
      ...this.config.risk.perpMarkets.map((m) => ({ symbol: m.symbol, asset: m.indexAsset, tickSize: m.tickSize, minOrderQty: m.minOrderQty, deposits: PERP_MAKER_DEPOSITS })),
      ...this.config.risk.spotMarkets.map((m) => ({
        symbol: m.symbol,
        asset: m.baseAsset,
        tickSize: m.tickSize,
        minOrderQty: m.minOrderQty,
        // A spot order is checked against the asset it would spend: bids need the quote asset, asks the base.
        deposits: { [m.quoteAsset]: SPOT_MAKER_QUOTE_DEPOSIT, [m.baseAsset]: SPOT_MAKER_BASE_DEPOSIT },
      })),
    ];
    quoted.forEach((market, index) => {
      const key = houseKey(index);
      const client = createClient({
        transport,
        signer: key,
        accountId: 0,
        markets,
        clock: { now: () => this.driver.now() },
        signing: this.config.signing,
        exchangeId: this.config.gateway.exchangeId,
        retry: false,
      });
      const created = this.driver.handle({
        kind: "admin",
        admin: { action: "createAccount", wallet: client.address, deposits: market.deposits },
      });
      if (!created.ok) throw new Error(`house account for ${market.symbol}: ${created.error.message}`);
      this.driver.handle({ kind: "admin", admin: { action: "wallet", wallet: client.address, rateTier: 3 } });
      const accountId = Number(created.payload["accountId"]);
      const bound = createClient({
        transport,
        signer: key,
        accountId,
        markets,
        clock: { now: () => this.driver.now() },
        signing: this.config.signing,
        exchangeId: this.config.gateway.exchangeId,
        retry: false,
      });
      const tickDecimals = (market.tickSize.split(".")[1] ?? "").length;
      this.makers.push({ client: bound, symbol: market.symbol, asset: market.asset, tickDecimals, qty: market.minOrderQty });
    });
    this.acting = false;
    this.tick(this.driver.now());
  }

  /** Acts for everything due at `now`: oracle steps, then requotes. */
  tick(now: Micros): void {
    if (this.acting) return;
    this.acting = true;
    try {
      if (now >= this.nextOracleAt) {
        this.publishPrices();
        this.nextOracleAt = now + MICROS_PER_SECOND;
      }
      if (now >= this.nextQuoteAt) {
        for (const maker of this.makers) this.requote(maker);
        this.nextQuoteAt = now + (this.options.requoteSeconds ?? 5) * MICROS_PER_SECOND;
      }
    } finally {
      this.acting = false;
    }
  }

  private publishPrices(): void {
    const stepSd = HOURLY_VOLATILITY / Math.sqrt(3600);
    const prices: { asset?: string; symbol?: string; price: string }[] = [];
    for (const [asset, price] of this.prices) {
      const next = price * Math.exp(this.oracle.normal(0, stepSd));
      this.prices.set(asset, next);
      prices.push({ asset, price: next.toFixed(2) });
    }
    for (const market of this.config.risk.perpMarkets) {
      const index = this.prices.get(market.indexAsset);
      if (index === undefined) continue;
      const tickDecimals = (market.tickSize.split(".")[1] ?? "").length;
      prices.push({ symbol: market.symbol, price: (index * (1 + this.oracle.normal(0, 0.0002))).toFixed(tickDecimals) });
    }
    this.driver.handle({ kind: "prices", prices });
  }

  private requote(maker: Maker): void {
    const mid = this.prices.get(maker.asset);
    if (mid === undefined) return;
    const levels = this.options.levels ?? 5;
    void maker.client.cancelAll({ symbol: maker.symbol }).catch(() => undefined);
    for (let level = 1; level <= levels; level++) {
      const offset = mid * 0.0005 * level;
      for (const isBuy of [true, false]) {
        const limitPx = (isBuy ? mid - offset : mid + offset).toFixed(maker.tickDecimals);
        void maker.client
          .createOrder({ symbol: maker.symbol, isBuy, limitPx, qty: maker.qty, timeInForce: "GTC", postOnly: true })
          .catch(() => undefined);
      }
    }
  }

  private transport(): OrderEntryTransport {
    return {
      request: (operation, body) => {
        const answer = this.driver.handle({ kind: "request", op: operation, body });
        return Promise.resolve(answer.ok ? { ok: true as const, payload: answer.payload } : { ok: false as const, error: answer.error });
      },
    };
  }
}
