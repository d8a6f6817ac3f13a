/**
 * Fee v3, hand-computed on a 1 BTC @ 50000 taker fill (notional 50000) at
 * tier 0 (takerFee rate 0.0004): gross takerFee 20. Global parameters:
 * ogDiscount 0.1, refereeDiscount 0.05, referrerRebate 0.1,
 * affiliateReferrerRebate 0.2, poolFeeShare 0.2.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toE18 } from "../../src/core/decimal.ts";
import { computeTakerFeeSplit, takerFeeSplit } from "../../src/risk/fees.ts";
import { mainAccountOf } from "../../src/risk/accounts.ts";
import { RiskEngine } from "../../src/risk/risk.ts";
import { BTC_PERP, HOUR, POOL, T0, baseConfig, setPrices, trade, venue, wallet } from "./fixtures.ts";

const DAY = 24 * HOUR;

function feeVenue() {
  const risk = venue({ accounts: 5, poolDeposit: "1000" });
  for (let id = 1; id <= 5; id++) risk.deposit(id, "RUSD", "10000000", T0);
  setPrices(risk, T0);
  return risk;
}

const cases = [
  { name: "no discount, no referrer", flags: {}, referrer: undefined, affiliate: false, parts: ["20", "16", "0", "0", "4"] },
  { name: "OG", flags: { og: true }, referrer: undefined, affiliate: false, parts: ["20", "14", "0", "2", "4"] },
  { name: "referee with a referrer", flags: { referee: true }, referrer: 3, affiliate: false, parts: ["20", "13", "2", "1", "4"] },
  { name: "OG and referee with an affiliate referrer", flags: { og: true, referee: true }, referrer: 3, affiliate: true, parts: ["20", "9.1", "4", "2.9", "4"] },
] as const;

describe("taker fee split", () => {
  it.each(cases)("$name", ({ flags, referrer, affiliate, parts }) => {
    const risk = feeVenue();
    risk.updateWallet(wallet(1), { ...flags, ...(referrer === undefined ? {} : { referrer: wallet(referrer) }) });
    if (affiliate) risk.updateWallet(wallet(3), { affiliate: true });
    const before = risk.balances(1)[0]!.realBalance;
    const { record, ledger } = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    const [takerFee, protocol, referrerCredit, rebate, pool] = parts;
    expect(record).toMatchObject({ takerFee, protocolFeeCredit: protocol, referrerFeeCredit: referrerCredit, takerRebateCredit: rebate, poolFeeCredit: pool });
    expect("makerFee" in record).toBe(false);
    const net = Number(takerFee) - Number(rebate);
    expect(Number(risk.balances(1)[0]!.realBalance)).toBeCloseTo(Number(before) - net, 9);
    expect(ledger.filter((entry) => entry.accountId === 1).map((entry) => [entry.type, entry.amount])).toEqual(
      rebate === "0" ? [["PERP_FEE", "-20"]] : [["PERP_FEE", "-20"], ["PERP_REBATE", rebate]],
    );
    const referrerEntry = ledger.find((entry) => entry.accountId === 3);
    if (referrerCredit === "0") expect(referrerEntry).toBeUndefined();
    else expect(referrerEntry).toMatchObject({ type: "PERP_REBATE", amount: referrerCredit, counterpartyAccountId: 1 });
    expect(ledger.find((entry) => entry.accountId === POOL)).toMatchObject({ type: "PERP_REBATE", amount: pool });
    expect(risk.state.protocolFees.get("RUSD")).toBe(toE18(protocol, "protocol") * 10n ** 18n);
  });

  it("rounds the fee half-even to the settlement decimals", () => {
    const risk = feeVenue();
    // 0.001 BTC @ 50000.1: notional 50.0001 x 0.0004 = 0.02000004 -> 0.02
    const { record } = trade(risk, BTC_PERP, 1, 2, "B", 500_001, 1, T0);
    expect(record.takerFee).toBe("0.02");
  });

  it("sums its parts to the gross fee exactly, whatever the amounts and flags", () => {
    const risk = feeVenue();
    risk.updateWallet(wallet(3), { affiliate: true });
    const state = risk.state;
    fc.assert(
      fc.property(fc.bigInt(1n, 10n ** 48n), fc.boolean(), fc.boolean(), fc.constantFrom(undefined, 3, 4), fc.constantFrom(0, 1, 9), (notional, og, referee, referrer, tierId) => {
        const subject = state.wallets.get(wallet(5))!;
        subject.og = og;
        subject.referee = referee;
        subject.referrer = referrer === undefined ? undefined : wallet(referrer);
        const tier = state.config.feeTiers.find((candidate) => candidate.tierId === tierId)!;
        const split = takerFeeSplit(state, subject, tier, notional);
        expect(split.protocolFeeCredit + split.referrerFeeCredit + split.takerRebateCredit + split.poolFeeCredit).toBe(split.takerFee);
        for (const part of [split.protocolFeeCredit, split.referrerFeeCredit, split.takerRebateCredit, split.poolFeeCredit]) {
          expect(part >= 0n).toBe(true);
          expect(part % state.settlement.config.unit).toBe(0n);
        }
        if (referrer === undefined) expect(split.referrerFeeCredit).toBe(0n);
      }),
      { seed: 42, numRuns: 400 },
    );
  });

  it("returns the remembered split only while every input is as it was", () => {
    // Each step changes one input of the split (or none), then asks twice: both answers must equal a fresh computation.
    const risk = feeVenue();
    const state = risk.state;
    const poolAccount = state.accounts.get(POOL)!;
    const notionals = [50_000n * 10n ** 36n, 50_000n * 10n ** 36n + 10n ** 20n, 7n * 10n ** 35n];
    const step = fc.record({
      change: fc.constantFrom("none", "og", "referee", "referrer", "affiliate", "notional", "tier", "wallet", "pool"),
      pick: fc.nat(8),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        state.lastFeeSplit = undefined;
        const subjects = [state.wallets.get(wallet(1))!, state.wallets.get(wallet(2))!];
        for (const subject of subjects) Object.assign(subject, { og: false, referee: false, referrer: undefined });
        state.wallets.get(wallet(3))!.affiliate = false;
        let subject = subjects[0]!;
        let notional = notionals[0]!;
        let tier = state.config.feeTiers[0]!;
        for (const { change, pick } of steps) {
          if (change === "og") subject.og = !subject.og;
          if (change === "referee") subject.referee = !subject.referee;
          if (change === "referrer") subject.referrer = [undefined, wallet(3), wallet(4), wallet(77)][pick % 4];
          if (change === "affiliate") state.wallets.get(wallet(3))!.affiliate = !state.wallets.get(wallet(3))!.affiliate;
          if (change === "notional") notional = notionals[pick % notionals.length]!;
          if (change === "tier") tier = state.config.feeTiers[pick % state.config.feeTiers.length]!;
          if (change === "wallet") subject = subjects[pick % 2]!;
          if (change === "pool") {
            if (state.accounts.has(POOL)) state.accounts.delete(POOL);
            else state.accounts.set(POOL, poolAccount);
          }
          const fresh = computeTakerFeeSplit(state, subject, tier, notional, mainAccountOf(state, subject.referrer), state.accounts.get(POOL));
          expect(takerFeeSplit(state, subject, tier, notional)).toEqual(fresh);
          expect(takerFeeSplit(state, subject, tier, notional)).toEqual(fresh);
        }
        if (!state.accounts.has(POOL)) state.accounts.set(POOL, poolAccount);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("credits no referrer when the referring wallet has no account", () => {
    const risk = feeVenue();
    risk.createWallet(wallet(77));
    risk.updateWallet(wallet(1), { referee: true, referrer: wallet(77) });
    const { record } = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    expect(record).toMatchObject({ referrerFeeCredit: "0", takerRebateCredit: "1", protocolFeeCredit: "15" });
  });
});

describe("fee tiers", () => {
  it("moves up with the rolling 30-day volume and back down when it expires", () => {
    const risk = feeVenue();
    expect(risk.walletConfiguration(wallet(1), T0).feeTierId).toBe(0);
    trade(risk, BTC_PERP, 1, 2, "B", 500_000, 20_000, T0); // notional 1,000,000
    expect(risk.walletConfiguration(wallet(1), T0).feeTierId).toBe(1);
    expect(risk.walletConfiguration(wallet(2), T0).feeTierId).toBe(1); // maker volume counts too
    const next = trade(risk, BTC_PERP, 1, 2, "A", 500_000, 1_000, T0 + DAY);
    expect(next.record.takerFee).toBe("15"); // 50000 x 0.0003
    expect(risk.walletConfiguration(wallet(1), T0 + 31 * DAY).feeTierId).toBe(0);
  });

  it("uses an assigned VIP tier regardless of volume", () => {
    const risk = feeVenue();
    risk.updateWallet(wallet(1), { vipTierId: 9, og: true });
    expect(risk.walletConfiguration(wallet(1), T0)).toEqual({ feeTierId: 9, ogStatus: true, affiliateStatus: false, refereeStatus: false });
    const { record } = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    expect(record).toMatchObject({ takerFee: "5", takerRebateCredit: "0.5" });
    risk.updateWallet(wallet(1), { vipTierId: null });
    expect(risk.walletConfiguration(wallet(1), T0).feeTierId).toBe(0);
  });
});

describe("fee tier configuration", () => {
  it("refuses a tier type other than REGULAR or VIP, naming the tier", () => {
    const config = baseConfig();
    const feeTiers = config.feeTiers.map((tier, index) => (index === 0 ? { ...tier, tierType: "GOLD" as never } : tier));
    expect(() => new RiskEngine({ ...config, feeTiers })).toThrow(`tier ${config.feeTiers[0]!.tierId}.tierType "GOLD" must be REGULAR or VIP`);
  });
});

describe("without a pool account", () => {
  it("leaves the pool's share to the protocol", () => {
    const risk = new RiskEngine(baseConfig());
    for (const id of [1, 2]) {
      risk.createWallet(wallet(id));
      risk.createAccount(id, wallet(id));
      risk.deposit(id, "RUSD", "100000", T0);
    }
    setPrices(risk, T0);
    const { record } = trade(risk, BTC_PERP, 1, 2, "B", 500_000, 1_000, T0);
    expect(record).toMatchObject({ takerFee: "20", poolFeeCredit: "0", protocolFeeCredit: "20" });
  });
});
