import { defineAgent } from "../src/sim/agent.ts";
import { gridOf } from "./lib/grid.ts";

export const pinger = defineAgent({
  kind: "pinger",
  description: "buys 0.01 ETH every ten seconds, up to 1 % through the oracle",
  defaults: { symbol: "ETHRUSDPERP" },
  async start(ctx) {
    const grid = gridOf(ctx.markets, ctx.params.symbol); // the market's tick and lot: prices and sizes as it takes them
    let oracle = 0;
    await ctx.stream.subscribe("/v2/assetOraclePrices", (message) => {
      const weth = message.data.find((price) => price.asset === "WETH"); // typed by the channel's name: AssetOraclePrice[]
      if (weth !== undefined) oracle = Number(weth.oraclePrice);
    });
    const buy = async () => {
      ctx.after(10_000_000, buy); // virtual microseconds
      if (oracle === 0) return;
      try {
        const answer = await ctx.client.createOrder({ symbol: ctx.params.symbol, isBuy: true, limitPx: grid.price(oracle * 1.01, "down"), qty: "0.01", timeInForce: "IOC" });
        ctx.count(answer.status); // FILLED, or CANCELLED with NO_LIQUIDITY / IOC_REMAINDER
      } catch (error) {
        ctx.count(`error:${(error as { code?: string }).code}`); // the spec's RequestError code
      }
    };
    ctx.after(1_000_000, buy);
  },
});
