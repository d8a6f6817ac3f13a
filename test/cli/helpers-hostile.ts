/**
 * A batch runner of the real `shadowbook` command, for
 * test/cli/hostile-inputs.test.ts.
 *
 * Starting the command costs 1-2 s of CPU per process (tsx compiles the CLI
 * and everything it imports), which would make a couple of hundred hostile
 * inputs take minutes on a 2-core machine. src/cli/main.ts exports no entry
 * function (it parses process.argv when it is imported), so this runs it as
 * bin/shadowbook.mjs does, once per case, in ONE child process (node with
 * tsx's loader): it sets process.argv, imports main.ts again under a fresh
 * query string (a new module instance, so a new commander program, while
 * everything main.ts imports stays loaded) and waits until that program's
 * parseAsync has settled. What a process of its own would have shown is
 * captured:
 *
 *  - stdout and stderr (every write: console.log/error and commander's own);
 *  - the exit status: the first process.exit(code), else process.exitCode,
 *    else 0. process.exit records the code and throws a sentinel, so nothing
 *    after it runs, as after a real exit;
 *  - an unhandled rejection or uncaught exception (which would end a real
 *    process with its stack on stderr and status 1): appended to stderr as
 *    Node prints it, stack included, and the status set to 1.
 *
 * A case that does not settle in time (`timeoutMs`, counted in this, the
 * parent, process, so it also catches a case that blocks the child's event
 * loop) is a hang: the child is killed, the case is reported `hung`, and a
 * fresh child runs the cases after it. Before the first case each child
 * loads the CLI once (`shadowbook --help`), so no case pays for loading.
 *
 * Cases run one after the other, in order, so a case may use a file an
 * earlier case wrote.
 *
 * What this cannot see (a handle left open that would keep a real process
 * from exiting after a refusal, signals) is for real processes: the test
 * file runs some cases both ways and compares.
 *
 * This module is both the child (when run: `node --import tsx
 * helpers-hostile.ts <cases.json>`, results as JSON lines on fd 3) and,
 * imported, the parent: `runBatch`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = pathToFileURL(join(ROOT, "src/cli/main.ts")).href;
const BIN = join(ROOT, "bin/shadowbook.mjs");
const SELF = fileURLToPath(import.meta.url);

export interface BatchCase {
  /** Unique name of the case. */
  readonly id: string;
  /** Arguments after `shadowbook`. */
  readonly args: readonly string[];
  /** A case that has not settled after this long is a hang (default 5 s). */
  readonly timeoutMs?: number;
}

export interface Outcome {
  readonly id: string;
  readonly args: readonly string[];
  /** The exit status (null when it hung and was killed). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly hung: boolean;
  readonly wallMs: number;
}

type Message = { readonly ready: true } | { readonly start: string } | { readonly result: Outcome };

/** Time a child may take to load the CLI before its first case. */
const LOAD_TIMEOUT_MS = 90_000;

/** Runs the cases in order, in as few child processes as hangs allow; their outcomes by id. */
export async function runBatch(cases: readonly BatchCase[]): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const dir = mkdtempSync(join(tmpdir(), "shadowbook-batch-"));
  try {
    let remaining = [...cases];
    while (remaining.length > 0) {
      await runChild(remaining, dir, outcomes);
      remaining = remaining.filter((batchCase) => !outcomes.has(batchCase.id));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return outcomes;
}

/** One child over `cases` until they are done or one hangs (recorded as hung). */
async function runChild(cases: readonly BatchCase[], dir: string, outcomes: Map<string, Outcome>): Promise<void> {
  const casesFile = join(dir, `cases-${outcomes.size}.json`);
  writeFileSync(casesFile, JSON.stringify(cases));
  const child = spawn(process.execPath, ["--import", "tsx", SELF, casesFile], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  let current: { batchCase: BatchCase; startedAt: number } | undefined;
  let loadDeadline = Date.now() + LOAD_TIMEOUT_MS;
  let killedFor: string | undefined;
  let buffered = "";
  (child.stdio[3] as Readable).setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline)) as Message;
      buffered = buffered.slice(newline + 1);
      if ("ready" in message) loadDeadline = Number.POSITIVE_INFINITY;
      if ("start" in message) current = { batchCase: cases.find((batchCase) => batchCase.id === message.start)!, startedAt: Date.now() };
      if ("result" in message) {
        outcomes.set(message.result.id, message.result);
        current = undefined;
      }
    }
  });
  const watchdog = setInterval(() => {
    const now = Date.now();
    if (current !== undefined && now - current.startedAt > (current.batchCase.timeoutMs ?? 5_000)) {
      killedFor = current.batchCase.id;
      outcomes.set(current.batchCase.id, { id: current.batchCase.id, args: current.batchCase.args, status: null, stdout: "", stderr: "", hung: true, wallMs: now - current.startedAt });
      current = undefined;
      child.kill("SIGKILL");
    } else if (now > loadDeadline) {
      killedFor = "(loading)";
      child.kill("SIGKILL");
    }
  }, 50);
  const status = await new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  clearInterval(watchdog);
  if (killedFor === undefined && current !== undefined) {
    // The child died in a case (what a real process would also have done): its status and what the child printed.
    const { batchCase, startedAt } = current;
    outcomes.set(batchCase.id, { id: batchCase.id, args: batchCase.args, status: status ?? 1, stdout: "", stderr: `the process died: ${output}`, hung: false, wallMs: Date.now() - startedAt });
    return;
  }
  if (killedFor === "(loading)" || (killedFor === undefined && status !== 0)) {
    throw new Error(`the batch runner ended (${status}${killedFor === undefined ? "" : `, killed while ${killedFor}`}): ${output.slice(0, 4_000)}`);
  }
}

