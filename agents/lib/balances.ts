/**
 * The agent's asset balances, from `/v2/wallet/{address}/accountBalances`
 * (spec 6.1, 2.19): a latest-value feed of the account's balances after each
 * change. The channel has no snapshot, so the starting state is read from
 * REST (`ctx.reads.balances`) unless a message came first. `realBalance` is
 * what is tracked (net deposits plus realized PnL; for a spot asset, the
 * holding).
 */
import type { AgentContext } from "../../src/sim/agent.ts";
import type { AccountBalance } from "../../src/spec/account.ts";

export class BalanceTracker {
  private readonly balances = new Map<string, number>();
  private received = false;

  static async start(ctx: Pick<AgentContext<unknown>, "stream" | "reads" | "wallet" | "accountId">): Promise<BalanceTracker> {
    const tracker = new BalanceTracker(ctx.accountId);
    await ctx.stream.subscribe(`/v2/wallet/${ctx.wallet}/accountBalances`, (message) => tracker.apply(message.data));
    const initial = await ctx.reads.balances(ctx.wallet);
    if (!tracker.received) tracker.apply(initial);
    return tracker;
  }

  constructor(private readonly accountId: number) {}

  /** The realBalance of `asset` (0 when the account has none). */
  balance(asset: string): number {
    return this.balances.get(asset) ?? 0;
  }

  apply(rows: readonly AccountBalance[]): void {
    this.received = true;
    for (const row of rows) if (row.accountId === this.accountId) this.balances.set(row.asset, Number(row.realBalance));
  }
}

/** The realBalance of `asset` now, read once from REST (0 when absent). */
export async function readBalance(ctx: Pick<AgentContext<unknown>, "reads" | "wallet" | "accountId">, asset: string): Promise<number> {
  const rows = await ctx.reads.balances(ctx.wallet);
  const row = rows.find((candidate) => candidate.accountId === ctx.accountId && candidate.asset === asset);
  return row === undefined ? 0 : Number(row.realBalance);
}
