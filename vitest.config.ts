import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/helpers/longest-first-sequencer.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bench/**", "node_modules/**"],
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on these 2-core machines, so the suite ran serially
    // at ~1.2 cores. Two workers use both (the servers and CLI children the tests start share them too).
    maxWorkers: 2,
    // The longest files first (test/helpers/longest-first-sequencer.ts): a fresh clone has no cached durations.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
