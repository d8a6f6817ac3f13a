/**
 * A scenario agent's fee tier (`account.feeTierId`, src/sim/scenario.ts)
 * reaches the exchange through AgentHost (src/sim/agent-host.ts: a
 * `wallet` admin action when the account is opened), and the agent pays
 * that tier's rates on its executions.
 *
 * The scenario's fee tier table is the default one plus a VIP tier 7 with
 * an odd taker rate (0.00123), so a fee at that rate cannot come from any
 * other tier. A maker rests a perp and a spot ask; two takers buy the same
 * quantities from them with IOC orders: "vip" on fee tier 7, "regular" with
 * no fee tier (the volume-based REGULAR tier 1, 0.0004). Each execution's
 * takerFee must be price x qty x the taker's tier rate, rounded half-even
 * to the fee asset's decimals (rUSD: 6; src/risk/fees.ts); the maker, whose
 * tier's makerFee is 0, is charged nothing. The exchange reports the tier
 * as the wallet's configuration (feeTierId), and the taker's rUSD balance
 * falls by exactly its spot cost and the two fees.
 */
import { Decimal } from "decimal.js";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import type { RiskConfigInput } from "../../src/risk/config.ts";
import type { PerpExecution, SpotExecution } from "../../src/spec/execution.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { DEFAULT_DEPOSITS } from "../../src/sim/agent-host.ts";
import type { RunObserver } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";

const VIP_TIER = { tierId: 7, takerFee: "0.00123", makerFee: "0", volume30d: "0", tierType: "VIP" as const };
const MARKETS: RiskConfigInput = { ...DEFAULT_MARKETS, feeTiers: [...DEFAULT_MARKETS.feeTiers, VIP_TIER] };
/** The rUSD decimals of the table (fees are booked in rUSD). */
const FEE_DECIMALS = MARKETS.assets.find((asset) => asset.asset === "rUSD")!.decimals;

const PERP_ASK = "3000.5";
const SPOT_ASK = "3001.25";
const PERP_QTY = "0.37";
const SPOT_QTY = "0.211";

/** Rests one perp ask and one spot ask at the start. */
const maker = defineAgent({
  kind: "fee-test-maker",
  description: "one resting ask on ETHRUSDPERP and one on WETHRUSD",
  defaults: {},
  async start(ctx) {
    await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: false, limitPx: PERP_ASK, qty: "5", timeInForce: "GTC", postOnly: true });
    await ctx.client.createOrder({ symbol: "WETHRUSD", isBuy: false, limitPx: SPOT_ASK, qty: "5", timeInForce: "GTC", postOnly: true });
  },
});

/** After a second, buys from both asks with IOC orders, and counts their statuses. */
const taker = defineAgent({
  kind: "fee-test-taker",
  description: "one IOC buy on each market",
  defaults: {},
  start(ctx) {
    ctx.after(1_000_000, async () => {
      const perp = await ctx.client.createOrder({ symbol: "ETHRUSDPERP", isBuy: true, limitPx: "3010", qty: PERP_QTY, timeInForce: "IOC" });
      const spot = await ctx.client.createOrder({ symbol: "WETHRUSD", isBuy: true, limitPx: "3010", qty: SPOT_QTY, timeInForce: "IOC" });
      ctx.count(`perp:${perp.status}`);
      ctx.count(`spot:${spot.status}`);
    });
  },
});

const scenario = defineScenario({
  name: "fee-tiers",
  description: "a taker on a VIP fee tier and one on the default tier buy from the same maker",
  seed: 1,
  durationSeconds: 4,
  markets: MARKETS,
  settlement: { bustProbability: 0 },
  prices: [
    { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0 },
    { asset: "WBTC", model: "gbm", start: 60000, hourlyVolatility: 0 },
  ],
  agents: [
    { name: "maker", agent: maker, account: { rateTier: 3, deposits: { rUSD: "1000000", WETH: "100" } } },
    { name: "vip", agent: taker, account: { feeTierId: VIP_TIER.tierId } },
    { name: "regular", agent: taker },
  ],
});

