import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bench/**", "node_modules/**"],
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on these 2-core machines, so the suite ran serially
    // at ~1.2 cores. Two workers use both (the servers and CLI children the tests start share them too).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
