/**
 * The in-process stream (src/sim/transport.ts) behaves as the live /ws does
 * (audit scratch/s21/audit-parity.md). A failed re-subscribe (the snapshot
 * fails during the engineUnavailable fault) rolls back the subscription the
 * connection held, as src/live/stream.ts does (test/conformance/stream-protocol.test.ts
 * checks the live side): no update of the channel reaches the agent until it
 * subscribes again, and then it gets a fresh SNAPSHOT and the updates after it.
 *
 * A message is one object for every agent subscribed to its channel, so it is
 * deeply frozen: an agent cannot change what another agent sees (live, each
 * client parses its own copy). So is the `subscribed` answer with its
 * snapshot: the transfers snapshot holds the ledger's own entries, which
 * other agents' snapshots and the reads share.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { defineAgent, type AgentContext } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import type { StreamChannelData } from "../../src/spec/stream-envelopes.ts";
import { FLAT_FEEDS } from "./fixtures/flat-feeds.ts";

const ETH = "ETHRUSDPERP";
const DEPTH = `/v2/market/${ETH}/depth`;

/** What the probe saw, in order: its stream messages and its subscribe outcomes, with the ms since its start. */
const seen: { atMs: number; what: string; detail?: unknown }[] = [];

/** Resolves after `ms` of virtual time from the agent's start. */
function at(ctx: AgentContext, t0: number, ms: number): Promise<void> {
  return new Promise((resolve) => void ctx.after(Math.max(0, t0 + ms * 1_000 - ctx.now()), () => resolve()));
}

const probe = defineAgent({
  kind: "resubscribe-probe",
  description: "holds depth, re-subscribes during the fault, trades after it, subscribes again",
  defaults: {},
  async start(ctx) {
    const t0 = ctx.now();
    const note = (what: string, detail?: unknown): void => void seen.push({ atMs: (ctx.now() - t0) / 1_000, what, ...(detail === undefined ? {} : { detail }) });
    const handler = (tag: string) => (message: StreamChannelData) => note(`${tag} ${(message.data as { type: string }).type}`, message.data);
    const subscribe = async (tag: string) => {
      try {
        const answer = await ctx.stream.subscribe(DEPTH, handler(tag));
        note(`${tag} subscribed`, answer.contents);
      } catch (error) {
        note(`${tag} refused`, (error as Error).message);
      }
    };
    await subscribe("first");
    await at(ctx, t0, 1_500); // inside the fault (1 s to 2 s)
    await subscribe("during fault");
    await at(ctx, t0, 2_500); // after it: a new level, then it leaves
    const placed = await ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2500", qty: "0.1", timeInForce: "GTC" });
    await at(ctx, t0, 2_700);
    await ctx.client.cancelOrder({ symbol: ETH, orderId: placed.orderId });
    await at(ctx, t0, 3_000);
    await subscribe("again");
    await at(ctx, t0, 3_500);
    await ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2400", qty: "0.1", timeInForce: "GTC" });
  },
});

const scenario = defineScenario({
  name: "stream-resubscribe",
  description: "a failed re-subscribe rolls the held subscription back",
  seed: 1,
  durationSeconds: 5,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  timeline: [{ atSeconds: 1, fault: { fault: "engineUnavailable", durationMs: 1_000 } }],
  agents: [{ name: "probe", agent: probe }],
});

describe("a failed re-subscribe in the sim", () => {
  it("drops the subscription held before it, as live does; a later subscribe starts it again", async () => {
    seen.length = 0;
    await runScenario(scenario);
    const whats = seen.map((entry) => entry.what);
    expect(whats[0]).toBe("first subscribed");
    const refused = seen.find((entry) => entry.what === "during fault refused");
    expect(refused?.detail).toBe(`Error while fetching snapshot from ${DEPTH}`);
    // Nothing of the channel between the refusal and the next subscribe: the 2500 level came and went unseen.
    const refusedAt = whats.indexOf("during fault refused");
    const againAt = whats.indexOf("again subscribed");
    expect(refusedAt).toBeGreaterThan(0);
    expect(againAt).toBeGreaterThan(refusedAt);
    expect(whats.slice(refusedAt + 1, againAt)).toEqual([]);
    // Subscribed again: a fresh SNAPSHOT, then the next update goes to the new handler only.
    expect(seen[againAt]!.detail).toMatchObject({ type: "SNAPSHOT", bids: [] });
    expect(whats.slice(againAt + 1)).toEqual(["again UPDATE"]);
    expect(seen[againAt + 1]!.detail).toMatchObject({ bids: [{ px: "2400", qty: "0.1" }] });
  });
});