/** The gross taker fee: price x qty x rate, rounded half-even to the fee asset's decimals. */
function expectedFee(price: string, qty: string, rate: string): Decimal {
  return new Decimal(price).times(qty).times(rate).toDecimalPlaces(FEE_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

async function run() {
  const outputs: ExchangeOutput[] = [];
  const observer: RunObserver = { output: (output) => void outputs.push(output) };
  const { run } = await runScenario(scenario, { observers: [observer] });
  const agent = (name: string) => run.host.agents.find((hosted) => hosted.name === name)!;
  const perp = outputs.flatMap((output) => (output.kind === "perpExecution" ? [output.record] : []));
  const spot = outputs.flatMap((output) => (output.kind === "spotExecution" ? [output.record] : []));
  return { run, outputs, agent, perp, spot };
}

let result: Awaited<ReturnType<typeof run>>;
beforeAll(async () => {
  result = await run();
});

function only<T extends PerpExecution | SpotExecution>(records: readonly T[], takerAccountId: number): T {
  const mine = records.filter((record) => record.takerAccountId === takerAccountId);
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

describe("a scenario agent's fee tier", () => {
  it("is set on the agent's wallet when its account is opened", () => {
    const { run, agent } = result;
    expect(run.world.queries.walletConfiguration(agent("vip").wallet).feeTierId).toBe(VIP_TIER.tierId);
    expect(run.world.queries.walletConfiguration(agent("regular").wallet).feeTierId).toBe(1);
    expect(run.world.queries.walletConfiguration(agent("maker").wallet).feeTierId).toBe(1);
  });

  it("sets the taker fee of the agent's perp executions at that tier's rate", () => {
    const { agent, perp } = result;
    expect([...agent("vip").counts]).toEqual([["perp:FILLED", 1], ["spot:FILLED", 1]]);
    const vip = only(perp, agent("vip").accountId);
    const regular = only(perp, agent("regular").accountId);
    for (const record of [vip, regular]) {
      expect(record.type).toBe("ORDER_MATCH");
      expect(record.makerAccountId).toBe(agent("maker").accountId);
      expect(new Decimal(record.price).eq(PERP_ASK)).toBe(true);
      expect(new Decimal(record.qty).eq(PERP_QTY)).toBe(true);
      // No maker fee: the tier table's makerFee is 0, and nothing is charged to the maker.
      expect(record.makerFee === undefined || new Decimal(record.makerFee).isZero()).toBe(true);
    }
    const vipFee = expectedFee(vip.price, vip.qty, VIP_TIER.takerFee);
    expect(vipFee.toString()).toBe("1.365528"); // 0.37 x 3000.5 x 0.00123 = 1.36552755
    expect(new Decimal(vip.takerFee).eq(vipFee), `vip takerFee ${vip.takerFee}`).toBe(true);
    expect(new Decimal(regular.takerFee).eq(expectedFee(regular.price, regular.qty, "0.0004")), `regular takerFee ${regular.takerFee}`).toBe(true);
    // The parts of the fee add up to it (no discounts or referrer here: no rebate).
    expect(new Decimal(vip.takerRebateCredit ?? "0").isZero()).toBe(true);
    const parts = ["protocolFeeCredit", "referrerFeeCredit", "takerRebateCredit", "poolFeeCredit"] as const;
    expect(parts.reduce((sum, part) => sum.plus(vip[part] ?? "0"), new Decimal(0)).eq(vip.takerFee)).toBe(true);
  });

  it("sets the taker fee of the agent's spot executions at that tier's rate", () => {
    const { agent, spot } = result;
    const vip = only(spot, agent("vip").accountId);
    const regular = only(spot, agent("regular").accountId);
    for (const record of [vip, regular]) {
      expect(record.makerAccountId).toBe(agent("maker").accountId);
      expect(new Decimal(record.price).eq(SPOT_ASK)).toBe(true);
      expect(new Decimal(record.qty).eq(SPOT_QTY)).toBe(true);
    }
    const vipFee = expectedFee(vip.price, vip.qty, VIP_TIER.takerFee);
    expect(vipFee.toString()).toBe("0.778914"); // 0.211 x 3001.25 x 0.00123 = 0.7789144125
    expect(new Decimal(vip.takerFee).eq(vipFee), `vip takerFee ${vip.takerFee}`).toBe(true);
    expect(new Decimal(regular.takerFee).eq(expectedFee(regular.price, regular.qty, "0.0004")), `regular takerFee ${regular.takerFee}`).toBe(true);
  });

  it("charges the fees to the agent's account: its rUSD balance falls by the spot cost and both fees", () => {
    const { agent, outputs, perp, spot } = result;
    const vip = agent("vip");
    const perpFee = new Decimal(only(perp, vip.accountId).takerFee);
    const spotRecord = only(spot, vip.accountId);
    const cost = new Decimal(spotRecord.price).times(spotRecord.qty);
    // The wallet's last balances (what a client sees on its balances channel).
    const last = outputs.filter((output): output is Extract<ExchangeOutput, { kind: "balances" }> => output.kind === "balances" && output.wallet === vip.wallet).at(-1);
    const rusd = last?.balances.find((balance) => balance.asset === "rUSD" && balance.accountId === vip.accountId);
    expect(rusd, JSON.stringify(last?.balances)).toBeDefined();
    const spent = new Decimal(DEFAULT_DEPOSITS["rUSD"]!).minus(rusd!.realBalance);
    expect(spent.eq(cost.plus(perpFee).plus(spotRecord.takerFee)), `rUSD spent ${spent}, cost ${cost}, fees ${perpFee} + ${spotRecord.takerFee}`).toBe(true);
  });
});
