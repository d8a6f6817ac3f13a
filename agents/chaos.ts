/**
 * Chaos agent: a client that gets things wrong, on purpose, all the time.
 *
 * Every `everySeconds` it runs one probe; the probes run in shuffled
 * cycles (each cycle runs every probe of `probes` once, in an order drawn
 * from the agent's stream), so a few minutes cover them all:
 *
 * | probe            | what is sent                                            | expected answer                       |
 * |------------------|---------------------------------------------------------|---------------------------------------|
 * | offTick          | a limit price a hair off the grid (offTick below)       | PRICE_QTY_BOUNDS_ERROR                |
 * | belowMinQty      | half the minimum quantity                               | PRICE_QTY_BOUNDS_ERROR                |
 * | unknownSymbol    | a symbol no market has, through the SDK                 | client:MarketNotFoundError (not sent) |
 * | unknownSymbolWire| the same on the wire (body tampered after signing)      | SYMBOL_NOT_FOUND_ERROR                |
 * | malformedDecimal | limitPx "12.3.4" on the wire                            | INPUT_VALIDATION_ERROR                |
 * | overflow         | qty "1e80" on the wire                                  | NUMERIC_OVERFLOW_ERROR                |
 * | replay           | one signed resting order sent twice (then cancelled)    | ok, then INVALID_NONCE_ERROR          |
 * | pastDeadline     | a deadline 30 s ago                                     | ORDER_DEADLINE_PASSED_ERROR           |
 * | farDeadline      | an IOC whose deadline is an hour ahead                  | ORDER_DEADLINE_TOO_HIGH_ERROR         |
 * | outsideBand      | a buy IOC 50 % above the oracle                         | CREATE_ORDER_OTHER_ERROR              |
 * | reduceOnlyFlat   | a reduce-only IOC with no position                      | REDUCE_ONLY_CONDITION_NOT_MET_ERROR   |
 * | stopOutsideBand  | a STOP_LOSS whose limit is 20 % from its trigger        | TRIGGER_LIMIT_OUTSIDE_BAND_ERROR      |
 * | badTimeout       | cancelAllAfter with 1000 ms                             | client:InvalidParameterError          |
 * | cancelUnknown    | cancelOrder of an order that never existed              | CANCEL_ORDER_OTHER_ERROR              |
 * | modifyUnknown    | modifyOrder of an order that never existed              | ORDER_NOT_FOUND_ERROR                 |
 * | emptyModify      | a resting order, then a modify that changes nothing     | EMPTY_MODIFY_ERROR                    |
 * | race             | a resting order, then cancel, modify and cancel again   | one cancel wins, and the modify if it |
 * |                  | all at once, in a shuffled order                        | came first; the others ORDER_NOT_     |
 * |                  |                                                         | FOUND_ERROR / CANCEL_ORDER_OTHER_ERROR|
 *
 * At the start of each cycle it cancels whatever it left resting (cancelAll).
 * Every `burstEverySeconds` it also sends `burstSize` IOCs at once (far
 * from the book, they never fill), to run into the per-wallet rate limit
 * (tier 1: 30 order-entry requests per 60 s): RATE_LIMITED_ERROR.
 *
 * All requests go through a client without retries, so each answer is the
 * service's first one. Nothing it receives may stop the run: every error is
 * caught and counted as error:<code> (see lib/errors.ts for the names),
 * each success as ok:<operation>, each probe run as probe:<name>, and the
 * race's winner as raceWon:<operation>.
 */
import type { Client } from "../src/client/client.ts";
import { MICROS_PER_SECOND } from "../src/core/time.ts";
import { defineAgent, type AgentContext, type AgentParamsContext } from "../src/sim/agent.ts";
import { countError } from "./lib/errors.ts";
import { gridOf, MarketGrid } from "./lib/grid.ts";
import { OracleTracker } from "./lib/oracle.ts";
import { delaySeconds, listOf, marketSymbol, number, orNull, type ParamRules, paramsProblem, period, refuseBadParams } from "./lib/params.ts";
import { noRetryClient, outcomeOf, sendTampered, sendTwice, type LooseBody } from "./lib/raw.ts";

