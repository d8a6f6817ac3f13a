/**
 * A live server for the streaming conformance tests: startLiveServer on an
 * ephemeral port with a manual clock and signature verification on, three
 * funded parties whose orders are built and signed by the client SDK (the
 * gateway harness's Party), and shortcuts that drive the Exchange through
 * the live driver (`context.driver.handle`), as the REST and /exec surfaces
 * do.
 *
 * Parties (rate tier 3: no open-order caps):
 *   alice  key 1, accountId 2, 1,000,000 rUSD
 *   bob    key 2, accountId 3, 1,000,000 rUSD
 *   carol  key 3, accountId 4, 100,000 rUSD and 10 WETH (spot seller)
 * Oracle: ETH 2000, BTC 60000 (refreshPrices publishes them again).
 */
import { expect } from "vitest";
import { cancelOrderPlan, type CancelOrderParameters } from "../../../src/client/actions/cancelOrder.ts";
import { createOrderPlan, type CreateOrderParameters } from "../../../src/client/actions/createOrder.ts";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig } from "../../../src/exchange/config.ts";
import type { ExchangeAnswer } from "../../../src/exchange/exchange.ts";
import type { AdminAction, ExchangeInput, FaultAction } from "../../../src/exchange/inputs.ts";
import { startLiveServer, type RunningServer } from "../../../src/live/serve.ts";
import type { LiveContext } from "../../../src/live/server.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../../src/signing/domain.ts";
import { Party, privateKey, START_MICROS } from "../../exchange/gateway/harness.ts";
import { StreamClient } from "./stream-client.ts";

export { BTC, ETH, SPOT } from "../../exchange/gateway/harness.ts";

export interface StreamWorldOptions {
  slowConsumerBytes?: number;
  drainMs?: number;
}

export class StreamWorld {
  readonly context: LiveContext;
  readonly alice: Party;
  readonly bob: Party;
  readonly carol: Party;
  private readonly clients: StreamClient[] = [];

  private constructor(readonly running: RunningServer) {
    this.context = running.context;
    const clock = { now: () => this.context.driver.now() };
    this.alice = new Party("alice", privateKey(1), 2, clock);
    this.bob = new Party("bob", privateKey(2), 3, clock);
    this.carol = new Party("carol", privateKey(3), 4, clock);
  }

  static async start(options: StreamWorldOptions = {}): Promise<StreamWorld> {
    const running = await startLiveServer({
      config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: true } }),
      seed: 42,
      clock: "manual",
      startMicros: START_MICROS,
      ...(options.slowConsumerBytes === undefined ? {} : { slowConsumerBytes: options.slowConsumerBytes }),
      ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
    });
    const world = new StreamWorld(running);
    const funding: [Party, Record<string, string>][] = [
      [world.alice, { rUSD: "1000000" }],
      [world.bob, { rUSD: "1000000" }],
      [world.carol, { rUSD: "100000", WETH: "10" }],
    ];
    for (const [party, deposits] of funding) {
      world.adminOk({ action: "createAccount", wallet: party.address, accountId: party.accountId, deposits });
      world.adminOk({ action: "wallet", wallet: party.address, rateTier: 3 });
    }
    world.refreshPrices();
    return world;
  }

  get url(): string {
    return this.running.urls.stream;
  }

  async connect(): Promise<StreamClient> {
    const client = await StreamClient.connect(this.url);
    this.clients.push(client);
    return client;
  }

  handle(input: ExchangeInput): ExchangeAnswer {
    return this.context.driver.handle(input);
  }

  adminOk(admin: AdminAction): Record<string, unknown> {
    const answer = this.handle({ kind: "admin", admin });
    if (!answer.ok) throw new Error(`admin ${admin.action} was rejected: ${answer.error.message}`);
    return answer.payload;
  }

  fault(fault: FaultAction): void {
    expect(this.handle({ kind: "fault", fault }).ok).toBe(true);
  }

  refreshPrices(eth = "2000", btc = "60000"): void {
    const answer = this.handle({
      kind: "prices",
      prices: [
        { asset: "WETH", price: eth },
        { symbol: "ETHRUSDPERP", price: eth },
        { asset: "WBTC", price: btc },
        { symbol: "BTCRUSDPERP", price: btc },
      ],
    });
    expect(answer.ok).toBe(true);
  }

  /** Moves the manual clock (blocks settle every 100 ms, summaries every 500 ms). */
  advance(ms: number): void {
    this.context.driver.advanceBy(ms);
  }

  /** A signed createOrder through the driver; the Exchange's answer. */
  createOrder(party: Party, parameters: CreateOrderParameters): ExchangeAnswer {
    const built = createOrderPlan(party.client, parameters).build({ nowMicros: this.context.driver.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return this.handle({ kind: "request", op: "createOrder", body: built.body });
  }

  /** A signed createOrder that must succeed; its response payload. */
  create(party: Party, parameters: CreateOrderParameters): Record<string, unknown> {
    const answer = this.createOrder(party, parameters);
    if (!answer.ok) throw new Error(`createOrder was rejected: ${answer.error.error}: ${answer.error.message}`);
    return answer.payload;
  }

  /** Rests a GTC order; its orderId. */
  rest(party: Party, parameters: { symbol: string; isBuy: boolean; qty: string; limitPx: string }): string {
    const payload = this.create(party, { timeInForce: "GTC", ...parameters });
    expect(payload["status"]).toBe("OPEN");
    return payload["orderId"] as string;
  }

  /** A signed cancelOrder through the driver. */
  cancel(party: Party, parameters: CancelOrderParameters): ExchangeAnswer {
    const built = cancelOrderPlan(party.client, parameters).build({ nowMicros: this.context.driver.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return this.handle({ kind: "request", op: "cancelOrder", body: built.body });
  }

  /** `buyer` takes a resting sell of `seller` with an IOC: one match, settled at the next block. */
  trade(buyer: Party, seller: Party, symbol: string, qty: string, px: string): void {
    this.rest(seller, { symbol, isBuy: false, qty, limitPx: px });
    const payload = this.create(buyer, { symbol, isBuy: true, qty, limitPx: px, timeInForce: "IOC" });
    expect(payload["status"]).toBe("FILLED");
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.close();
    await this.running.close();
  }
}
