/**
 * The shipped themed scenarios each produce their theme (what the comment at
 * the top of each scenario file promises), run only as long as the theme
 * needs. Every check reads the Exchange's outputs through an observer, as
 * the summary and the recorders do.
 */
import { describe, expect, it } from "vitest";
import deadManSwitch from "../../scenarios/dead-man-switch.ts";
import fundingSqueeze from "../../scenarios/funding-squeeze.ts";
import liquidationCascade from "../../scenarios/liquidation-cascade.ts";
import settlementOutage from "../../scenarios/settlement-outage.ts";
import spotOnly from "../../scenarios/spot-only.ts";
import { Dec } from "../../src/core/decimal.ts";
import { DEFAULT_POOL_ACCOUNT_ID } from "../../src/exchange/config.ts";
import type { HostedAgent } from "../../src/sim/agent-host.ts";
import { runScenario } from "../../src/sim/runner.ts";
import type { MarketSummary } from "../../src/spec/market.ts";
import { agentOf, signedPosition, Tape } from "./fixtures/run-tape.ts";

describe("liquidation-cascade", () => {
  it("ETH falls, every 17-19x long is closed by liquidation against the pool or by ADL of a short, and both kinds happen", async () => {
    const tape = new Tape();
    // Seventeen minutes: on seed 1 the last of the six longs is closed at about 1000 s.
    const { run } = await runScenario(liquidationCascade, { observers: [tape], durationSeconds: 1_020 });
    const longs = run.host.agents.filter((agent) => agent.name.startsWith("long-"));
    expect(longs).toHaveLength(6);
    const longIds = new Set(longs.map((agent) => agent.accountId));

    const weth = tape.of("oraclePrices").flatMap((entry) => entry.value.prices.filter((price) => price.asset === "WETH").map((price) => Number(price.oraclePrice)));
    expect(weth[0]).toBe(3_000);
    expect(weth[weth.length - 1]!).toBeLessThan(3_000 * 0.95);

    const executions = tape.of("perpExecution").map((entry) => ({ at: entry.at, record: entry.value.record }));
    const liquidations = executions.filter((entry) => entry.record.type === "LIQUIDATION");
    const adl = executions.filter((entry) => entry.record.type === "ADL");
    expect(liquidations.length).toBeGreaterThan(0);
    expect(adl.length).toBeGreaterThan(0);

    // A liquidation is the liquidated long selling its position to the backstop pool.
    for (const { record } of liquidations) {
      expect(longIds.has(record.takerAccountId)).toBe(true);
      expect(record.makerAccountId).toBe(DEFAULT_POOL_ACCOUNT_ID);
      expect(record.side).toBe("A");
    }

    // An ADL event closes a liquidated long (side A) against shorts (side B) that buy the same quantity back.
    const adlByTime = new Map<number, typeof adl>();
    for (const entry of adl) adlByTime.set(entry.at, [...(adlByTime.get(entry.at) ?? []), entry]);
    for (const [at, records] of adlByTime) {
      const closed = records.filter((entry) => longIds.has(entry.record.takerAccountId));
      const counterparties = records.filter((entry) => !longIds.has(entry.record.takerAccountId));
      expect(closed.length, `ADL at ${at} s`).toBeGreaterThan(0);
      expect(counterparties.length, `ADL at ${at} s`).toBeGreaterThan(0);
      for (const entry of closed) expect(entry.record.side).toBe("A");
      for (const entry of counterparties) {
        expect(entry.record.side).toBe("B");
        expect(entry.record.takerAccountId).not.toBe(DEFAULT_POOL_ACCOUNT_ID);
        // Deleveraged shorts are the profitable side of a fall.
        expect(Number(entry.record.takerPriceVariationPnl)).toBeGreaterThan(0);
      }
      const sum = (list: typeof adl) => list.reduce((total, entry) => total.plus(entry.record.qty), new Dec(0));
      expect(sum(closed).toString()).toBe(sum(counterparties).toString());
    }

    // Each long was built (bought) first, then closed in full by exactly one of the two, and ends flat.
    for (const long of longs) {
      const own = executions.filter((entry) => entry.record.takerAccountId === long.accountId || entry.record.makerAccountId === long.accountId);
      const closes = own.filter((entry) => entry.record.type === "LIQUIDATION" || entry.record.type === "ADL");
      expect(closes.length, long.name).toBeGreaterThan(0);
      expect(new Set(closes.map((entry) => entry.record.type)).size, long.name).toBe(1);
      const firstClose = closes[0]!.at;
      const bought = own.filter((entry) => entry.record.type === "ORDER_MATCH" && entry.at < firstClose).reduce((total, entry) => total.plus(entry.record.qty), new Dec(0));
      const closedQty = closes.reduce((total, entry) => total.plus(entry.record.qty), new Dec(0));
      expect(bought.gt(0), long.name).toBe(true);
      expect(closedQty.toString(), long.name).toBe(bought.toString());
      expect(signedPosition(run, long, "ETHRUSDPERP").isZero(), long.name).toBe(true);
      expect((long.counts.get("liquidations") ?? 0) + (long.counts.get("adl") ?? 0), long.name).toBeGreaterThan(0);
    }
  });
});

