/**
 * `shadowbook serve` in a child process, for the tests that need a real
 * process (signals, SIGKILL, the command's flags and banner): started,
 * then read until it has printed its URLs (and, with `--record`, its
 * recording line), which is when it listens.
 *
 * `via`: "bin" runs bin/shadowbook.mjs (the command users run); "tsx" runs
 * node with tsx's loader on src/cli/main.ts. Either way the server is the
 * child process itself, so a signal sent to the child reaches the server.
 * "npm" runs `npm run serve -- ...`: the child is npm, the server its child
 * (what the README's `npm run serve` is). "npx" runs `npm exec --yes --
 * shadowbook serve ...` (what `npx shadowbook serve` is): the child is npm,
 * the server the child of a `sh -c` that npm starts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** http://HOST:PORT (no /v2). */
  readonly origin: string;
  /** http://HOST:PORT/v2, as printed. */
  readonly rest: string;
  readonly stream: string;
  readonly exec: string;
  /** Everything printed on stdout by the time it listened. */
  readonly banner: string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stdout and stderr so far. */
  output(): string;
}

export interface ServeProcessOptions {
  /** Arguments after `serve`. */
  readonly args: readonly string[];
  readonly via?: "bin" | "tsx" | "npm" | "npx";
  /** Added to the environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** A process group of its own (to kill whatever it leaves behind with `process.kill(-pid)`). */
  readonly detached?: boolean;
  readonly readyTimeoutMs?: number;
}

export async function spawnServe(options: ServeProcessOptions): Promise<ServeProcess> {
  const [command, args] =
    options.via === "npm"
      ? ["npm", ["run", "--silent", "serve", "--", ...options.args]]
      : options.via === "npx"
        ? ["npm", ["exec", "--yes", "--", "shadowbook", "serve", ...options.args]]
        : [process.execPath, [...(options.via === "tsx" ? ["--import", "tsx", join(ROOT, "src/cli/main.ts")] : [join(ROOT, "bin/shadowbook.mjs")]), "serve", ...options.args]];
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
    detached: options.detached === true,
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once("exit", (code, signal) => done({ code, signal })));
  const lastLine = options.args.includes("--record") ? "recording to" : "order entry";
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`serve ${options.args.join(" ")} did not listen within ${timeoutMs} ms: ${out}${err}`));
    }, timeoutMs);
    child.stdout!.on("data", () => {
      const at = out.indexOf(lastLine);
      if (at < 0 || !out.slice(at).includes("\n")) return;
      clearTimeout(timer);
      ready();
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`serve ${options.args.join(" ")} exited (${code ?? signal}) before listening: ${err}`));
    });
  });
  const rest = /REST\s+(http:\/\/\S+)\n/.exec(out)?.[1];
  const stream = /streaming\s+(ws:\/\/\S+)\n/.exec(out)?.[1];
  const exec = /order entry\s+(ws:\/\/\S+)\n/.exec(out)?.[1];
  if (rest === undefined || stream === undefined || exec === undefined) throw new Error(`no URLs in: ${out}`);
  const url = new URL(rest);
  return { child, port: Number(url.port), origin: url.origin, rest, stream, exec, banner: out, exited, output: () => out + err };
}
