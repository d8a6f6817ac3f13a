/**
 * Fuzz throughput: one-minute seeds of the fuzz fixture on 1 and on 2
 * workers, invariants on. Prints one JSON line: seeds per second (wall),
 * and seeds per CPU second (all threads of the process, so that a busy
 * machine can be told apart from a slow fuzzer), events per seed.
 *
 *   npx tsx test/sim/fuzz-throughput.ts [seeds=100] [workers=1,2] [scenario] [invariantEveryBlocks=1]
 */
import { fuzzScenario } from "../../src/sim/fuzz.ts";

const count = Number(process.argv[2] ?? 100);
const workerCounts = (process.argv[3] ?? "1,2").split(",").map(Number);
const scenarioPath = process.argv[4] ?? "test/sim/fixtures/fuzz-scenario.ts";
const invariantEveryBlocks = Number(process.argv[5] ?? 1);
const seeds = Array.from({ length: count }, (_, index) => index + 1);
const figures: Record<string, unknown> = { scenario: scenarioPath, seeds: count, durationSeconds: 60, invariantEveryBlocks, cpus: (await import("node:os")).availableParallelism() };
const fingerprints: string[][] = [];
for (const workers of workerCounts) {
  const cpuBefore = process.cpuUsage();
  const report = await fuzzScenario({ scenarioPath, seeds, workers, durationSeconds: 60, invariantEveryBlocks });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  fingerprints.push(report.results.map((result) => result.fingerprint ?? ""));
  figures[`workers${workers}`] = {
    wallSeconds: Number(report.wallSeconds.toFixed(2)),
    seedsPerSecond: Number(report.seedsPerSecond.toFixed(3)),
    cpuSeconds: Number(cpuSeconds.toFixed(2)),
    seedsPerCpuSecond: Number((count / cpuSeconds).toFixed(3)),
    eventsPerSeed: Math.round(report.events / count),
    failures: report.failures.length,
  };
}
figures["identical"] = fingerprints.every((list) => JSON.stringify(list) === JSON.stringify(fingerprints[0]));
figures["loadAverage1m"] = Number((await import("node:os")).loadavg()[0]!.toFixed(2));
console.log(JSON.stringify(figures));
