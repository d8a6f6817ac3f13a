/**
 * "A rejected request changes nothing", differentially: two exchanges get
 * the same valid requests at the same times; the second also gets rejected
 * requests in between (every stage of the pipeline: signature, nonce,
 * limits, market rules, pre-trade risk, the engine's rules; from known and
 * never-seen signers). Their answers to the valid requests, their whole
 * output streams and their final states must be identical. This sees what a
 * before/after digest cannot: a hidden counter or id that a rejection moved
 * shows up later, in what the valid requests do.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExchangeAnswer } from "../../../src/exchange/exchange.ts";
import type { OrderEntryOperation } from "../../../src/exchange/inputs.ts";
import { ETH, SPOT, START_MICROS, World, type Party } from "./harness.ts";

type Actor = "alice" | "bob" | "dave";

interface Action {
  actor: Actor;
  kind: "rest" | "ioc" | "cancel" | "modify";
  isBuy: boolean;
  halfTicks: number;
  lots: number;
  pick: number;
}

interface Step {
  noise: number[];
  action: Action;
}

const action: fc.Arbitrary<Action> = fc.record({
  actor: fc.constantFrom<Actor>("alice", "bob", "dave"),
  kind: fc.constantFrom<Action["kind"]>("rest", "rest", "ioc", "cancel", "modify"),
  isBuy: fc.boolean(),
  halfTicks: fc.integer({ min: -30, max: 30 }),
  lots: fc.integer({ min: 1, max: 20 }),
  pick: fc.nat(),
});

function price(halfTicks: number): string {
  return (2000 + halfTicks / 2).toFixed(1);
}

/** Rejections, each built for the current state and rejected whatever it is. */
const NOISE: ((w: World) => { op: OrderEntryOperation; body: unknown })[] = [
  // limits, after the signer has been identified (dave is an added signer of account 2)
  (w) => ({ op: "createOrder", body: w.create(w.dave, { symbol: ETH, isBuy: true, qty: "3", limitPx: "1990", timeInForce: "GTC" }, { nonce: w.dave.peekNonce() }) }),
  // market rules: the perp IOC band
  (w) => ({ op: "createOrder", body: w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "2300", timeInForce: "IOC" }, { nonce: w.alice.peekNonce() }) }),
  // the engine: no such order
  (w) => ({
    op: "modifyOrder",
    body: w.modify(w.bob, { orderId: "4242", symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", postOnly: false, timeInForce: "GTC" }, { nonce: w.bob.peekNonce() }),
  }),
  // a signer not permissioned on the account
  (w) => ({ op: "createOrder", body: w.create(w.mallory, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }, { nonce: w.mallory.peekNonce() }) }),
  // a nonce that is never fresh
  (w) => ({ op: "createOrder", body: w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }, { nonce: "0" }) }),
  // off the tick grid
  (w) => ({ op: "createOrder", body: w.create(w.bob, { symbol: ETH, isBuy: false, qty: "0.01", limitPx: "2010.005", timeInForce: "GTC" }, { nonce: w.bob.peekNonce() }) }),
  // the engine: a stop's limit outside its band
  (w) => ({
    op: "createOrder",
    body: w.create(w.dave, { symbol: ETH, orderType: "STOP_LOSS", isBuy: false, triggerPx: "1900", limitPx: "1700", timeInForce: "GTC" }, { nonce: w.dave.peekNonce() }),
  }),
  // pre-trade risk, from a signer that never has a request accepted
  (w) => ({ op: "createOrder", body: w.create(w.carol, { symbol: SPOT, isBuy: true, qty: "1", limitPx: "2000", timeInForce: "GTC" }, { nonce: w.carol.peekNonce() }) }),
  // the engine, for a signer that never has a request accepted: a GTT living less than 5 s
  (w) => {
    const now = w.nowSeconds();
    return {
      op: "createOrder",
      body: w.create(w.carol, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTT", expiresAfter: now + 3, deadline: now + 2 }, { nonce: w.carol.peekNonce() }),
    };
  },
  // pre-trade risk of a modify: the resting order is lifted for the check and put back
  (w) => {
    const erin = w.parties.find((party) => party.name === "erin")!;
    const orderId = w.exchange.engine.openOrders(erin.accountId)[0]!.orderId;
    return {
      op: "modifyOrder",
      body: w.modify(erin, { orderId, symbol: ETH, isBuy: true, qty: "1.5", limitPx: "1980", postOnly: false, timeInForce: "GTC" }, { nonce: erin.peekNonce() }),
    };
  },
  // a flipped signature byte on an otherwise valid request
  (w) => {
    const body = w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }, { nonce: w.alice.peekNonce() });
    return { op: "createOrder", body: { ...body, signature: `0x${(Number.parseInt(body.signature.slice(2, 4), 16) ^ 1).toString(16).padStart(2, "0")}${body.signature.slice(4)}` } };
  },
];