export const CHAOS_PROBES = [
  "offTick",
  "belowMinQty",
  "unknownSymbol",
  "unknownSymbolWire",
  "malformedDecimal",
  "overflow",
  "replay",
  "pastDeadline",
  "farDeadline",
  "outsideBand",
  "reduceOnlyFlat",
  "stopOutsideBand",
  "badTimeout",
  "cancelUnknown",
  "modifyUnknown",
  "emptyModify",
  "race",
] as const;

export type ChaosProbe = (typeof CHAOS_PROBES)[number];

export interface ChaosParams {
  /** The perp market probed. Default "ETHRUSDPERP". */
  readonly symbol: string;
  /** Which probes run. Default: all of CHAOS_PROBES. */
  readonly probes: readonly ChaosProbe[];
  /** Seconds between probes. Default 5. */
  readonly everySeconds: number;
  /** Seconds between rate-limit bursts; null = no bursts. Default 120. */
  readonly burstEverySeconds: number | null;
  /** Requests in one burst. Default 40. */
  readonly burstSize: number;
  /** Seconds before the first probe. Default 3. */
  readonly startDelaySeconds: number;
}

export const CHAOS_DEFAULTS: ChaosParams = {
  symbol: "ETHRUSDPERP",
  probes: CHAOS_PROBES,
  everySeconds: 5,
  burstEverySeconds: 120,
  burstSize: 40,
  startDelaySeconds: 3,
};

/**
 * The largest burst: 10,000 requests. A burst only has to outnumber a
 * rate-limit bucket to run into it, and the largest default bucket is tier
 * 3's 6,000 order-entry requests per 60 s, so every default tier is still
 * reached. A burst is sent in one instant, all requests in flight at once:
 * a huge size would hold that many requests in memory and stall the run on
 * that instant.
 */
export const CHAOS_BURST_SIZE_MAX = 10_000;

const RULES: ParamRules<ChaosParams> = {
  symbol: marketSymbol("perp", "some probes use stops"),
  probes: listOf("probe", CHAOS_PROBES),
  // A shorter period would probe (or burst) at the same instant, forever.
  everySeconds: period,
  burstEverySeconds: orNull(period),
  burstSize: number({ min: 0, max: CHAOS_BURST_SIZE_MAX, integer: true }),
  startDelaySeconds: delaySeconds,
};

/** Why the params cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (the checkParams hook; start refuses the same, with its context). */
const checkParams = (params: ChaosParams, context: AgentParamsContext): string | null => paramsProblem(params, context, RULES);

/** An id no order of the run has (ids are counters far below it). */
const UNKNOWN_ORDER_ID = "18446744073709551000";

class Chaos {
  private readonly client: Client;
  private cycle: ChaosProbe[] = [];

  constructor(
    private readonly ctx: AgentContext<ChaosParams>,
    private readonly grid: MarketGrid,
    private readonly oracle: OracleTracker,
  ) {
    this.client = noRetryClient(ctx);
  }

