import { describe, expect, it } from "vitest";
import { Fingerprint } from "../../src/core/fingerprint.ts";
import { ExchangeInvariants } from "../../src/sim/invariants.ts";
import { runFlow, trustedConfig } from "./flow.ts";

const HOUR = 3_600_000_000;

describe("Exchange: engine, risk and settlement together", () => {
  it("keeps every invariant after every block for one virtual hour with 2% busts, and reproduces its fingerprint without the checks", { timeout: 240_000 }, () => {
    // Run 0 checks every invariant after every block; run 1 repeats the hour unobserved: the same
    // fingerprint shows the run reproduces and that the checks (observers) change no output.
    const fingerprints: string[] = [];
    for (let run = 0; run < 2; run++) {
      let invariants: ExchangeInvariants | undefined;
      const fingerprint = new Fingerprint();
      const config = trustedConfig({ chain: { bustProbability: 0.02 } });
      const { exchange, answers } = runFlow({ seed: 7, accounts: 30, durationMicros: HOUR, ordersPerSecond: 8, config }, (exchange) => {
        if (run === 0) invariants = new ExchangeInvariants(exchange);
        exchange.subscribe((output) => fingerprint.update(output));
      });
      fingerprints.push(fingerprint.digest());
      if (invariants === undefined) continue;
      invariants.checkState();
      const stats = invariants.stats;
      // The run did what it is meant to test: many settled matches, some busts, blocks all hour.
      expect(stats.blocksChecked).toBeGreaterThanOrEqual(35_000);
      expect(stats.executions).toBeGreaterThan(2_000);
      expect(stats.busts).toBeGreaterThan(20);
      expect(stats.busts / (stats.busts + stats.executions)).toBeLessThan(0.1);
      expect(answers.filter((a) => a.ok).length).toBeGreaterThan(answers.length / 2);
      expect(exchange.desk).toBeDefined();
    }
    expect(fingerprints[0]).toBe(fingerprints[1]);
  });
});
