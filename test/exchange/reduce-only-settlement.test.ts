/**
 * Reduce-only at settlement. The engine admits and cuts a reduce-only
 * order against the account's position with its pending matches counted;
 * by the block that settles the fill, a bust of the match that opened the
 * position, a liquidation or an ADL may have closed it. The chain refuses a
 * reduce-only fill that would not reduce the settled position: the match
 * busts (`ReduceOnlyViolation`, an unmodeled contract error of spec 2.16)
 * and opens nothing. Each case below opened a position the other way
 * before (found by an audit, session 20).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig } from "../../src/exchange/config.ts";
import { Exchange } from "../../src/exchange/exchange.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { ExecutionBust } from "../../src/spec/bust.ts";

const T0 = 1_767_225_600_000_000;
const ETH = "ETHRUSDPERP";
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** An Exchange in trusted mode with the few inputs these cases need, its outputs kept. */
class World {
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

  prices(eth: string): void {
    this.handle({ kind: "prices", prices: [{ asset: "WETH", price: eth }, { symbol: ETH, price: eth }] });
  }

  order(accountId: number, isBuy: boolean, limitPx: string, qty: string, timeInForce: "GTC" | "IOC" = "GTC", reduceOnly = false): any {
    const nonce = (this.nonces.get(accountId) ?? 0) + 1;
    this.nonces.set(accountId, nonce);
    const body: Record<string, unknown> = {
      exchangeId: 1,
      symbol: ETH,
      accountId,
      isBuy,
      limitPx,
      qty,
      orderType: "LIMIT",
      timeInForce,
      signature: `0x${"11".repeat(65)}`,
      nonce: String(nonce),
      signerWallet: this.wallets.get(accountId),
      deadline: Math.floor(this.now / 1e6) + (timeInForce === "IOC" ? 60 : 86_400),
    };
    if (timeInForce === "IOC") body["reduceOnly"] = reduceOnly;
    const answer = this.handle({ kind: "request", op: "createOrder", body } as ExchangeInput);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    return answer.payload;
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

/** The one ReduceOnlyViolation bust of `accountId`'s fill, checked against the spec's bust shape. */
function violationOf(world: World, accountId: number): any {
  const busts = world.of("bust").filter((bust) => bust.record.reason.reasonName === "ReduceOnlyViolation");
  expect(busts).toHaveLength(1);
  const record = busts[0]!.record;
  expect(ExecutionBust.safeParse(record).success).toBe(true);
  expect((record.reason as any).args.accountId).toBe(accountId);
  return record;
}

describe("reduce-only at settlement", () => {
  it("busts a reduce-only fill whose position was opened by a match that busted in the same block", () => {
    const w = new World();
    const maker = w.account(0xf1, "100000");
    const a = w.account(0xf2, "100000");
    w.prices("3000");
    w.handle({ kind: "fault", fault: { fault: "bustNext", count: 1, reasonName: "UnknownReason" } } as ExchangeInput);
    w.order(maker, false, "3000", "2");
    expect(w.order(a, true, "3000", "2", "IOC").status).toBe("FILLED");
    w.order(maker, true, "2999", "2");
    // Admitted: the pending buy makes a long of 2 to reduce.
    expect(w.order(a, false, "2999", "2", "IOC", true).status).toBe("FILLED");
    w.advance(300_000);
    expect(w.position(a)).toBeUndefined();
    expect(w.of("perpExecution").filter((execution) => execution.record.takerAccountId === a)).toEqual([]);
    expect(violationOf(w, a)).toMatchObject({ takerAccountId: a, qty: "2", side: "A", reason: { args: { marketId: 1, position: "0", delta: "-2" } } });
  });

  it("busts a pending reduce-only fill of an account whose position an ADL closed first", () => {
    const w = new World();
    const mm = w.account(0xa1, "1000000");
    const long = w.account(0xa2, "1000");
    const short = w.account(0xa3, "100000");
    w.prices("3000");
    w.order(short, false, "3000", "5");
    w.order(long, true, "3000", "5", "IOC");
    w.advance(1_000_000);
    expect(w.position(short)).toEqual({ qty: "5", side: "A" });
    w.order(mm, false, "2950", "2");
    expect(w.order(short, true, "2950", "2", "IOC", true).status).toBe("FILLED");
    // The same instant: a crash liquidates the long; the empty pool cannot take it, and ADL closes the short's 5.
    w.prices("2700");
    w.advance(500_000);
    expect(w.of("perpExecution").some((execution) => execution.record.type === "ADL" && execution.record.takerAccountId === short)).toBe(true);
    expect(w.position(short)).toBeUndefined();
    expect(w.position(mm)).toBeUndefined();
    expect(violationOf(w, short)).toMatchObject({ takerAccountId: short, makerAccountId: mm, qty: "2", side: "B" });
  });

  it("busts a pending reduce-only fill of an account liquidated before its block", () => {
    const w = new World();
    const mm = w.account(0xa1, "1000000");
    const long = w.account(0xa2, "1000");
    const short = w.account(0xa3, "100000");
    w.handle({ kind: "admin", admin: { action: "deposit", accountId: 1, asset: "rUSD", amount: "1000000" } });
    w.prices("3000");
    w.order(short, false, "3000", "5");
    w.order(long, true, "3000", "5", "IOC");
    w.advance(1_000_000);
    w.order(mm, true, "2990", "2");
    expect(w.order(long, false, "2990", "2", "IOC", true).status).toBe("FILLED");
    w.prices("2800");
    w.advance(1_000_000);
    expect(w.of("perpExecution").some((execution) => execution.record.type === "LIQUIDATION" && execution.record.takerAccountId === long)).toBe(true);
    expect(w.position(long)).toBeUndefined();
    expect(violationOf(w, long)).toMatchObject({ takerAccountId: long, makerAccountId: mm, qty: "2", side: "A" });
  });

  it("settles a reduce-only fill that reduces the settled position, pending matches of the same block counted in order", () => {
    const w = new World();
    const maker = w.account(0xf1, "100000");
    const a = w.account(0xf2, "100000");
    w.prices("3000");
    w.order(maker, false, "3000", "2");
    w.order(a, true, "3000", "2", "IOC");
    w.order(maker, true, "2999", "1");
    expect(w.order(a, false, "2999", "1", "IOC", true).status).toBe("FILLED");
    w.advance(300_000);
    expect(w.of("bust")).toEqual([]);
    expect(w.position(a)).toEqual({ qty: "1", side: "B" });
  });
});