// -- the child ----------------------------------------------------------------------------

class ExitSentinel extends Error {
  constructor(readonly code: number) {
    super(`__shadowbook_batch_exit_${code}__`);
  }
}

async function child(casesFile: string): Promise<void> {
  const cases = JSON.parse(readFileSync(casesFile, "utf8")) as BatchCase[];
  const report = (message: Message) => writeSync(3, `${JSON.stringify(message)}\n`);
  const { Command } = await import("commander");
  const realExit = process.exit.bind(process);
  let stdout = "";
  let stderr = "";
  let exitCode: number | undefined;
  let onExit: (() => void) | undefined;
  let parsing: Promise<unknown> | undefined;

  const capture = (target: "out" | "err") =>
    function (chunk: unknown, ...rest: unknown[]): boolean {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
      if (exitCode === undefined) {
        if (target === "out") stdout += text;
        else stderr += text;
      }
      const callback = rest.find((value) => typeof value === "function") as (() => void) | undefined;
      callback?.();
      return true;
    };
  process.stdout.write = capture("out") as typeof process.stdout.write;
  process.stderr.write = capture("err") as typeof process.stderr.write;
  (process as { exit: (code?: number) => never }).exit = (code?: number): never => {
    if (exitCode === undefined) {
      exitCode = code ?? (typeof process.exitCode === "number" ? process.exitCode : 0);
      onExit?.();
    }
    throw new ExitSentinel(exitCode);
  };
  const unexpected = (kind: string) => (reason: unknown) => {
    if (reason instanceof ExitSentinel || exitCode !== undefined) return;
    stderr += `${kind}: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`;
    exitCode = 1;
    onExit?.();
  };
  process.on("unhandledRejection", unexpected("unhandled rejection (a real process ends here, status 1)"));
  process.on("uncaughtException", unexpected("uncaught exception (a real process ends here, status 1)"));
  const parseAsync = Command.prototype.parseAsync;
  Command.prototype.parseAsync = function (this: InstanceType<typeof Command>, ...args: Parameters<typeof parseAsync>) {
    const promise = parseAsync.apply(this, args);
    parsing ??= promise;
    return promise;
  };

  /** One invocation of the command with `args`: what it printed and its status. */
  async function invoke(tag: string, args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
    stdout = "";
    stderr = "";
    exitCode = undefined;
    parsing = undefined;
    process.exitCode = undefined;
    process.argv = [process.execPath, BIN, ...args];
    const exited = new Promise<void>((done) => (onExit = done));
    try {
      await Promise.race([import(`${MAIN}?hostile=${tag}`), exited]);
    } catch (error) {
      unexpected("import failed")(error);
    }
    // Set by the patched parseAsync during the import (TypeScript cannot see that assignment).
    const pending = parsing as Promise<unknown> | undefined;
    await Promise.race([pending?.then(ignore, ignore) ?? Promise.resolve(), exited]);
    // main.ts's .catch (print the message, exit 1) runs in the next microtasks; let it, and what it writes, finish.
    for (let turn = 0; turn < 3 && exitCode === undefined; turn++) await new Promise<void>((done) => setImmediate(done));
    const status = exitCode ?? (typeof process.exitCode === "number" ? process.exitCode : 0);
    exitCode ??= status; // nothing written after the case ends counts for the next one
    return { status, stdout, stderr };
  }

  await invoke("load", ["--help"]);
  report({ ready: true });
  for (const [index, batchCase] of cases.entries()) {
    report({ start: batchCase.id });
    const started = performance.now();
    const ran = await invoke(String(index), batchCase.args);
    report({ result: { id: batchCase.id, args: batchCase.args, ...ran, hung: false, wallMs: Math.round(performance.now() - started) } });
  }
  realExit(0);
}

function ignore(): void {}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === SELF) {
  const casesFile = process.argv[2];
  if (casesFile === undefined) throw new Error("usage: node --import tsx helpers-hostile.ts <cases.json>");
  await child(casesFile);
}
