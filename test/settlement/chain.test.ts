import { describe, expect, it } from "vitest";
import { RngRoot } from "../../src/core/rng.ts";
import { Chain, type BlockInfo, type BustReason } from "../../src/settlement/chain.ts";
import { Simulation } from "../../src/sim/kernel.ts";

const MS = 1000;

function setup(config: ConstructorParameters<typeof Chain<number>>[3] = {}, invalid = new Set<number>()) {
  const sim = new Simulation({ startMicros: 0 });
  const log: string[] = [];
  const blocks: BlockInfo[] = [];
  const chain = new Chain<number>(sim, new RngRoot(1).stream("chain"), {
    validate: (match) => (invalid.has(match) ? { reasonName: "AccountBelowIM", accountId: match, delta: "-1", shortfall: "1" } : undefined),
    settle: (match, at) => log.push(`settle ${match}@${at / MS}`),
    bust: (match, reason: BustReason, at) => log.push(`bust ${match} ${reason.reasonName}@${at / MS}`),
    afterBlock: (block) => blocks.push(block),
  }, config);
  chain.start();
  return { sim, chain, log, blocks };
}

describe("Chain", () => {
  it("settles each match in the first block after it, in the order made, and busts invalid ones", () => {
    const { sim, chain, log, blocks } = setup({}, new Set([2]));
    sim.schedule(10 * MS, () => { chain.submit(1); chain.submit(2); });
    sim.schedule(150 * MS, () => chain.submit(3));
    sim.run({ untilMicros: 300 * MS });
    expect(log).toEqual(["settle 1@100", "bust 2 AccountBelowIM@100", "settle 3@200"]);
    expect(blocks.map((b) => [b.number, b.timeMicros / MS, b.settled, b.busted])).toEqual([[1, 100, 1, 1], [2, 200, 1, 0], [3, 300, 0, 0]]);
    expect(chain.pendingCount).toBe(0);
  });

  it("holds a match until its settlement latency has passed", () => {
    const { sim, chain, log } = setup({ settlementLatencyMinMicros: 150 * MS, settlementLatencyMaxMicros: 150 * MS });
    sim.schedule(10 * MS, () => chain.submit(1));
    sim.run({ untilMicros: 250 * MS });
    expect(log).toEqual(["settle 1@200"]);
  });

  it("busts the next N matches on request, and by probability, deterministically per seed", () => {
    const { sim, chain, log } = setup();
    chain.bustNext(2, { reasonName: "MarketPaused", marketId: 1 });
    sim.schedule(10 * MS, () => [1, 2, 3].forEach((m) => chain.submit(m)));
    sim.run({ untilMicros: 100 * MS });
    expect(log).toEqual(["bust 1 MarketPaused@100", "bust 2 MarketPaused@100", "settle 3@100"]);

    const outcomes = (seedRun: () => ReturnType<typeof setup>) => {
      const run = seedRun();
      run.sim.schedule(10 * MS, () => { for (let m = 0; m < 1000; m++) run.chain.submit(m); });
      run.sim.run({ untilMicros: 100 * MS });
      return run.log;
    };
    const a = outcomes(() => setup({ bustProbability: 0.1 }));
    const b = outcomes(() => setup({ bustProbability: 0.1 }));
    expect(a).toEqual(b);
    const bustCount = a.filter((line) => line.startsWith("bust")).length;
    expect(bustCount).toBeGreaterThan(60);
    expect(bustCount).toBeLessThan(140);
  });

  it("produces no block during a delay window, then settles the backlog in one", () => {
    const { sim, chain, log, blocks } = setup();
    chain.delayBlocksUntil(450 * MS);
    sim.schedule(10 * MS, () => chain.submit(1));
    sim.schedule(220 * MS, () => chain.submit(2));
    sim.run({ untilMicros: 500 * MS });
    expect(log).toEqual(["settle 1@450", "settle 2@450"]);
    expect(blocks.map((b) => b.timeMicros / MS)).toEqual([450]);
  });

  it("jitters block times within the configured bound", () => {
    const { sim, blocks } = setup({ blockJitterMicros: 20 * MS });
    sim.run({ untilMicros: 2_000 * MS });
    const gaps = blocks.slice(1).map((b, i) => b.timeMicros - blocks[i]!.timeMicros);
    expect(gaps.every((gap) => gap >= 100 * MS && gap < 120 * MS)).toBe(true);
    expect(new Set(gaps).size).toBeGreaterThan(1);
  });

  it("refuses inconsistent configuration", () => {
    expect(() => setup({ blockIntervalMicros: 0 })).toThrow(/blockIntervalMicros/);
    expect(() => setup({ settlementLatencyMinMicros: 5, settlementLatencyMaxMicros: 1 })).toThrow(/settlementLatencyMaxMicros/);
  });
});
