/**
 * The in-process transport (src/sim/transport.ts) marks the Exchange's
 * answers `typed`, so the client hands them to agents without decoding
 * them (src/client/transport.ts). That is sound only while they are what
 * decoding would give: here an agent's answers, ok and refused, straight
 * from the transport and through the SDK, decode with the client's
 * tolerant schemas to equal values.
 */
import { describe, expect, it } from "vitest";
import { cancelAllAfterPlan } from "../../src/client/actions/cancelAllAfter.ts";
import { decodeRequestError, decodeWith, TolerantCancelAllAfterResponse, TolerantCreateOrderResponse } from "../../src/client/decode.ts";
import { RequestFailedError } from "../../src/client/errors.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { TRUSTED_SIGNATURE } from "../../src/sim/agent-host.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { FLAT_FEEDS } from "./fixtures/flat-feeds.ts";

const seen: { name: string; answer: unknown }[] = [];

const probe = defineAgent({
  kind: "transport-probe",
  description: "sends a few requests and keeps the answers",
  defaults: {},
  async start(ctx) {
    const body = cancelAllAfterPlan(ctx.client, { timeoutMs: 10_000 }).body({ nowMicros: ctx.now(), nonce: ctx.client.nonces.next() });
    body.signature = TRUSTED_SIGNATURE;
    seen.push({ name: "raw cancelAllAfter", answer: await ctx.client.transport.request("cancelAllAfter", body) });
    seen.push({ name: "createOrder", answer: await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "2500", qty: "0.1", timeInForce: "GTC", clientOrderId: "7" }) });
    const refused = await ctx.client.cancelOrder({ symbol: "ETHRUSDPERP", orderId: "999999" }).catch((error: unknown) => error);
    seen.push({ name: "refused cancelOrder", answer: refused });
  },
});

const scenario = defineScenario({
  name: "transport-typed",
  description: "one agent's answers, checked against the client's decoding",
  seed: 1,
  durationSeconds: 2,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [{ name: "probe", agent: probe }],
});

describe("the in-process transport's answers", () => {
  it("are typed, and what the client's decoding would make of them", async () => {
    seen.length = 0;
    await runScenario(scenario);
    expect(seen.map((entry) => entry.name)).toEqual(["raw cancelAllAfter", "createOrder", "refused cancelOrder"]);

    const raw = seen[0]!.answer as { ok: boolean; typed?: boolean; payload: unknown };
    expect(raw).toMatchObject({ ok: true, typed: true });
    expect(decodeWith(TolerantCancelAllAfterResponse, raw.payload)).toEqual({ ok: true, value: raw.payload });

    const created = seen[1]!.answer;
    expect(created).toMatchObject({ status: "OPEN", clientOrderId: "7" });
    expect(decodeWith(TolerantCreateOrderResponse, created)).toEqual({ ok: true, value: created });

    const refused = seen[2]!.answer;
    expect(refused).toBeInstanceOf(RequestFailedError);
    const requestError = (refused as RequestFailedError).requestError;
    expect(requestError).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect(decodeRequestError(requestError)).toEqual({ ok: true, value: requestError });
  });
});

/** What the read probes saw: per read, whether its answer was deeply frozen, what a mutation did, and (for b) the value a mutated. */
const readsSeen: { who: string; read: string; deeplyFrozen: boolean; mutation?: string; value?: unknown }[] = [];

function isDeeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

const readProbe = (who: "a" | "b") =>
  defineAgent({
    kind: `read-probe-${who}`,
    description: "reads its ledger and the summaries; a tries to change what it read, b reads the same afterwards",
    defaults: {},
    async start(ctx) {
      if (who === "b") await new Promise<void>((resolve) => void ctx.after(1_500_000, () => resolve()));
      const reads: [string, () => Promise<unknown>, (value: any) => { target: Record<string, unknown>; key: string }][] = [
        ["transfers", () => ctx.reads.transfers(ctx.wallet), (page) => ({ target: page.data[0], key: "amount" })],
        ["perpMarketsSummary", () => ctx.reads.perpMarketsSummary(), (rows) => ({ target: rows[0], key: "markPrice" })],
        ["perpMarketSummary", () => ctx.reads.perpMarketSummary("ETHRUSDPERP"), (row) => ({ target: row, key: "markPrice" })],
      ];
      for (const [read, run, field] of reads) {
        const value = await run();
        const { target, key } = field(value);
        const entry: (typeof readsSeen)[number] = { who, read, deeplyFrozen: isDeeplyFrozen(value), value: target[key] };
        if (who === "a") {
          try {
            target[key] = "MUTATED-BY-A";
            entry.mutation = "accepted";
          } catch (error) {
            entry.mutation = (error as Error).name;
          }
        }
        readsSeen.push(entry);
      }
    },
  });

const frozenReads = defineScenario({
  name: "transport-frozen-reads",
  description: "two agents read the same records; the first tries to modify them",
  seed: 1,
  durationSeconds: 2,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [
    { name: "a", agent: readProbe("a") },
    { name: "b", agent: readProbe("b") },
  ],
});

describe("the in-process transport's reads", () => {
  it("are deeply frozen: they hand over the Exchange's own records (ledger entries, summaries), which one agent must not change for another", async () => {
    readsSeen.length = 0;
    await runScenario(frozenReads);
    expect(readsSeen.map((entry) => `${entry.who} ${entry.read}`)).toEqual(["a transfers", "a perpMarketsSummary", "a perpMarketSummary", "b transfers", "b perpMarketsSummary", "b perpMarketSummary"]);
    for (const entry of readsSeen) expect(entry.deeplyFrozen, `${entry.who} ${entry.read}`).toBe(true);
    expect(readsSeen.filter((entry) => entry.who === "a").map((entry) => entry.mutation)).toEqual(["TypeError", "TypeError", "TypeError"]);
    for (const entry of readsSeen) expect(entry.value, `${entry.who} ${entry.read}`).not.toBe("MUTATED-BY-A");
  });
});
