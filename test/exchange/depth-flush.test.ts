/**
 * The Exchange's depth flush: every book change reaches the depth outputs,
 * also one made while a flush is under way. An output listener that moves
 * a book mid-flush (here: cancels an account's orders on the other market
 * straight through the engine, on every 7th depth output) marks that
 * market again, and the flush goes round again for it: after every input
 * the view built from the depth outputs is the book. Before, a mark for a
 * market the flush had already passed was cleared with the rest, and the
 * levels it changed stayed stale in the published view (this test found
 * 153 inputs after which they were).
 */
import { describe, expect, it } from "vitest";
import { depthMessage } from "../../src/engine/wire.ts";
import type { Exchange } from "../../src/exchange/exchange.ts";
import { runFlow, trustedConfig } from "./flow.ts";

type View = Map<string, string>;

function apply(view: View, levels: readonly { px: string; qty: string }[]): void {
  for (const { px, qty } of levels) {
    if (Number(qty) === 0) view.delete(px);
    else view.set(px, qty);
  }
}

function bookView(exchange: Exchange, marketId: number): { bids: View; asks: View } {
  const market = exchange.engine.market(marketId)!;
  const depth = exchange.engine.depth(marketId, 100);
  if (!depth.ok) throw new Error(depth.error.message);
  const message = depthMessage(market, depth, "SNAPSHOT");
  const bids: View = new Map();
  const asks: View = new Map();
  apply(bids, message.bids);
  apply(asks, message.asks);
  return { bids, asks };
}

function sameView(a: View, b: View): boolean {
  if (a.size !== b.size) return false;
  for (const [px, qty] of a) if (b.get(px) !== qty) return false;
  return true;
}

describe("depth flush", () => {
  it("publishes a book change made by an output listener during a flush", () => {
    const published = new Map<string, { bids: View; asks: View }>();
    let depthOutputs = 0;
    let reentered = 0;
    let inListener = false;
    const stale: string[] = [];
    runFlow({ seed: 3, accounts: 12, durationMicros: 60_000_000, ordersPerSecond: 40, config: trustedConfig() }, (exchange) => {
      // After each input (its flush done), the view the depth outputs built must be the book.
      const handle = exchange.handle.bind(exchange);
      exchange.handle = (input, atMicros) => {
        const answer = handle(input, atMicros);
        for (const [symbol, marketId] of [["ETHRUSDPERP", 1], ["BTCRUSDPERP", 2]] as const) {
          const view = published.get(symbol) ?? { bids: new Map(), asks: new Map() };
          const book = bookView(exchange, marketId);
          if (!sameView(view.bids, book.bids) || !sameView(view.asks, book.asks)) stale.push(`${symbol} after input ${input.kind} at ${atMicros}`);
        }
        return answer;
      };
      exchange.subscribe((output) => {
        if (output.kind !== "depth") return;
        const view = published.get(output.symbol) ?? { bids: new Map(), asks: new Map() };
        published.set(output.symbol, view);
        apply(view.bids, output.depth.bids);
        apply(view.asks, output.depth.asks);
        depthOutputs++;
        if (inListener || depthOutputs % 7 !== 0) return;
        inListener = true;
        try {
          // From BTC's update (marketId 2) move ETH's book (1: already passed in this flush), and the other way round.
          const other = output.symbol === "ETHRUSDPERP" ? 2 : 1;
          const owners = exchange.engine.accountsWithOpenOrders(other);
          if (owners.length > 0) {
            exchange.engine.cancelAll({ atMicros: exchange.now(), accountId: owners[0]!, marketId: other });
            reentered++;
          }
        } finally {
          inListener = false;
        }
      });
    });
    expect(reentered).toBeGreaterThan(10);
    expect(depthOutputs).toBeGreaterThan(100);
    expect(stale).toEqual([]);
  });
});