const frozenSeen: { who: string; markPrice: unknown; mutation?: string; deeplyFrozen?: boolean }[] = [];

function isDeeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

const listener = (who: string, mutate: boolean) =>
  defineAgent({
    kind: `summary-listener-${who}`,
    description: "listens to the perp summaries; one of them tries to change what it got",
    defaults: {},
    async start(ctx) {
      await ctx.stream.subscribe("/v2/perpMarkets/summary", (message) => {
        const rows = message.data as unknown as Record<string, unknown>[]; // to try to change it
        const entry: (typeof frozenSeen)[number] = { who, markPrice: rows[0]!["markPrice"], deeplyFrozen: isDeeplyFrozen(message) };
        if (mutate) {
          try {
            rows[0]!["markPrice"] = "MUTATED-BY-A";
            entry.mutation = "accepted";
          } catch (error) {
            entry.mutation = (error as Error).name;
          }
        }
        frozenSeen.push(entry);
      });
    },
  });

const ZERO = { model: "constant" as const, micros: 0 };
const shared = defineScenario({
  name: "stream-shared-message",
  description: "two agents on one channel, the first tries to modify its message",
  seed: 1,
  durationSeconds: 1.2,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [
    { name: "a", agent: listener("a", true), latency: { orderEntry: ZERO, responses: ZERO, marketData: ZERO } },
    { name: "b", agent: listener("b", false), latency: { orderEntry: ZERO, responses: ZERO, marketData: ZERO } },
  ],
});

describe("a stream message in the sim", () => {
  it("is deeply frozen: one agent cannot change what another receives", async () => {
    frozenSeen.length = 0;
    await runScenario(shared);
    expect(frozenSeen.length).toBeGreaterThanOrEqual(2);
    for (const entry of frozenSeen) {
      expect(entry.deeplyFrozen, entry.who).toBe(true);
      expect(entry.markPrice, entry.who).toMatch(/^[0-9.]+$/);
    }
    expect(frozenSeen.filter((entry) => entry.who === "a").map((entry) => entry.mutation)).toEqual(frozenSeen.filter((entry) => entry.who === "a").map(() => "TypeError"));
    expect(frozenSeen.filter((entry) => entry.who === "b").length).toBe(frozenSeen.filter((entry) => entry.who === "a").length);
  });
});

/** What the snapshot probes saw: per channel, whether the `subscribed` answer was deeply frozen, what a mutation did, and the first transfer's amount. */
const snapshotSeen: { who: string; channel: string; deeplyFrozen: boolean; mutation?: string; amount?: unknown }[] = [];
let walletOfA = "";

const snapshotProbe = (who: "a" | "b") =>
  defineAgent({
    kind: `snapshot-probe-${who}`,
    description: "subscribes to the channels with snapshots; a tries to change its transfers snapshot, b reads a's afterwards",
    defaults: {},
    async start(ctx) {
      if (who === "a") {
        walletOfA = ctx.wallet;
        await ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2500", qty: "0.1", timeInForce: "GTC" });
        for (const channel of [DEPTH, `/v2/wallet/${ctx.wallet}/orderChanges`, `/v2/wallet/${ctx.wallet}/transfers`]) {
          const answer = await ctx.stream.subscribe(channel, () => undefined);
          const data = (answer.contents as { data?: Record<string, unknown>[]; bids?: Record<string, unknown>[] }).data ?? (answer.contents as { bids: Record<string, unknown>[] }).bids;
          const entry: (typeof snapshotSeen)[number] = { who, channel, deeplyFrozen: isDeeplyFrozen(answer) };
          try {
            data[0]![channel.endsWith("transfers") ? "amount" : "qty"] = "MUTATED-BY-A";
            entry.mutation = "accepted";
          } catch (error) {
            entry.mutation = (error as Error).name;
          }
          snapshotSeen.push(entry);
        }
        return;
      }
      await new Promise<void>((resolve) => void ctx.after(500_000, () => resolve()));
      const channel = `/v2/wallet/${walletOfA}/transfers`;
      const answer = await ctx.stream.subscribe(channel, () => undefined);
      const data = (answer.contents as { data: Record<string, unknown>[] }).data;
      snapshotSeen.push({ who, channel, deeplyFrozen: isDeeplyFrozen(answer), amount: data[data.length - 1]!["amount"] });
    },
  });

