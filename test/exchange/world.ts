/**
 * A small Exchange world for settlement tests: trusted mode, accounts with
 * deposits (tier 3, so that neither rate limits nor open-order caps get in
 * the way), index and oracle prices for ETH, signed-shaped createOrder
 * requests, 100 ms steps of the timers (blocks), and every output kept.
 */
import { expect } from "vitest";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";

export const T0 = 1_767_225_600_000_000;
export const ETH = "ETHRUSDPERP";
export const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** An Exchange in trusted mode with the few inputs these cases need, its outputs kept. */
export class World {
  readonly exchange: Exchange;
  readonly outputs: ExchangeOutput[] = [];
  now = T0;
  private readonly nonces = new Map<number, number>();
  private readonly wallets = new Map<number, string>();

  constructor() {
    const config = defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: false } });
    this.exchange = new Exchange({ config, startMicros: T0, seed: 1 });
    this.exchange.subscribe((output) => this.outputs.push(output));
  }

  handle(input: ExchangeInput): { ok: boolean; payload?: any } {
    return this.exchange.handle(input, this.now) as { ok: boolean; payload?: any };
  }

  account(n: number, rUSD: string): number {
    const answer = this.handle({ kind: "admin", admin: { action: "createAccount", wallet: wallet(n), deposits: { rUSD } } });
    expect(answer.ok).toBe(true);
    const accountId = answer.payload.accountId as number;
    this.wallets.set(accountId, wallet(n));
    this.handle({ kind: "admin", admin: { action: "wallet", wallet: wallet(n), rateTier: 3 } });
    return accountId;
  }

  walletOf(accountId: number): string {
    return this.wallets.get(accountId)!;
  }

  prices(eth: string): void {
    this.handle({ kind: "prices", prices: [{ asset: "WETH", price: eth }, { symbol: ETH, price: eth }] });
  }

  order(accountId: number, isBuy: boolean, limitPx: string, qty: string, timeInForce: "GTC" | "IOC" = "GTC", reduceOnly = false): any {
    const answer = this.handle(this.orderInput(accountId, isBuy, limitPx, qty, { timeInForce, reduceOnly }));
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    return answer.payload;
  }

  /**
   * A createOrder input of `accountId` (LIMIT, the account's next nonce), not handled: `deadline` in Unix s
   * (default now + 60 s for an IOC, + 1 day otherwise), `symbol` (default ETH).
   */
  orderInput(
    accountId: number,
    isBuy: boolean,
    limitPx: string,
    qty: string,
    options: { timeInForce?: "GTC" | "IOC"; reduceOnly?: boolean; deadline?: number; symbol?: string } = {},
  ): ExchangeInput {
    const timeInForce = options.timeInForce ?? "GTC";
    const nonce = (this.nonces.get(accountId) ?? 0) + 1;
    this.nonces.set(accountId, nonce);
    const body: Record<string, unknown> = {
      exchangeId: 1,
      symbol: options.symbol ?? ETH,
      accountId,
      isBuy,
      limitPx,
      qty,
      orderType: "LIMIT",
      timeInForce,
      signature: `0x${"11".repeat(65)}`,
      nonce: String(nonce),
      signerWallet: this.wallets.get(accountId),
      deadline: options.deadline ?? Math.floor(this.now / 1e6) + (timeInForce === "IOC" ? 60 : 86_400),
    };
    if (timeInForce === "IOC") body["reduceOnly"] = options.reduceOnly ?? false;
    return { kind: "request", op: "createOrder", body } as ExchangeInput;
  }

  /** Arms a sell-side (a long's) STOP_LOSS or TAKE_PROFIT in ETH, GTC, with the next nonce of the account; returns its orderId. */
  sellStop(accountId: number, orderType: "STOP_LOSS" | "TAKE_PROFIT", triggerPx: string, limitPx: string): string {
    const nonce = (this.nonces.get(accountId) ?? 0) + 1;
    this.nonces.set(accountId, nonce);
    const body = {
      exchangeId: 1,
      symbol: ETH,
      accountId,
      isBuy: false,
      limitPx,
      orderType,
      timeInForce: "GTC",
      triggerPx,
      postOnly: false,
      signature: `0x${"11".repeat(65)}`,
      nonce: String(nonce),
      signerWallet: this.wallets.get(accountId),
      deadline: Math.floor(this.now / 1e6) + 600,
    };
    const answer = this.handle({ kind: "request", op: "createOrder", body } as ExchangeInput);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    return answer.payload.orderId as string;
  }

  /**
   * A thinly funded long of 5 ETH at 3000 against a well funded short, both
   * settled: the setting of the liquidation cases (a fall to 2700-2800
   * liquidates the long). Returns [long, short].
   */
  leveragedPair(): [number, number] {
    return this.longPair("1000");
  }

  /** A settled long of 5 ETH at 3000 (its account funded with `longRusd`) against a well funded short: [long, short]. */
  longPair(longRusd: string): [number, number] {
    const long = this.account(0xa2, longRusd);
    const short = this.account(0xa3, "100000");
    this.prices("3000");
    this.order(short, false, "3000", "5");
    this.order(long, true, "3000", "5", "IOC");
    this.advance(1_000_000);
    expect(this.position(long)).toEqual({ qty: "5", side: "B" });
    return [long, short];
  }

  /** Runs the timers (blocks every 100 ms) for `micros`. */
  advance(micros: number): void {
    const end = this.now + micros;
    while (this.now < end) {
      this.now = Math.min(end, this.now + 100_000);
      this.exchange.advanceTo(this.now);
    }
  }

  /** The account's settled position in ETH, as the wire reports it (qty and side), or undefined. */
  position(accountId: number): { qty: string; side: string } | undefined {
    const position = this.exchange.risk.positions(accountId).find((one) => one.symbol === ETH);
    return position === undefined ? undefined : { qty: position.qty, side: position.side };
  }

  of<K extends ExchangeOutput["kind"]>(kind: K): Extract<ExchangeOutput, { kind: K }>[] {
    return this.outputs.filter((output): output is Extract<ExchangeOutput, { kind: K }> => output.kind === kind);
  }
}
