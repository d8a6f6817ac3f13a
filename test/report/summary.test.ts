import { beforeAll, describe, expect, it } from "vitest";
import { Dec } from "../../src/core/decimal.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { e18, formatScaled } from "../../src/report/money.ts";
import { formatNumber, formatSummaryTable, formatTable, maxDrawdown, RunSummaryObserver, summaryJson, type RunSummary } from "../../src/report/summary.ts";
import type { RunObserver, RunSetup } from "../../src/sim/run.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { fixtureScenario } from "../record/run-fixture.ts";

class Capture implements RunObserver {
  setup: RunSetup | undefined;
  readonly outputs: ExchangeOutput[] = [];
  begin(setup: RunSetup): void {
    this.setup = setup;
  }
  output(output: ExchangeOutput): void {
    this.outputs.push(output);
  }
}

let capture: Capture;
let summary: RunSummary;

beforeAll(async () => {
  capture = new Capture();
  const observer = new RunSummaryObserver();
  const { figures } = await runScenario(fixtureScenario(60), { observers: [observer, capture] });
  summary = observer.summarize(figures);
}, 60_000);

const dec = (text: string | undefined) => new Dec(text ?? "0");

/** Per account: volume, fees, realized PnL, funding paid and received, trades, recomputed from the execution outputs with decimal.js. */
function expectedByAccount() {
  const totals = new Map<number, { volume: Dec; fees: Dec; realized: Dec; paid: Dec; received: Dec; trades: number }>();
  const of = (accountId: number) => {
    let t = totals.get(accountId);
    if (t === undefined) {
      t = { volume: new Dec(0), fees: new Dec(0), realized: new Dec(0), paid: new Dec(0), received: new Dec(0), trades: 0 };
      totals.set(accountId, t);
    }
    return t;
  };
  const funding = (t: ReturnType<typeof of>, text: string | undefined) => {
    const amount = dec(text);
    if (amount.isNegative()) t.paid = t.paid.minus(amount);
    else t.received = t.received.plus(amount);
  };
  for (const output of capture.outputs) {
    if (output.kind === "perpExecution") {
      const r = output.record;
      const notional = dec(r.price).times(r.qty);
      const taker = of(r.takerAccountId);
      taker.trades++;
      taker.volume = taker.volume.plus(notional);
      taker.fees = taker.fees.plus(r.takerFee).minus(dec(r.takerRebateCredit));
      taker.realized = taker.realized.plus(dec(r.takerRealizedPnl));
      funding(taker, r.takerFundingPnl);
      if (r.makerAccountId !== undefined) {
        const maker = of(r.makerAccountId);
        maker.trades++;
        maker.volume = maker.volume.plus(notional);
        maker.fees = maker.fees.plus(dec(r.makerFee));
        maker.realized = maker.realized.plus(dec(r.makerRealizedPnl));
        funding(maker, r.makerFundingPnl);
      }
    } else if (output.kind === "spotExecution") {
      const r = output.record;
      const notional = dec(r.price).times(r.qty);
      const taker = of(r.takerAccountId);
      taker.trades++;
      taker.volume = taker.volume.plus(notional);
      taker.fees = taker.fees.plus(r.takerFee);
      const maker = of(r.makerAccountId);
      maker.trades++;
      maker.volume = maker.volume.plus(notional);
    }
  }
  return totals;
}

