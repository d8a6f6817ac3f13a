/**
 * A live server for the REST and admin conformance tests: started with
 * startLiveServer on an ephemeral port, in signed mode, on the manual clock,
 * with every input recorded (so that tests can replay the log). Accounts are
 * created and funded and prices set through the admin API over HTTP; order
 * bodies are built by the client SDK's plan builders and really signed
 * (the gateway harness's Party), then POSTed with Node's fetch.
 *
 * Parties (private key 0x..0N): alice key 1 owns accountId 2 (10,000 rUSD),
 * bob key 2 owns accountId 3 (10,000 rUSD), carol key 3 owns accountId 4
 * (1,000 rUSD and 2 WETH, for spot).
 */
import { expect } from "vitest";
import { cancelAllPlan, type CancelAllParameters } from "../../../src/client/actions/cancelAll.ts";
import { cancelAllAfterPlan, type CancelAllAfterParameters } from "../../../src/client/actions/cancelAllAfter.ts";
import { cancelOrderPlan, type CancelOrderParameters } from "../../../src/client/actions/cancelOrder.ts";
import { createOrderPlan, type CreateOrderParameters } from "../../../src/client/actions/createOrder.ts";
import { modifyOrderPlan, type ModifyOrderParameters } from "../../../src/client/actions/modifyOrder.ts";
import type { Micros } from "../../../src/core/time.ts";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig, type ExchangeConfig } from "../../../src/exchange/config.ts";
import type { ExchangeInput } from "../../../src/exchange/inputs.ts";
import type { EdgeLimitConfig } from "../../../src/live/edge-limiter.ts";
import { startLiveServer, type RunningServer } from "../../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../../src/signing/domain.ts";
import { BTC, ETH, Party, privateKey, SPOT, START_MICROS } from "../../exchange/gateway/harness.ts";

export { BTC, ETH, Party, SPOT, START_MICROS };

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body (undefined when the body is empty or not JSON). */
  readonly body: any;
}

export interface LoggedInput {
  readonly atMicros: Micros;
  readonly input: ExchangeInput;
}

/** The answer to one order-entry POST that reached the Exchange (status 0 when the response was dropped). */
export interface EntryAnswer {
  readonly op: string;
  readonly status: number;
  readonly body: unknown;
}

export interface RestWorldOptions {
  edgeLimit?: EdgeLimitConfig;
  clock?: "manual" | "wall";
  /** Skip the parties' accounts and the initial prices (default false). */
  bare?: boolean;
}

export class RestWorld {
  readonly log: LoggedInput[];
  /** Every order-entry POST sent with `post`, and its answer, in order. */
  readonly entries: EntryAnswer[] = [];
  readonly base: string;
  readonly alice: Party;
  readonly bob: Party;
  readonly carol: Party;

  constructor(
    readonly running: RunningServer,
    readonly config: ExchangeConfig,
    log: LoggedInput[],
  ) {
    this.log = log;
    this.base = `http://127.0.0.1:${running.port}`;
    const clock = { now: () => this.now() };
    this.alice = new Party("alice", privateKey(1), 2, clock);
    this.bob = new Party("bob", privateKey(2), 3, clock);
    this.carol = new Party("carol", privateKey(3), 4, clock);
  }

  now(): Micros {
    return this.running.context.driver.now();
  }

  nowMs(): number {
    return Math.floor(this.now() / 1000);
  }

  close(): Promise<void> {
    return this.running.close();
  }

  // -- HTTP ------------------------------------------------------------------------------

