/**
 * Every notebook in notebooks/ runs: its code cells in order, headless, as
 * the tslab kernel would run them (scripts/run-notebook.ts), against the
 * sample data and short runs they make themselves. A notebook that no
 * longer matches the code fails here, naming its cell. The notebooks run at
 * the same time, each in its own process (they write to different runs/
 * folders), rather than one after the other.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeCells, runNotebookAsync } from "../../scripts/run-notebook.ts";

const NOTEBOOKS = join(import.meta.dirname, "..", "..", "notebooks");
const notebooks = readdirSync(NOTEBOOKS).filter((name) => name.endsWith(".ipynb")).sort();

describe("notebooks", () => {
  it("there are notebooks, each with code", () => {
    expect(notebooks.length).toBeGreaterThanOrEqual(2);
    for (const name of notebooks) expect(codeCells(join(NOTEBOOKS, name)).length, name).toBeGreaterThan(2);
  });

  for (const name of notebooks) {
    it.concurrent(`${name}: every code cell runs`, { timeout: 240_000 }, async ({ expect }) => {
      const result = await runNotebookAsync(join(NOTEBOOKS, name), { timeoutMs: 230_000 });
      expect(result.stderr, result.stderr).not.toMatch(/notebook cell \d+ failed/);
      expect(result.status, result.stderr).toBe(0);
      // Every notebook prints what it found; an empty output means its cells did nothing.
      expect(result.stdout.length).toBeGreaterThan(200);
    });
  }
});