describe("RunSummaryObserver", () => {
  it("sums volume, fees, realized PnL and funding exactly over the executions", () => {
    const expected = expectedByAccount();
    expect(summary.exact).toBe(true);
    for (const agent of summary.agents) {
      const e = expected.get(agent.accountId)!;
      expect(agent.trades).toBe(e.trades);
      expect(dec(agent.volume).eq(e.volume)).toBe(true);
      expect(dec(agent.fees).eq(e.fees)).toBe(true);
      expect(dec(agent.realizedPnl).eq(e.realized)).toBe(true);
      expect(dec(agent.fundingPaid).eq(e.paid)).toBe(true);
      expect(dec(agent.fundingReceived).eq(e.received)).toBe(true);
      expect(agent.takerTrades + agent.makerTrades).toBe(agent.trades);
    }
    const takers = summary.agents.filter((a) => a.name.startsWith("taker"));
    expect(takers.every((a) => Number(a.fees) > 0)).toBe(true);
  });

  it("matches the ledger: realized PnL is the REALIZED_PNL and FUNDING entries, penalties the LIQUIDATION_PENALTY ones", () => {
    for (const agent of summary.agents) {
      let booked = new Dec(0);
      let penalties = new Dec(0);
      for (const output of capture.outputs) {
        if (output.kind !== "transfer" || output.entry.accountId !== agent.accountId) continue;
        if (output.entry.type === "REALIZED_PNL" || output.entry.type === "FUNDING") booked = booked.plus(output.entry.amount);
        if (output.entry.type === "LIQUIDATION_PENALTY" || output.entry.type === "SOCIALIZED_LOSS") penalties = penalties.minus(output.entry.amount);
      }
      expect(dec(agent.realizedPnl).eq(booked)).toBe(true);
      expect(dec(agent.penalties).eq(penalties)).toBe(true);
    }
  });

  it("counts trades, volume, ADL and busts per market, and totals them", () => {
    for (const market of summary.markets) {
      const executions = capture.outputs.flatMap((o) => ((o.kind === "perpExecution" || o.kind === "spotExecution") && o.symbol === market.symbol ? [o.record] : []));
      // An ADL close is two one-sided executions (risk/adl.ts), one trade of the market: its volume counts once.
      const adl = executions.filter((r) => r.type === "ADL");
      expect(adl.length % 2).toBe(0);
      const notional = (records: typeof executions) => records.reduce((sum, r) => sum.plus(dec(r.price).times(r.qty)), new Dec(0));
      expect(market.trades).toBe(executions.length - adl.length / 2);
      expect(dec(market.volume).eq(notional(executions).minus(notional(adl).div(2)))).toBe(true);
      expect(market.adl).toBe(executions.filter((r) => r.type === "ADL").length);
      expect(market.liquidations).toBe(executions.filter((r) => r.type === "LIQUIDATION").length);
      expect(market.busts).toBe(capture.outputs.filter((o) => o.kind === "bust" && o.symbol === market.symbol).length);
    }
    expect(summary.totals.trades).toBe(summary.markets.reduce((n, m) => n + m.trades, 0));
    expect(summary.totals.adl).toBeGreaterThan(0);
    expect(summary.totals.busts).toBeGreaterThan(0);
    expect(dec(summary.totals.volume).eq(summary.markets.reduce((sum, m) => sum.plus(m.volume), new Dec(0)))).toBe(true);
  });

  it("keeps the PnL identity for an agent that trades only perps and holds only rUSD", () => {
    const gambler = summary.agents.find((a) => a.name === "gambler")!;
    expect(gambler.adlFills).toBe(1);
    expect(gambler.equityStart).toBe(1000);
    const net = gambler.equityEnd! - gambler.equityStart! - gambler.flows;
    expect(gambler.netPnl).toBeCloseTo(net, 9);
    const explained = Number(gambler.realizedPnl) - Number(gambler.fees) - Number(gambler.penalties) + gambler.unrealizedPnl!;
    expect(gambler.netPnl!).toBeCloseTo(explained, 6);
    expect(Math.abs(gambler.otherPnl!)).toBeLessThan(1e-6);
    // It lost money, so its drawdown is at least its loss from the first sample.
    expect(gambler.maxDrawdown!).toBeGreaterThanOrEqual(-gambler.netPnl! - 1e-9);
  });

  it("draws and measures equity net of a deposit made during the run: the deposit is a flow, not a gain", async () => {
    const gamblerId = summary.agents.find((a) => a.name === "gambler")!.accountId;
    const DEPOSIT = 50_000;
    const observer = new RunSummaryObserver();
    const timeline = [{ atSeconds: 30, admin: { action: "deposit" as const, accountId: gamblerId, asset: "rUSD", amount: String(DEPOSIT) } }];
    const { figures } = await runScenario(fixtureScenario(60, { timeline }), { observers: [observer] });
    const withDeposit = observer.summarize(figures).agents.find((a) => a.name === "gambler")!;
    expect(withDeposit.flows).toBe(DEPOSIT);
    // Raw equity ends a deposit higher than it started; net of flows it moves only by what trading did.
    expect(withDeposit.equityEnd! - withDeposit.equityStart!).toBeGreaterThan(DEPOSIT / 2);
    const charted = observer.series().equity.get("gambler")!;
    let largestStep = 0;
    for (let i = 1; i < charted.length; i++) largestStep = Math.max(largestStep, Math.abs(charted[i]! - charted[i - 1]!));
    expect(largestStep).toBeLessThan(DEPOSIT / 10);
    expect(charted[charted.length - 1]! - charted[0]!).toBeCloseTo(withDeposit.netPnl!, 6);
    expect(withDeposit.maxDrawdown!).toBeLessThan(DEPOSIT / 10);
  }, 60_000);

  it("fill ratios are settled filled over ordered notional of the agents' orders: busted fills do not count as filled", () => {
    // cumQty counts every match, busted ones too (spec 3.4: FILLED is never corrected); a bust names both orders and its qty.
    const busted = new Map<string, number>();
    for (const output of capture.outputs) {
      if (output.kind !== "bust") continue;
      for (const orderId of [output.record.takerOrderId, output.record.makerOrderId]) busted.set(orderId, (busted.get(orderId) ?? 0) + Number(output.record.qty));
    }
    let agentsWithBustedFills = 0;
    for (const agent of summary.agents) {
      const orders = new Map<string, { qty: number; cum: number; px: number }>();
      for (const output of capture.outputs) {
        if (output.kind !== "order" || output.row.accountId !== agent.accountId) continue;
        const o = orders.get(output.row.orderId) ?? { qty: 0, cum: 0, px: Number(output.row.limitPx) };
        if (output.row.qty !== undefined) o.qty = Math.max(o.qty, Number(output.row.qty));
        if (output.row.cumQty !== undefined) o.cum = Number(output.row.cumQty);
        orders.set(output.row.orderId, o);
      }
      let ordered = 0;
      let filled = 0;
      let bustedNotional = 0;
      for (const [orderId, o] of orders) {
        ordered += o.qty * o.px;
        const bustedQty = busted.get(orderId) ?? 0;
        filled += Math.max(0, Math.min(o.cum, o.qty) - bustedQty) * o.px;
        bustedNotional += bustedQty * o.px;
      }
      if (bustedNotional > 0) agentsWithBustedFills++;
      expect(agent.orders).toBe(orders.size);
      expect(agent.fillRatio).toBeCloseTo(filled / ordered, 9);
    }
    expect(agentsWithBustedFills).toBeGreaterThan(0);
    const gambler = summary.agents.find((a) => a.name === "gambler")!;
    expect(gambler.fillRatio).toBe(1);
  });

  it("shows the funding accrued on open positions at the end, which the realized funding columns leave out", () => {
    // The Exchange's own figures at the end: units x (funding value of its side - avgEntryFundingValue) per position.
    const setup = capture.setup!;
    const end = setup.world.now();
    const values = new Map(setup.world.exchange.risk.marketSummaries(end).map((m) => [m.symbol, m]));
    let holders = 0;
    for (const agent of summary.agents) {
      const wallet = setup.agents.find((a) => a.accountId === agent.accountId)!.wallet;
      let accrued = new Dec(0);
      for (const p of setup.world.queries.positions(wallet)) {
        if (p.accountId !== agent.accountId || new Dec(p.qty).isZero()) continue;
        const m = values.get(p.symbol)!;
        accrued = accrued.plus(new Dec(p.qty).times(new Dec(p.side === "B" ? m.longFundingValue : m.shortFundingValue).minus(p.avgEntryFundingValue)));
        holders++;
      }
      expect(agent.unrealizedFunding, agent.name).toBeCloseTo(accrued.toNumber(), 9);
    }
    expect(holders).toBeGreaterThan(0);
  });

  it("writes JSON that round-trips, and a table that names every agent and market", () => {
    expect(JSON.parse(summaryJson(summary))).toEqual(JSON.parse(JSON.stringify(summary)));
    const table = formatSummaryTable(summary);
    for (const agent of summary.agents) expect(table).toContain(agent.name);
    for (const market of summary.markets) expect(table).toContain(market.symbol);
    expect(table).toContain(summary.fingerprint);
    expect(table).not.toMatch(/\u001b\[/); // no colour codes
  });
});

describe("maxDrawdown", () => {
  it("finds the largest fall from a previous peak", () => {
    expect(maxDrawdown([100, 120, 90, 130, 110, 140])).toEqual({ drawdown: 30, fraction: 0.25, peakIndex: 1, troughIndex: 2 });
    expect(maxDrawdown([100, 110, 60, 200, 90])).toEqual({ drawdown: 110, fraction: 0.55, peakIndex: 3, troughIndex: 4 });
  });

  it("is zero for a rising series and skips missing points", () => {
    expect(maxDrawdown([1, 2, 3, 4]).drawdown).toBe(0);
    expect(maxDrawdown([]).drawdown).toBe(0);
    expect(maxDrawdown([NaN, 50, NaN, 40, 45]).drawdown).toBe(10);
  });
});

describe("money and table formatting", () => {
  it("parses and formats wire decimals exactly", () => {
    expect(e18("-0.5")).toBe(-500_000_000_000_000_000n);
    expect(e18("123")).toBe(123n * 10n ** 18n);
    expect(e18("0.000000000000000001")).toBe(1n);
    expect(e18("1e2")).toBe(100n * 10n ** 18n);
    expect(formatScaled(e18("2999.99") * e18("0.001"), 36)).toBe("2.99999");
    expect(formatScaled(-e18("0.1") * e18("3"), 36)).toBe("-0.3");
    expect(formatScaled(0n, 36)).toBe("0");
  });

  it("aligns columns: text to the left, numbers to the right", () => {
    const text = formatTable(["name", "value"], [
      ["a", "1.00"],
      ["long name", "1,234.50"],
    ]);
    expect(text.split("\n")).toEqual(["name          value", "---------  --------", "a              1.00", "long name  1,234.50"]);
    expect(formatNumber(-1234567.891)).toBe("-1,234,567.89");
    expect(formatNumber(null)).toBe("-");
    expect(formatNumber("0.004")).toBe("0.00");
  });
});