function partyOf(w: World, actor: Actor): Party {
  return w[actor];
}

function run(w: World, step: Action): ExchangeAnswer {
  const party = partyOf(w, step.actor);
  const qty = (step.lots / 1000).toFixed(3);
  const live = w.exchange.engine.openOrders(party.accountId, 1).filter((order) => order.orderType === "LIMIT");
  const target = live.length === 0 ? undefined : live[step.pick % live.length]!;
  if (step.kind === "cancel" && target !== undefined) {
    return w.send("cancelOrder", w.cancel(party, { symbol: ETH, orderId: target.orderId }));
  }
  if (step.kind === "modify" && target !== undefined) {
    const body = w.modify(party, {
      orderId: target.orderId,
      symbol: ETH,
      isBuy: target.isBuy,
      qty,
      limitPx: price(step.halfTicks),
      postOnly: false,
      timeInForce: "GTC",
      ...(target.clientOrderId === null ? {} : { clientOrderId: target.clientOrderId }),
    });
    return w.send("modifyOrder", body);
  }
  const order = { symbol: ETH, isBuy: step.isBuy, qty, limitPx: price(step.halfTicks) };
  return w.send("createOrder", w.create(party, step.kind === "ioc" ? { ...order, timeInForce: "IOC" } : { ...order, timeInForce: "GTC" }));
}

describe("Rejected requests leave no trace (differential)", () => {
  it("the same valid flow, with and without rejections in between, gives the same answers, outputs and state", () => {
    const used = new Set<number>();
    fc.assert(
      fc.property(fc.array(fc.record({ noise: fc.array(fc.integer({ min: 0, max: NOISE.length - 1 }), { maxLength: 2 }), action }), { minLength: 5, maxLength: 20 }), (steps: Step[]) => {
        const plain = new World();
        const noisy = new World();
        for (const w of [plain, noisy]) {
          w.adminOk({ action: "addSigner", accountId: 2, signer: w.dave.address });
          w.rest(w.newParty("erin", 5, 5, { rUSD: "100" }), { isBuy: true, qty: "0.5", limitPx: "1980" });
        }
        steps.forEach((step, index) => {
          const at = START_MICROS + (index + 1) * 250_000 + 17;
          plain.at(at);
          noisy.at(at);
          for (const pick of step.noise) {
            used.add(pick);
            const { op, body } = NOISE[pick]!(noisy);
            const answer = noisy.send(op, body);
            expect(answer.ok, `noise ${pick} was accepted: ${JSON.stringify(answer)}`).toBe(false);
          }
          expect(run(noisy, step.action)).toEqual(run(plain, step.action));
        });
        for (const w of [plain, noisy]) w.advance(1_000);
        expect(noisy.outputs).toEqual(plain.outputs);
        expect(noisy.digest()).toEqual(plain.digest());
        expect(noisy.exchange.engine.dumpState()).toEqual(plain.exchange.engine.dumpState());
      }),
      { seed: 42, numRuns: 25 },
    );
    expect(used.size).toBe(NOISE.length);
  });
});