const snapshots = defineScenario({
  name: "stream-frozen-snapshots",
  description: "a subscription's snapshot is deeply frozen, as its messages are",
  seed: 1,
  durationSeconds: 1.2,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [
    { name: "a", agent: snapshotProbe("a"), latency: { orderEntry: ZERO, responses: ZERO, marketData: ZERO } },
    { name: "b", agent: snapshotProbe("b"), latency: { orderEntry: ZERO, responses: ZERO, marketData: ZERO } },
  ],
});

describe("a subscription's snapshot in the sim", () => {
  it("is deeply frozen, as stream messages are: one agent cannot change another's snapshot, or the ledger's entries", async () => {
    snapshotSeen.length = 0;
    await runScenario(snapshots);
    expect(snapshotSeen.map((entry) => [entry.who, entry.channel.split("/").pop()])).toEqual([
      ["a", "depth"],
      ["a", "orderChanges"],
      ["a", "transfers"],
      ["b", "transfers"],
    ]);
    for (const entry of snapshotSeen) expect(entry.deeplyFrozen, `${entry.who} ${entry.channel}`).toBe(true);
    expect(snapshotSeen.filter((entry) => entry.who === "a").map((entry) => entry.mutation)).toEqual(["TypeError", "TypeError", "TypeError"]);
    // The deposit a's account was made with, as the ledger recorded it.
    expect(snapshotSeen[3]!.amount).toBe("100000");
  });
});

/** What the unsubscribe probe saw, in order, with the µs since its start. */
const unsubscribeSeen: { atMicros: number; what: string }[] = [];

const ms = (value: number) => value * 1_000;

const unsubscribeProbe = defineAgent({
  kind: "unsubscribe-probe",
  description: "unsubscribes while an update of its channel is in flight, and subscribes again while another is",
  defaults: {},
  async start(ctx) {
    const t0 = ctx.now();
    const note = (what: string) => void unsubscribeSeen.push({ atMicros: ctx.now() - t0, what });
    const tag = (name: string) => (message: StreamChannelData) => note(`${name} ${(message.data as { type: string }).type}`);
    const wait = (micros: number) => new Promise<void>((resolve) => void ctx.after(micros, () => resolve()));
    await ctx.stream.subscribe(DEPTH, tag("first"));
    note("first subscribed");
    // Reaches the exchange 5 ms later; its depth UPDATE is in flight from then for 2 ms.
    const start = ctx.now();
    void ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2500", qty: "0.1", timeInForce: "GTC" });
    await wait(start + ms(6) - ctx.now());
    ctx.stream.unsubscribe(DEPTH);
    note("unsubscribed");
    await wait(ms(20));
    await ctx.stream.subscribe(DEPTH, tag("held"));
    note("held subscribed");
    // Again: an update in flight when the agent unsubscribes and at once subscribes with a new handler.
    const again = ctx.now();
    void ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2400", qty: "0.1", timeInForce: "GTC" });
    await wait(again + ms(1) - ctx.now());
    ctx.stream.unsubscribe(DEPTH);
    const answer = await ctx.stream.subscribe(DEPTH, tag("second"));
    note(`second subscribed ${answer.contents === undefined ? "" : answer.contents.bids.length}`);
    await wait(ms(20));
    await ctx.client.createOrder({ symbol: ETH, isBuy: true, limitPx: "2300", qty: "0.1", timeInForce: "GTC" });
    await wait(ms(20));
  },
});

const unsubscribing = defineScenario({
  name: "stream-unsubscribe",
  description: "an unsubscribe while updates are in flight",
  seed: 1,
  durationSeconds: 1,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [
    {
      name: "probe",
      agent: unsubscribeProbe,
      latency: { orderEntry: { model: "constant", micros: ms(5) }, responses: ZERO, marketData: { model: "constant", micros: ms(2) } },
    },
  ],
});

describe("an unsubscribe in the sim", () => {
  it("stops the handler at once, as the SDK's live stream does: an update in flight is not handed over, not even to the handler of a new subscribe before its snapshot", async () => {
    unsubscribeSeen.length = 0;
    await runScenario(unsubscribing);
    expect(unsubscribeSeen.map((entry) => entry.what)).toEqual([
      "first subscribed",
      // The 2500 bid's UPDATE left the exchange at +5 ms and arrives at +7 ms: after the unsubscribe at +6 ms.
      "unsubscribed",
      "held subscribed",
      // The 2400 bid's UPDATE, in flight when the agent subscribed again, went nowhere: the new handler starts with its SNAPSHOT (both bids).
      "second subscribed 2",
      "second UPDATE",
    ]);
  });
});