describe("funding-squeeze", () => {
  it("keeps the ETH rate positive at (mark - index) / index under the raised cap, and longs pay what shorts receive", async () => {
    const tape = new Tape();
    const { run } = await runScenario(fundingSqueeze, { observers: [tape], durationSeconds: 300 });

    // Rates: every summary's rate is the rule's, with the index the WETH oracle price of that instant.
    let index: number | undefined;
    const rates: { at: number; percent: number; summary: MarketSummary }[] = [];
    const basis: number[] = [];
    for (const { at, value: output } of tape.outputs) {
      if (output.kind === "oraclePrices") {
        const price = output.prices.find((entry) => entry.asset === "WETH");
        if (price !== undefined) index = Number(price.oraclePrice);
      }
      if (output.kind !== "perpSummaries" || index === undefined) continue;
      const summary = output.summaries.find((entry) => entry.symbol === "ETHRUSDPERP")!;
      if (summary.markPrice === undefined) continue;
      const percent = Number(summary.fundingRate);
      expect(percent).toBeCloseTo(Math.max(-0.5, Math.min(0.5, ((Number(summary.markPrice) - index) / index) * 100)), 9);
      rates.push({ at, percent, summary });
      if (summary.oraclePrice !== undefined) basis.push(Number(summary.oraclePrice) / index - 1);
    }
    expect(rates.length).toBeGreaterThan(500);
    // The exchange-mark oracle sits 0.3 % above the index.
    const meanBasis = basis.reduce((sum, value) => sum + value, 0) / basis.length;
    expect(meanBasis).toBeGreaterThan(0.0025);
    expect(meanBasis).toBeLessThan(0.0035);
    // Longs pay throughout; the rate stays within the raised cap (0.5 %) and mostly above the default one (0.05 %).
    const later = rates.filter((entry) => entry.at >= 10);
    for (const entry of later) {
      expect(entry.percent).toBeGreaterThan(0);
      expect(entry.percent).toBeLessThanOrEqual(0.5);
    }
    expect(later.filter((entry) => entry.percent > 0.05).length).toBeGreaterThan(later.length * 0.9);
    // The long funding value falls and the short one rises by as much (no socialized loss here).
    for (let i = 1; i < later.length; i++) {
      const before = later[i - 1]!.summary;
      const after = later[i]!.summary;
      expect(Number(after.longFundingValue)).toBeLessThanOrEqual(Number(before.longFundingValue));
      expect(after.shortFundingValue).toBe(new Dec(after.longFundingValue).neg().toString());
    }

    // Payments: realized (executions) plus accruing (open positions) funding of every account sums to zero.
    const realized = new Map<number, Dec>();
    const book = (accountId: number | undefined, amount: string | undefined) => {
      if (accountId === undefined || amount === undefined) return;
      realized.set(accountId, (realized.get(accountId) ?? new Dec(0)).plus(amount));
    };
    for (const { value: output } of tape.of("perpExecution")) {
      book(output.record.takerAccountId, output.record.takerFundingPnl);
      book(output.record.makerAccountId, output.record.makerFundingPnl);
    }
    const now = run.world.queries.perpMarketSummary("ETHRUSDPERP") as MarketSummary;
    const fundingOf = (agent: HostedAgent): Dec => {
      let total = realized.get(agent.accountId) ?? new Dec(0);
      for (const position of run.world.queries.positions(agent.wallet)) {
        const value = position.side === "B" ? now.longFundingValue : now.shortFundingValue;
        total = total.plus(new Dec(position.qty).times(new Dec(value).minus(position.avgEntryFundingValue)));
      }
      return total;
    };
    expect(realized.has(DEFAULT_POOL_ACCOUNT_ID)).toBe(false); // no liquidation: the pool holds no position
    const byAgent = new Map(run.host.agents.map((agent) => [agent.name, fundingOf(agent)]));
    for (const name of ["long-1", "long-2"]) {
      expect(signedPosition(run, agentOf(run, name), "ETHRUSDPERP").gt(0), name).toBe(true);
      expect(byAgent.get(name)!.lt(-1), name).toBe(true);
    }
    expect(signedPosition(run, agentOf(run, "mm-eth"), "ETHRUSDPERP").lt(0)).toBe(true);
    expect(byAgent.get("mm-eth")!.gt(1)).toBe(true);
    // The buying is one-sided: the buyers end long and pay (the maker keeps offering to them).
    expect(signedPosition(run, agentOf(run, "buyers"), "ETHRUSDPERP").gt(0)).toBe(true);
    expect(byAgent.get("buyers")!.lt(0)).toBe(true);
    const paid = [...byAgent.values()].filter((value) => value.lt(0)).reduce((sum, value) => sum.plus(value), new Dec(0));
    const net = [...byAgent.values()].reduce((sum, value) => sum.plus(value), new Dec(0));
    expect(paid.lt(-10)).toBe(true);
    // Realized funding is booked in rUSD's 6 decimals: the sides match to within that rounding.
    expect(net.abs().toNumber()).toBeLessThan(1e-3);
  });
});

