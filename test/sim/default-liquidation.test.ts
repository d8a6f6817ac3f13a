/**
 * The default scenario's over-leveraged trader is liquidated, as the
 * scenario promises ("an over-leveraged trader who gets liquidated": on
 * seed 1 at about 300 s), run just past that point.
 */
import { describe, expect, it } from "vitest";
import defaultScenario from "../../scenarios/default.ts";
import { Dec } from "../../src/core/decimal.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../../src/exchange/config.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { agentOf, Tape } from "./fixtures/run-tape.ts";

describe("default", () => {
  it("liquidates the over-leveraged trader: a short built near the leverage cap is closed against the pool by a WBTC rally", async () => {
    const tape = new Tape();
    // The scenario says: on seed 1 the short is liquidated at about 300 s.
    const { run } = await runScenario(defaultScenario, { observers: [tape], durationSeconds: 310 });
    const trader = agentOf(run, "over-leveraged");
    const entry = defaultScenario.agents.find((agent) => agent.name === "over-leveraged")!;
    expect(entry.params).toMatchObject({ symbol: "BTCRUSDPERP", side: "short" });
    const deposit = Number(entry.account!.deposits!["rUSD"]);

    const own = tape.of("perpExecution").filter((item) => item.value.record.takerAccountId === trader.accountId || item.value.record.makerAccountId === trader.accountId);
    const liquidations = own.filter((item) => item.value.record.type === "LIQUIDATION");
    expect(liquidations).toHaveLength(1);
    const liquidation = liquidations[0]!;
    expect(liquidation.value.record).toMatchObject({ symbol: "BTCRUSDPERP", takerAccountId: trader.accountId, makerAccountId: DEFAULT_POOL_ACCOUNT_ID, side: "B" });
    expect(liquidation.at).toBeGreaterThan(250);
    expect(trader.counts.get("liquidations")).toBe(1);

    // Before it: a short of more than 15 x its deposit, all of which the liquidation bought back.
    const built = own.filter((item) => item.value.record.type === "ORDER_MATCH" && item.at < liquidation.at).map((item) => item.value.record);
    let short = new Dec(0);
    let notional = new Dec(0);
    for (const record of built) {
      const sold = record.takerAccountId === trader.accountId ? record.side === "A" : record.side === "B";
      short = sold ? short.plus(record.qty) : short.minus(record.qty);
      notional = sold ? notional.plus(new Dec(record.qty).times(record.price)) : notional.minus(new Dec(record.qty).times(record.price));
    }
    expect(short.gt(0)).toBe(true);
    expect(notional.toNumber()).toBeGreaterThan(15 * deposit);
    expect(notional.toNumber()).toBeLessThan(20 * deposit);
    expect(liquidation.value.record.qty).toBe(short.toString());
    // What liquidated it: WBTC rose by more than the 2.5 % between initial and liquidation margin, less its cushion.
    const entryPrice = notional.div(short).toNumber();
    let wbtc = 0;
    for (const item of tape.of("oraclePrices")) {
      if (item.at > liquidation.at) break;
      wbtc = Number(item.value.prices.find((price) => price.asset === "WBTC")?.oraclePrice ?? wbtc);
    }
    expect(wbtc / entryPrice - 1).toBeGreaterThan(0.015);
    expect(Number(liquidation.value.record.takerRealizedPnl)).toBeLessThan(-0.5 * deposit);
  });
});

describe("default, whatever the seed", () => {
  it("liquidates the over-leveraged trader on a seed whose random path alone would not: seed 2's short meets the scripted WBTC rise at 20 minutes", async () => {
    const tape = new Tape();
    const { run } = await runScenario(defaultScenario, { seed: 2, observers: [tape], durationSeconds: 1_230 });
    const trader = agentOf(run, "over-leveraged");
    const liquidations = tape
      .of("perpExecution")
      .filter((item) => item.value.record.type === "LIQUIDATION" && item.value.record.takerAccountId === trader.accountId);
    expect(liquidations).toHaveLength(1);
    // Not before the shock (the random path had not moved 2.5 % against it), within seconds after it.
    expect(liquidations[0]!.at).toBeGreaterThanOrEqual(1_200);
    expect(liquidations[0]!.value.record).toMatchObject({ symbol: "BTCRUSDPERP", side: "B" });
  });
});
