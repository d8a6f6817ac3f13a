/**
 * Busted fills of an own taker order, read from REST
 * (`/v2/wallet/{address}/executionBusts`, spec 2.16).
 *
 * A fill is final only once it settles (its execution; the positions
 * channel follows) or busts (spec 3.4). An agent that acts between the two
 * must not guess which by a timeout ("not settled within N s, so busted"):
 * a slow or stalled chain settles a fill late, and the guess counts a live
 * fill as gone (the agent then trades again on top of it). When a fill is
 * late, it asks: the busts of the order since it was sent. A fill that has
 * neither settled nor busted is still on its way.
 */
import type { AgentContext } from "../../src/sim/agent.ts";

/** Rows read at most: every bust of one wallet since one order was sent fits, in any scenario here. */
const BUSTS_READ_LIMIT = 1_000;

/** The quantity of `orderId`'s fills (the agent's taker order, sent at `sinceMs` or later) that were busted, as a number. */
export async function bustedQty(ctx: Pick<AgentContext<unknown>, "reads" | "wallet" | "accountId">, orderId: string, sinceMs: number): Promise<number> {
  const page = await ctx.reads.walletExecutionBusts(ctx.wallet, { startTime: Math.floor(sinceMs), limit: BUSTS_READ_LIMIT });
  let qty = 0;
  for (const row of page.data) if (row.takerOrderId === orderId && row.takerAccountId === ctx.accountId) qty += Number(row.qty);
  return qty;
}