describe("settlement-outage", () => {
  it("produces no block for two minutes, busts about 60 % of the matches settled in the minute after, and about 0.5 % otherwise", async () => {
    const tape = new Tape();
    const { run } = await runScenario(settlementOutage, { observers: [tape], durationSeconds: 800 });
    const blocks = tape.of("block").map((entry) => ({ at: entry.at, settled: entry.value.settled, busted: entry.value.busted }));

    // The chain stalls from 600 s for 120 s: the next block comes at 720 s, with every match made meanwhile.
    expect(blocks.filter((block) => block.at > 600 && block.at < 720)).toEqual([]);
    const resumed = blocks.find((block) => block.at >= 720)!;
    expect(resumed.at).toBe(720);
    // Two minutes of matches piled up: far more than any block of normal times holds.
    const largestBefore = Math.max(...blocks.filter((block) => block.at < 600).map((block) => block.settled + block.busted));
    expect(resumed.settled + resumed.busted).toBeGreaterThan(100);
    expect(resumed.settled + resumed.busted).toBeGreaterThan(20 * largestBefore);

    // A taker whose signature's deadline passed while the chain stalled busts SignatureExpired (spec 2.16 stale
    // signature) before any injected reason is drawn: those are counted apart from the injected share.
    const stale = tape.of("bust").filter((bust) => bust.value.record.reason.reasonName === "SignatureExpired");
    const staleIn = (list: typeof blocks) => stale.filter((bust) => list.some((block) => block.at === bust.at)).length;
    const fraction = (list: typeof blocks) => {
      const expired = staleIn(list);
      const busted = list.reduce((sum, block) => sum + block.busted, 0) - expired;
      const total = list.reduce((sum, block) => sum + block.settled + block.busted, 0) - expired;
      return { busted, total, fraction: busted / total };
    };
    // The IOCs matched early in the stall (their deadlines are short) are past their deadline when it ends.
    expect(staleIn([resumed])).toBeGreaterThan(0);
    // 60 % from when the chain comes back until 780 s: mass busts (binomial, n ~ 350: +-0.1 is 4 sd).
    const outage = fraction(blocks.filter((block) => block.at >= 720 && block.at < 780));
    expect(outage.busted).toBeGreaterThan(150);
    expect(outage.fraction).toBeGreaterThan(0.5);
    expect(outage.fraction).toBeLessThan(0.7);
    expect(fraction([resumed]).fraction).toBeGreaterThan(0.45);
    // Outside the window the usual 0.5 %: some busts, but few.
    const normal = fraction(blocks.filter((block) => block.at < 600 || block.at >= 781));
    expect(normal.total).toBeGreaterThan(1_000);
    expect(normal.busted).toBeGreaterThan(0);
    expect(normal.fraction).toBeLessThan(0.015);

    // Each busted match is published once, at its block.
    const busts = tape.of("bust");
    expect(busts).toHaveLength(blocks.reduce((sum, block) => sum + block.busted, 0));
    const blockTimes = new Set(blocks.filter((block) => block.busted > 0).map((block) => block.at));
    for (const bust of busts) expect(blockTimes.has(bust.at)).toBe(true);

    // Positions are the settled executions only: busted matches left no trace.
    for (const agent of run.host.agents) {
      for (const symbol of ["ETHRUSDPERP", "BTCRUSDPERP"]) {
        let net = new Dec(0);
        for (const { value: output } of tape.of("perpExecution")) {
          const record = output.record;
          if (record.symbol !== symbol) continue;
          const takerSign = record.side === "B" ? 1 : -1;
          if (record.takerAccountId === agent.accountId) net = net.plus(new Dec(record.qty).times(takerSign));
          if (record.makerAccountId === agent.accountId) net = net.minus(new Dec(record.qty).times(takerSign));
        }
        expect(signedPosition(run, agent, symbol).toString(), `${agent.name} ${symbol}`).toBe(net.toString());
      }
    }
  });
});

