/**
 * The notebook runner itself (scripts/run-notebook.ts): cells run in order in
 * one scope, imports are hoisted, `await` works at a cell's top, and a
 * failing cell is named by its number.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { notebookProgram, runNotebook } from "../../scripts/run-notebook.ts";

const ROOT = join(import.meta.dirname, "..", "..");

function notebook(cells: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "sb-notebook-"));
  const path = join(dir, "t.ipynb");
  writeFileSync(path, JSON.stringify({ cells: [{ cell_type: "markdown", source: ["# title"] }, ...cells.map((source) => ({ cell_type: "code", source: source.split(/(?<=\n)/) }))], nbformat: 4 }));
  return path;
}

describe("run-notebook", () => {
  it("runs as a command when reached through a symbolic link too (it prints its usage without a notebook)", () => {
    const link = join(mkdtempSync(join(tmpdir(), "sb-notebook-link-")), "scripts");
    symlinkSync(join(ROOT, "scripts"), link);
    const ran = spawnSync(process.execPath, ["--import", "tsx", join(link, "run-notebook.ts")], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(ran.stderr + ran.stdout).toContain("usage: npx tsx scripts/run-notebook.ts");
  }, 60_000);

  it("hoists imports and keeps every cell's body in order", () => {
    const program = notebookProgram(['import { join } from "node:path";\nconst a = 1;', "const b = a + 1;"]);
    const importAt = program.indexOf('import { join } from "node:path";');
    expect(importAt).toBeGreaterThan(-1);
    expect(importAt).toBeLessThan(program.indexOf("(async () => {"));
    expect(program.indexOf("const a = 1;")).toBeLessThan(program.indexOf("const b = a + 1;"));
  });

  it("runs cells in one scope with top-level await", () => {
    const path = notebook([
      'import { basename } from "node:path";\nconst values: number[] = [1, 2, 3];',
      "const total = await Promise.resolve(values.reduce((sum, value) => sum + value, 0));",
      "console.log(`total ${total} in ${basename(process.cwd()).startsWith(\"sb-notebook-\")}`);",
    ]);
    const result = runNotebook(path, { timeoutMs: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe("total 6 in true");
  });

  it("names the failing cell and exits 1", () => {
    const path = notebook(["const ok = 1;", 'if (ok === 1) throw new Error("boom in two");', 'console.log("never");']);
    const result = runNotebook(path, { timeoutMs: 60_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("notebook cell 2 failed");
    expect(result.stderr).toContain("boom in two");
    expect(result.stdout).not.toContain("never");
  });
});