  /** Runs `request`, counting its success as ok:<op> or its error as error:<code>; never throws. */
  private async run<T>(op: string, request: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await request();
      this.ctx.count(`ok:${op}`);
      return result;
    } catch (error) {
      countError(this.ctx, error);
      return undefined;
    }
  }

  private async wire(tamper: (body: LooseBody) => LooseBody, price: number): Promise<void> {
    try {
      const response = await sendTampered(this.client, this.restingBuy(price), tamper);
      const outcome = outcomeOf(response);
      this.ctx.count(outcome === "ok" ? "ok:createOrder" : `error:${outcome}`);
    } catch (error) {
      countError(this.ctx, error);
    }
  }

  /** A valid post-only buy 20 % below `price`: it rests and never fills. */
  private restingBuy(price: number) {
    return {
      symbol: this.grid.symbol,
      isBuy: true,
      limitPx: this.grid.price(price * 0.8, "down"),
      qty: this.grid.formatLots(this.grid.minLots),
      timeInForce: "GTC" as const,
      postOnly: true,
    };
  }

  next(): Promise<void> | undefined {
    const { ctx } = this;
    ctx.after(ctx.params.everySeconds * MICROS_PER_SECOND, () => this.next());
    if (ctx.params.probes.length === 0) return undefined;
    const work: Promise<void>[] = [];
    if (this.cycle.length === 0) {
      this.cycle = ctx.rng.shuffle([...ctx.params.probes]);
      // Orders a lost race or a rate-limited cleanup left behind go at the start of each cycle.
      work.push(this.run("cancelAll", () => this.client.cancelAll({ symbol: this.grid.symbol })).then(() => undefined));
    }
    const probe = this.cycle.pop();
    const price = this.oracle.price(this.grid.asset);
    if (probe !== undefined && price !== undefined) {
      ctx.count(`probe:${probe}`);
      work.push(this.probe(probe, price));
    }
    return Promise.all(work).then(() => undefined);
  }

  private async probe(probe: ChaosProbe, price: number): Promise<void> {
    const { client, grid, ctx } = this;
    const nowSeconds = Math.floor(ctx.now() / MICROS_PER_SECOND);
    const resting = this.restingBuy(price);
    const minQty = grid.formatLots(grid.minLots);
    switch (probe) {
      case "offTick":
        await this.run("createOrder", () => client.createOrder({ ...resting, limitPx: offTick(grid.price(price * 0.8, "down")) }));
        return;
      case "belowMinQty":
        await this.run("createOrder", () => client.createOrder({ ...resting, qty: String(grid.minQty / 2) }));
        return;
      case "unknownSymbol":
        await this.run("createOrder", () => client.createOrder({ ...resting, symbol: "NOSUCHPERP" }));
        return;
      case "unknownSymbolWire":
        return this.wire((body) => ({ ...body, symbol: "NOSUCHPERP" }), price);
      case "malformedDecimal":
        return this.wire((body) => ({ ...body, limitPx: "12.3.4" }), price);
      case "overflow":
        return this.wire((body) => ({ ...body, qty: "1e80" }), price);
      case "replay":
        return this.replay(resting);
      case "pastDeadline":
        await this.run("createOrder", () => client.createOrder({ ...resting, deadline: nowSeconds - 30 }));
        return;
      case "farDeadline":
        await this.run("createOrder", () =>
          client.createOrder({ symbol: grid.symbol, isBuy: true, limitPx: grid.price(price * 0.9, "down"), qty: minQty, timeInForce: "IOC", deadline: nowSeconds + 3_600 }),
        );
        return;
      case "outsideBand":
        await this.run("createOrder", () => client.createOrder({ symbol: grid.symbol, isBuy: true, limitPx: grid.price(price * 1.5, "up"), qty: minQty, timeInForce: "IOC" }));
        return;
      case "reduceOnlyFlat":
        await this.run("createOrder", () =>
          client.createOrder({ symbol: grid.symbol, isBuy: false, limitPx: grid.price(price * 0.95, "down"), qty: minQty, timeInForce: "IOC", reduceOnly: true }),
        );
        return;
      case "stopOutsideBand":
        await this.run("createOrder", () =>
          client.createOrder({ symbol: grid.symbol, isBuy: false, orderType: "STOP_LOSS", triggerPx: grid.price(price * 0.9, "down"), limitPx: grid.price(price * 0.7, "down"), timeInForce: "IOC" }),
        );
        return;
      case "badTimeout":
        await this.run("cancelAllAfter", () => client.cancelAllAfter({ timeoutMs: 1_000 }));
        return;
      case "cancelUnknown":
        await this.run("cancelOrder", () => client.cancelOrder({ symbol: grid.symbol, orderId: UNKNOWN_ORDER_ID }));
        return;
      case "modifyUnknown":
        await this.run("modifyOrder", () => client.modifyOrder({ ...resting, orderId: UNKNOWN_ORDER_ID, postOnly: true }));
        return;
      case "emptyModify":
        return this.emptyModify(resting);
      case "race":
        return this.race(resting, price);
    }
  }

  /** The same signed order twice: the copy reuses an accepted nonce. */
  private async replay(resting: ReturnType<Chaos["restingBuy"]>): Promise<void> {
    const { ctx, client } = this;
    let answers;
    try {
      answers = await sendTwice(client, resting);
    } catch (error) {
      countError(ctx, error);
      return;
    }
    for (const answer of answers) {
      const outcome = outcomeOf(answer);
      ctx.count(outcome === "ok" ? "ok:createOrder" : `error:${outcome}`);
    }
    const created = answers[0].ok ? (answers[0].payload as { orderId?: unknown; status?: unknown }) : undefined;
    if (typeof created?.orderId === "string" && created.status === "OPEN") {
      const orderId = created.orderId;
      await this.run("cancelOrder", () => client.cancelOrder({ symbol: resting.symbol, orderId }));
    }
  }

  private async emptyModify(resting: ReturnType<Chaos["restingBuy"]>): Promise<void> {
    const created = await this.run("createOrder", () => this.client.createOrder(resting));
    if (created === undefined || created.status !== "OPEN") return;
    await this.run("modifyOrder", () => this.client.modifyOrder({ ...resting, orderId: created.orderId }));
    await this.run("cancelOrder", () => this.client.cancelOrder({ symbol: resting.symbol, orderId: created.orderId }));
  }

  /** Cancel, modify and a second cancel of one order, sent together in a shuffled order: the first cancel wins, and the modify too when it comes before it (the order keeps its id). */
  private async race(resting: ReturnType<Chaos["restingBuy"]>, price: number): Promise<void> {
    const { client, ctx } = this;
    const created = await this.run("createOrder", () => client.createOrder(resting));
    if (created === undefined || created.status !== "OPEN") return;
    const orderId = created.orderId;
    const moves: { op: string; send: () => Promise<unknown> }[] = [
      { op: "cancelOrder", send: () => client.cancelOrder({ symbol: resting.symbol, orderId }) },
      { op: "modifyOrder", send: () => client.modifyOrder({ ...resting, orderId, limitPx: this.grid.price(price * 0.79, "down") }) },
      { op: "cancelOrder", send: () => client.cancelOrder({ symbol: resting.symbol, orderId }) },
    ];
    ctx.rng.shuffle(moves);
    const outcomes = await Promise.all(moves.map((move) => this.run(move.op, move.send)));
    outcomes.forEach((outcome, index) => {
      if (outcome !== undefined) ctx.count(`raceWon:${moves[index]!.op}`);
    });
    // The modify may have won and left the order resting: clean up (a failure here is counted like any other).
    if (outcomes.every((outcome, index) => outcome === undefined || moves[index]!.op !== "cancelOrder")) {
      await this.run("cancelOrder", () => client.cancelOrder({ symbol: resting.symbol, orderId }));
    }
  }

  burst(): Promise<void> | undefined {
    const { ctx, grid, client } = this;
    const every = ctx.params.burstEverySeconds;
    if (every === null) return undefined;
    ctx.after(every * MICROS_PER_SECOND, () => this.burst());
    const price = this.oracle.price(grid.asset);
    if (price === undefined) return undefined;
    ctx.count("bursts");
    const order = { symbol: grid.symbol, isBuy: true, limitPx: grid.price(price * 0.9, "down"), qty: grid.formatLots(grid.minLots), timeInForce: "IOC" as const };
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < ctx.params.burstSize; i++) sends.push(this.run("createOrder", () => client.createOrder(order)));
    return Promise.all(sends).then(() => undefined);
  }
}