  async request(method: string, path: string, init: { body?: string | Uint8Array; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
    const response = await fetch(this.base + path, { method, ...(init.body === undefined ? {} : { body: init.body }), headers: init.headers ?? {} });
    const text = await response.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  }

  get(path: string): Promise<HttpAnswer> {
    return this.request("GET", path);
  }

  async post(path: string, body: unknown): Promise<HttpAnswer> {
    const answer = await this.request("POST", path, { body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const op = /^\/v2\/(createOrder|modifyOrder|cancelOrder|cancelAll|cancelAllAfter)$/.exec(path)?.[1];
    if (op !== undefined) this.entries.push({ op, status: answer.status, body: answer.body });
    return answer;
  }

  /** GET that must answer 200; returns the body. */
  async ok(path: string): Promise<any> {
    const answer = await this.get(path);
    expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    return answer.body;
  }

  /** An admin POST that must succeed; returns the body. */
  async admin(path: string, body: unknown = {}): Promise<any> {
    const answer = await this.post(`/admin/${path}`, body);
    expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    return answer.body;
  }

  async advance(ms: number): Promise<number> {
    return (await this.admin("clock", { advanceMs: ms })).virtualTime;
  }

  async prices(eth = "2000", btc = "60000"): Promise<void> {
    await this.admin("prices", {
      prices: [
        { asset: "WETH", price: eth },
        { symbol: ETH, price: eth },
        { asset: "WBTC", price: btc },
        { symbol: BTC, price: btc },
      ],
    });
  }

  // -- signed bodies (the SDK's plans, really signed) ---------------------------------------

  create(party: Party, parameters: CreateOrderParameters): Record<string, unknown> {
    const built = createOrderPlan(party.client, parameters).build({ nowMicros: this.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return built.body as unknown as Record<string, unknown>;
  }

  modify(party: Party, parameters: ModifyOrderParameters): Record<string, unknown> {
    const built = modifyOrderPlan(party.client, parameters).build({ nowMicros: this.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return built.body as unknown as Record<string, unknown>;
  }

  cancel(party: Party, parameters: CancelOrderParameters): Record<string, unknown> {
    const built = cancelOrderPlan(party.client, parameters).build({ nowMicros: this.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return built.body as unknown as Record<string, unknown>;
  }

  cancelAll(party: Party, parameters: CancelAllParameters = {}): Record<string, unknown> {
    const built = cancelAllPlan(party.client, parameters).build({ nowMicros: this.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return built.body as unknown as Record<string, unknown>;
  }

  cancelAllAfter(party: Party, parameters: CancelAllAfterParameters): Record<string, unknown> {
    const built = cancelAllAfterPlan(party.client, parameters).build({ nowMicros: this.now(), nonce: party.nextNonce() });
    built.body.signature = party.sign(built.signed);
    return built.body as unknown as Record<string, unknown>;
  }

  /** POSTs an order-entry body that must succeed; returns the 200 body. */
  async entry(op: string, body: unknown): Promise<any> {
    const answer = await this.post(`/v2/${op}`, body);
    expect(answer.status, `${op}: ${answer.text}`).toBe(200);
    return answer.body;
  }

  /** Rests a GTC order and returns its orderId. */
  async rest(party: Party, parameters: { symbol?: string; isBuy: boolean; qty: string; limitPx: string; clientOrderId?: string }): Promise<string> {
    const payload = await this.entry("createOrder", this.create(party, { symbol: ETH, timeInForce: "GTC", ...parameters }));
    expect(payload.status).toBe("OPEN");
    return payload.orderId;
  }

  /** A perp trade: `seller` rests, `buyer` takes with an IOC; settled by advancing past the next block. */
  async trade(buyer: Party, seller: Party, qty: string, symbol = ETH, px = "2000"): Promise<void> {
    await this.rest(seller, { symbol, isBuy: false, qty, limitPx: px });
    const payload = await this.entry("createOrder", this.create(buyer, { symbol, isBuy: true, qty, limitPx: px, timeInForce: "IOC" }));
    expect(payload.status).toBe("FILLED");
    await this.advance(200);
  }
}

export function signedConfig(): ExchangeConfig {
  return defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, { gateway: { ...DEFAULT_GATEWAY_CONFIG, verifySignatures: true } });
}

/** Starts a server (manual clock, signed mode, inputs logged) with the three parties funded and prices set. */
export async function startRestWorld(options: RestWorldOptions = {}): Promise<RestWorld> {
  const config = signedConfig();
  const log: LoggedInput[] = [];
  const running = await startLiveServer({
    config,
    seed: 7,
    port: 0,
    clock: options.clock ?? "manual",
    startMicros: START_MICROS,
    log: { append: (atMicros, input) => log.push({ atMicros, input: structuredClone(input) }) },
    ...(options.edgeLimit === undefined ? {} : { edgeLimit: options.edgeLimit }),
  });
  const world = new RestWorld(running, config, log);
  if (options.bare !== true) {
    await world.admin("accounts", { wallet: world.alice.address, accountId: 2, deposits: { rUSD: "10000" } });
    await world.admin("accounts", { wallet: world.bob.address, accountId: 3, deposits: { rUSD: "10000" } });
    await world.admin("accounts", { wallet: world.carol.address, accountId: 4, deposits: { rUSD: "1000", WETH: "2" } });
    await world.prices();
  }
  return world;
}

/** A well-formed wallet that owns nothing. */
export const NOBODY = "0x00000000000000000000000000000000000000aa";
