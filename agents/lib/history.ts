/**
 * An own order looked up in `/v2/wallet/{address}/orderHistory` (spec 4.1,
 * 2.12): what the matching engine did with it, IOC takers included (they
 * are not published on orderChanges, spec 6.4).
 *
 * This is how an agent learns the outcome of a request whose answer was lost
 * (TransportFailedError, InvalidResponseError: the outcome is unknown, and
 * the SDK says to verify through the reads before resubmitting). The
 * history reports matching, not settlement: a fill it shows may still
 * settle late or bust (spec 3.4, lib/busts.ts).
 */
import type { TolerantOrder } from "../../src/client/decode.ts";
import type { AgentContext } from "../../src/sim/agent.ts";

/** Pages read at most: 100 rows a page, and the service keeps a bounded history per account (1,000 rows here). */
const HISTORY_PAGES_MAX = 20;

/**
 * The newest orderHistory row of the agent's account updated at or after
 * `sinceMs` that `matches`, or undefined when none does. Rows come newest
 * first, so it is the order's latest state (cumQty covers its whole life).
 */
export async function findInHistory(
  ctx: Pick<AgentContext<unknown>, "reads" | "wallet" | "accountId">,
  sinceMs: number,
  matches: (row: TolerantOrder) => boolean,
): Promise<TolerantOrder | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES_MAX; page++) {
    const list = await ctx.reads.orderHistory(ctx.wallet, { startTime: Math.floor(sinceMs), ...(cursor === undefined ? {} : { cursor }) });
    const found = list.data.find((row) => row.accountId === ctx.accountId && matches(row));
    if (found !== undefined) return found;
    cursor = list.meta.nextCursor;
    if (cursor === undefined) return undefined;
  }
  return undefined;
}