export const chaos = defineAgent<ChaosParams>({
  kind: "chaos",
  description: "sends malformed, invalid and racing requests and bursts into the rate limit, counting every error code",
  defaults: CHAOS_DEFAULTS,
  checkParams,
  async start(ctx) {
    refuseBadParams("chaos", checkParams(ctx.params, ctx));
    const grid = gridOf(ctx.markets, ctx.params.symbol);
    const oracle = await OracleTracker.start(ctx);
    const agent = new Chaos(ctx, grid, oracle);
    await oracle.ready(grid.asset);
    ctx.after(ctx.params.startDelaySeconds * MICROS_PER_SECOND, () => agent.next());
    const every = ctx.params.burstEverySeconds;
    if (every !== null) ctx.after(every * MICROS_PER_SECOND, () => agent.burst());
  },
});

export default chaos;

/**
 * A price just off the tick grid: `price` (on the grid) with a 5 in its
 * ninth decimal after whatever decimals it has ("2400.5" -> "2400.500000005",
 * "2400" -> "2400.000000005"), a hair above it, so the order is refused for
 * its tick (PRICE_QTY_BOUNDS_ERROR) and for nothing else.
 */
export function offTick(price: string): string {
  const [whole, fraction = ""] = price.split(".");
  return `${whole}.${fraction.padEnd(8, "0")}5`;
}
