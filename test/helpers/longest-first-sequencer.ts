/**
 * The order vitest starts test files in: the longest first, so that the two
 * workers finish together instead of one running a long file alone at the
 * end. Vitest does this by itself from its cache of earlier durations
 * (node_modules/.vite), but a fresh clone (CI) has no cache and runs the
 * files in glob order: the one-hour exchange scenario (~50-100 s) then
 * started last and ran alone for its whole length (measured 2026-11-28:
 * started at 368 s of a 466 s run, the other worker idle from 432 s).
 *
 * LONGEST: the longest files of a full run, longest first (refresh from
 * `npx vitest run --reporter=json --outputFile=F`, by endTime - startTime,
 * when the slow files change). Files with cached durations keep vitest's
 * own order after these.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const LONGEST: readonly string[] = [
  "test/exchange/exchange-scenario.test.ts",
  "test/conformance/hostile-clients.test.ts",
  "test/notebooks/notebooks.test.ts",
  "test/record/arrow-files.test.ts",
  "test/conformance/record-replay.test.ts",
  "test/engine/properties.test.ts",
  "test/sim/default-determinism.test.ts",
  "test/signing/equivalence.test.ts",
  "test/sim/fuzz.test.ts",
  "test/cli/serve-signals.test.ts",
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return at < 0 ? LONGEST.length : at;
    };
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
