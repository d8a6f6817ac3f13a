/**
 * What the determinism check (test/determinism.test.ts) forbids in the
 * deterministic core, and the scan itself: in a module of its own, so that
 * other tests can hold the list to what it must catch without importing a
 * test file (test/determinism-machines.test.ts does).
 *
 * The list is of what makes a run differ between machines or between runs:
 * clocks, unseeded randomness, timers, the garbage collector's timing, the
 * process's environment (variables, arguments, platform, working
 * directory), the machine (node:os), locale and ICU data, error stacks
 * (this machine's file paths), and I/O.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** An import of one of `modules` (with or without "node:"): static, side-effect only, dynamic, or require. */
function importOf(modules: string): RegExp {
  return new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\bimport\\s+|\\brequire\\s*\\(\\s*)["'](?:node:)?(?:${modules})["']`);
}

export const FORBIDDEN: readonly { name: string; pattern: RegExp }[] = [
  { name: "Date", pattern: /\bDate\b/ },
  { name: "Math.random", pattern: /\bMath\.random\b/ },
  { name: "setTimeout", pattern: /\bsetTimeout\b/ },
  { name: "setInterval", pattern: /\bsetInterval\b/ },
  { name: "setImmediate", pattern: /\bsetImmediate\b/ },
  // Any member, not only now(): timeOrigin, mark and measure read the clock too.
  { name: "performance (clock)", pattern: /\bperformance\s*\./ },
  { name: "process.hrtime", pattern: /\bprocess\s*\.\s*hrtime\b/ },
  // The environment (process.env), arguments, platform, working directory, pid, uptime, memory: none is an input of a run.
  { name: "process (environment, arguments, platform)", pattern: /\bprocess\s*(?:\.|\[)/ },
  // Node 21+: navigator.language follows the locale, hardwareConcurrency the machine.
  { name: "navigator", pattern: /\bnavigator\b/ },
  { name: "crypto.randomUUID", pattern: /\brandomUUID\b/ },
  { name: "crypto.randomBytes", pattern: /\brandomBytes\b/ },
  { name: "crypto.randomInt", pattern: /\brandomInt\b/ },
  { name: "crypto.randomFill", pattern: /\brandomFill(Sync)?\b/ },
  { name: "crypto.getRandomValues", pattern: /\bgetRandomValues\b/ },
  { name: "random keys (generateKey*, Web Crypto)", pattern: /\bgenerateKey(Pair)?(Sync)?\b|\bwebcrypto\b|\bsubtle\b/ },
  // What the garbage collector has collected, and when, differs between runs.
  { name: "WeakRef / FinalizationRegistry", pattern: /\b(WeakRef|FinalizationRegistry)\b/ },
  // Locale and ICU data (even with an explicit locale, output may change with Node's ICU version): formatting belongs in drivers.
  // toLocaleUpperCase/toLocaleLowerCase too: case rules are the locale's ("i" is "İ" in tr) and ICU's, and without a
  // locale the language lets an engine use the host's (Node 20 happens to use the root rules: nothing to rely on).
  { name: "locale formatting or case mapping (toLocale*)", pattern: /\btoLocale\w*\b/ },
  { name: "Intl", pattern: /\bIntl\b/ },
  { name: "localeCompare", pattern: /\blocaleCompare\b/ },
  // A stack names this machine's file paths.
  { name: "error stacks", pattern: /\.stack\b|\bcaptureStackTrace\b/ },
  { name: "import of fs", pattern: importOf("fs|fs/promises") },
  { name: "import of net", pattern: importOf("net") },
  { name: "import of http", pattern: importOf("https?|http2") },
  { name: "import of worker_threads", pattern: importOf("worker_threads") },
  { name: "import of os, process, child_process, perf_hooks, v8 or another machine or I/O module", pattern: importOf("os|process|child_process|perf_hooks|v8|cluster|dgram|dns|dns/promises|tls|readline|inspector|timers|timers/promises") },
];

/** Source text without comments, so a doc comment may name what it avoids. */
export function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Each forbidden use in `files` (absolute paths), as "path:line uses name: line", paths relative to `root`. */
export function findViolations(files: readonly string[], root: string): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const lines = code(readFileSync(file, "utf8")).split("\n");
    lines.forEach((line, index) => {
      for (const { name, pattern } of FORBIDDEN) {
        if (pattern.test(line)) violations.push(`${relative(root, file)}:${index + 1} uses ${name}: ${line.trim()}`);
      }
    });
  }
  return violations;
}

/** The names of the rules that `source` (a snippet of code) breaks. */
export function rulesBroken(source: string): string[] {
  const text = code(source);
  return FORBIDDEN.filter(({ pattern }) => pattern.test(text)).map(({ name }) => name);
}
