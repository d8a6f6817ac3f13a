/**
 * The README's example agent (the ```ts block that calls defineAgent, under
 * "Backtest a scenario") runs as printed: taken from README.md, its relative
 * imports pointed at this checkout, and run beside a market maker for two
 * simulated minutes. A README edit that breaks the example fails here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { marketMaker } from "../agents/market-maker.ts";
import type { AgentDefinition } from "../src/sim/agent.ts";
import { runScenario } from "../src/sim/runner.ts";
import { defineScenario } from "../src/sim/scenario.ts";
import { CALM_FEEDS } from "./agents/helpers.ts";

const ROOT = resolve(import.meta.dirname, "..");

/** The README's agent example, with `../src/` and `./lib/` imports made absolute. */
function readmeAgentSource(): { source: string; exportName: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const examples = blocks.filter((block) => block.includes("defineAgent("));
  expect(examples, "README.md has one ```ts block that defines an agent").toHaveLength(1);
  const example = examples[0]!;
  const exportName = /export const (\w+) = defineAgent\(/.exec(example)?.[1];
  expect(exportName, "the example exports its agent as `export const NAME = defineAgent(`").toBeDefined();
  const source = example
    .replaceAll('from "../src/', `from "${pathToFileURL(join(ROOT, "src")).href}/`)
    .replaceAll('from "./lib/', `from "${pathToFileURL(join(ROOT, "agents", "lib")).href}/`);
  return { source, exportName: exportName! };
}

const dir = mkdtempSync(join(tmpdir(), "shadowbook-readme-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's example agent", () => {
  it("runs as printed: it buys through the oracle every ten seconds and its answers are counted", async () => {
    const { source, exportName } = readmeAgentSource();
    const file = join(dir, "readme-agent.ts");
    writeFileSync(file, source);
    const module = (await import(pathToFileURL(file).href)) as Record<string, AgentDefinition>;
    const agent = module[exportName]!;
    expect(agent.kind).toBeTypeOf("string");

    const scenario = defineScenario({
      name: "readme-agent",
      description: "",
      seed: 5,
      durationSeconds: 120,
      prices: CALM_FEEDS,
      agents: [
        { name: "mm", agent: marketMaker, params: { symbol: "ETHRUSDPERP", levelNotional: 20_000 }, account: { rateTier: 3, deposits: { rUSD: "1000000" } } },
        { name: "example", agent, params: {}, account: { deposits: { rUSD: "10000" } } },
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
