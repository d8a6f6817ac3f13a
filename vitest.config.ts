import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/helpers/longest-first-sequencer.ts";

const TEST_FILE = /\.test\.ts$/;

/**
 * Test files that replace a module for the whole file (`vi.mock`, `vi.doMock`,
 * e.g. a planted bug in src/risk/margin.ts, or node:fs): these run isolated, with
 * modules of their own. Found by reading the files, so a new one is never
 * forgotten.
 */
function filesThatMock(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => TEST_FILE.test(path) && !path.startsWith("bench"))
    .filter((path) => /\bvi\.(mock|doMock|unmock|doUnmock)\(/.test(readFileSync(join(dir, path), "utf8")))
    .map((path) => `test/${path.split("\\").join("/")}`);
}

const mocking = filesThatMock("test");

export default defineConfig({
  test: {
    exclude: ["test/bench/**", "node_modules/**"],
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on these 2-core machines, so the suite ran serially
    // at ~1.2 cores. Two workers use both (the servers and CLI children the tests start share them too).
    maxWorkers: 2,
    // The longest files first (test/helpers/longest-first-sequencer.ts): a fresh clone has no cached durations.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files in one worker share their modules (below): stubbed globals and environment variables are undone before
    // every test, so that one a test forgets cannot reach the next file. Spies are not (restoreMocks would undo the
    // console.log spies that test/cli's files set up once in beforeAll): those files restore them in afterAll.
    unstubGlobals: true,
    unstubEnvs: true,
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: ["test/bench/**", "node_modules/**", ...mocking],
          // Files in one worker share their modules instead of importing the whole graph again for each file
          // (measured 2026-11-28: imports 195 s of worker time over the suite isolated, 28 s shared). So a test
          // must not depend on module state another file may have moved: caches and counters kept by a module
          // (the known signers' tables, id counters) are read for what this test put there, not as totals.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "isolated", include: mocking, isolate: true },
      },
    ],
  },
});