describe("dead-man-switch", () => {
  it("cancels every quote of the stalled maker with CANCEL_ALL_AFTER 15 s after its last renewal, and only its quotes", async () => {
    const tape = new Tape();
    const { run } = await runScenario(deadManSwitch, { observers: [tape], durationSeconds: 340 });
    const stalled = agentOf(run, "mm-stalls");
    const steady = agentOf(run, "mm-steady");
    const walletOf = (agent: HostedAgent) => agent.wallet.toLowerCase();

    const renewals = tape.requests("cancelAllAfter").filter((request) => (request.value.body as { accountId?: number }).accountId === stalled.accountId);
    expect(renewals.length).toBeGreaterThan(10);
    const lastRenewal = renewals[renewals.length - 1]!.at;
    // Refreshes stop 300 s after the start.
    expect(lastRenewal).toBeLessThanOrEqual(300);
    expect(lastRenewal).toBeGreaterThan(300 - 3 - 1); // within one refresh (3 s) of the stop

    const switchCancels = tape.of("order").filter((entry) => entry.value.row.status === "CANCELLED" && entry.value.row.cancelReason === "CANCEL_ALL_AFTER");
    expect(switchCancels.length).toBeGreaterThan(0);
    // The switch fires deadManMs (15 s) after the last renewal reached the exchange, at the triggerAt it
    // reported: the receipt in whole milliseconds plus the timeout.
    const lastRenewalMicros = renewals[renewals.length - 1]!.atMicros;
    for (const entry of switchCancels) {
      expect(entry.value.wallet.toLowerCase()).toBe(walletOf(stalled));
      expect(entry.atMicros).toBe((Math.floor(lastRenewalMicros / 1_000) + 15_000) * 1_000);
    }
    // Every quote it had open went, none is left, and it said so in its counts.
    const cancelledIds = new Set(switchCancels.map((entry) => entry.value.row.orderId));
    expect(cancelledIds.size).toBe(switchCancels.length);
    expect(run.world.queries.openOrders(stalled.wallet)).toEqual([]);
    expect(stalled.counts.get("deadManCancels")).toBe(switchCancels.length);
    expect(stalled.counts.get("refreshStopped")).toBe(1);
    // The other maker keeps quoting both sides and trading after the switch fired: the book thins, it does not vanish.
    const firedAt = switchCancels[0]!.at;
    const steadyOpen = run.world.queries.openOrders(steady.wallet);
    expect(steadyOpen.some((order) => order.side === "B")).toBe(true);
    expect(steadyOpen.some((order) => order.side === "A")).toBe(true);
    const laterFills = tape.of("perpExecution").filter((entry) => entry.at > firedAt && entry.value.record.makerAccountId === steady.accountId);
    expect(laterFills.length).toBeGreaterThan(0);
  });
});

describe("spot-only", () => {
  it("trades WETHRUSD alone: spot executions only, no positions, WETH moving by the executions", async () => {
    const tape = new Tape();
    const { run } = await runScenario(spotOnly, { observers: [tape], durationSeconds: 120 });
    expect(run.setup.config.risk.perpMarkets).toEqual([]);

    expect(tape.of("perpExecution")).toEqual([]);
    const spot = tape.of("spotExecution");
    expect(spot.length).toBeGreaterThan(50);
    for (const { value: output } of spot) expect(output.record.symbol).toBe("WETHRUSD");
    for (const { value: output } of tape.of("order")) expect(output.row.symbol).toBe("WETHRUSD");

    for (const agent of run.host.agents) {
      expect(run.world.queries.positions(agent.wallet), agent.name).toEqual([]);
      // WETH held = deposit + bought - sold, exactly (spot fees are in rUSD).
      let weth = new Dec(agent.name === "mm-spot" ? "1500" : "100");
      for (const { value: output } of spot) {
        const record = output.record;
        const takerSign = record.side === "B" ? 1 : -1;
        if (record.takerAccountId === agent.accountId) weth = weth.plus(new Dec(record.qty).times(takerSign));
        if (record.makerAccountId === agent.accountId) weth = weth.minus(new Dec(record.qty).times(takerSign));
      }
      const balance = run.world.queries.accountBalances(agent.wallet).find((row) => row.asset === "WETH");
      expect(new Dec(balance?.realBalance ?? "0").toString(), agent.name).toBe(weth.toString());
    }
    const traded = new Set(spot.flatMap(({ value: output }) => [output.record.takerAccountId, output.record.makerAccountId]));
    for (const agent of run.host.agents) expect(traded.has(agent.accountId), agent.name).toBe(true);
  });
});
