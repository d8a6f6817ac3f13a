/**
 * The README's example agent (the ```ts block that calls defineAgent) is
 * agents/pinger.ts, verbatim: so `tsc` (part of `npm test`) type-checks it as
 * printed (the channel-typed `message.data`, with no cast, included), and
 * here it runs beside a market maker for two simulated minutes. A README
 * edit that breaks the example, or drifts from the file, fails here.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { marketMaker } from "../agents/market-maker.ts";
import { pinger } from "../agents/pinger.ts";
import { runScenario } from "../src/sim/runner.ts";
import { defineScenario } from "../src/sim/scenario.ts";
import { CALM_FEEDS } from "./agents/helpers.ts";

const ROOT = resolve(import.meta.dirname, "..");

describe("the README's example agent", () => {
  it("is agents/pinger.ts, verbatim", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((block) => block.includes("defineAgent("));
    expect(examples, "README.md has one ```ts block that defines an agent").toHaveLength(1);
    expect(examples[0]).toBe(readFileSync(join(ROOT, "agents", "pinger.ts"), "utf8"));
  });

  it("runs as printed: it buys through the oracle every ten seconds and its answers are counted", async () => {
    const scenario = defineScenario({
      name: "readme-agent",
      description: "",
      seed: 5,
      durationSeconds: 120,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        { name: "example", agent: pinger, params: {}, account: { deposits: { rUSD: "10000" } } },
      ],
    });
    const { run } = await runScenario(scenario);
    const example = run.host.agents.find((hosted) => hosted.name === "example")!;
    const counts = Object.fromEntries(example.counts) as Record<string, number>;
    // One buy every ten seconds from the first second (1, 11, ..., 111 s): 12 answers, counted by status. The
    // first may find the maker not yet quoting (CANCELLED, NO_LIQUIDITY); the others fill against it.
    const answers = Object.values(counts).reduce((sum, count) => sum + count, 0);
    expect(answers).toBe(12);
    expect(Object.keys(counts).every((status) => status === "FILLED" || status === "CANCELLED")).toBe(true);
    expect(counts["FILLED"]).toBeGreaterThanOrEqual(10);
    // Each fill is 0.01 ETH long.
    const position = run.world.queries.positions(example.wallet).find((entry) => entry.symbol === "ETHRUSDPERP");
    expect(Number(position?.qty)).toBeCloseTo(0.01 * counts["FILLED"]!, 10);
  });
});
