/**
 * An Exchange output is never changed after it is emitted, so that any
 * subscriber (stream fanout, the run fingerprint, recorders, a user's
 * observer) may keep it and read it later and see what was emitted. Each
 * shipped scenario runs for a few simulated minutes with a subscriber that
 * keeps every output and its canonical text as emitted; at the end, every
 * output must still serialize to that text.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/fingerprint.ts";
import type { ExchangeOutput } from "../../src/exchange/outputs.ts";
import { SimRun } from "../../src/sim/run.ts";
import type { Scenario } from "../../src/sim/scenario.ts";
import cascade from "../../scenarios/liquidation-cascade.ts";
import deadMan from "../../scenarios/dead-man-switch.ts";
import defaultScenario from "../../scenarios/default.ts";
import funding from "../../scenarios/funding-squeeze.ts";
import outage from "../../scenarios/settlement-outage.ts";
import spot from "../../scenarios/spot-only.ts";

const SCENARIOS: readonly [string, Scenario][] = [
  ["default", defaultScenario],
  ["liquidation-cascade", cascade],
  ["funding-squeeze", funding],
  ["settlement-outage", outage],
  ["dead-man-switch", deadMan],
  ["spot-only", spot],
];

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("Exchange outputs", () => {
  it.each(SCENARIOS)("are never changed after they are emitted (%s, 5 simulated minutes)", async (_name, scenario) => {
    const run = new SimRun(scenario, { signatures: "trusted", durationSeconds: 300 });
    const emitted: [ExchangeOutput, string][] = [];
    run.world.exchange.subscribe((output) => emitted.push([output, canonicalJson(output)]));
    for (;;) {
      const state = run.advance(4_096);
      if (state === "done") break;
      if (state === "drain") await turn();
    }
    await turn();
    expect(emitted.length).toBeGreaterThan(1_000);
    const changed = emitted.filter(([output, text]) => canonicalJson(output) !== text);
    expect(changed.map(([output, text]) => ({ kind: output.kind, before: text, after: canonicalJson(output) })).slice(0, 3)).toEqual([]);
  });
});
