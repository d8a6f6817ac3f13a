/**
 * `shadowbook replay <log> --clock M`, `--port N` or `--host H` without
 * `--serve`: the flags only apply to serving, so the command refuses them
 * (it used to replay and ignore them, as commander gave them defaults and
 * the command could not tell a given flag from a default). Through the real
 * CLI (src/cli/main.ts, as bin/shadowbook.mjs runs it; the batch runner of
 * helpers-hostile.ts, plus one real process): one line on stderr naming the
 * flag and the rule, exit status 1, nothing replayed and nothing written.
 * With `--serve` all three are still taken, and their defaults (manual,
 * 8080, 127.0.0.1) still apply: the address cases stop at the bind probe,
 * whose refusal shows the address it tried; the clock cases serve on a free
 * port and say which clock runs. `--help` still gives the defaults.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { DEFAULT_START_MS } from "../../src/sim/scenario.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { runBatch, type BatchCase, type Outcome } from "./helpers-hostile.ts";
import { shadowbook, type Ran } from "./shadowbook-process.ts";

const DIR = mkdtempSync(join(tmpdir(), "shadowbook-replay-flags-"));
/** The state files of the cases that serve (kept out of DIR, whose listing is checked). */
const SERVED = mkdtempSync(join(tmpdir(), "shadowbook-replay-flags-served-"));
const LOG = join(DIR, "inputs.arrow");
const UNTIL = String(DEFAULT_START_MS + 1_000);
const state = (name: string) => join(DIR, `${name}.json`);

let busy: Server;
let busyPort: number;
/** Holds 127.0.0.1:8080 (or finds it held by another process): `--serve` without --port must then be refused for it. */
let held8080: Server | undefined;
let outcomes: Map<string, Outcome>;
let real: Ran;

function listen(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done(server));
  });
}

const CASES = {
  portWithoutServe: ["replay", LOG, "--port", "9000", "--until", UNTIL, "--state-out", state("port")],
  hostWithoutServe: ["replay", LOG, "--host", "127.0.0.1", "--until", UNTIL, "--state-out", state("host")],
  bothWithoutServe: ["replay", LOG, "--host", "0.0.0.0", "--port", "0", "--state-out", state("both")],
  portZeroWithoutServe: ["replay", LOG, "--port", "0"],
  clockWithoutServe: ["replay", LOG, "--clock", "wall", "--until", UNTIL, "--state-out", state("clock")],
  // The value commander used to give it by default.
  clockManualWithoutServe: ["replay", LOG, "--clock", "manual", "--until", UNTIL, "--state-out", state("clock-manual")],
  // Not a clock at all: still "only with --serve" (the flag is the first thing wrong).
  clockBadWithoutServe: ["replay", LOG, "--clock", "sundial", "--state-out", state("clock-bad")],
  clockAndPortWithoutServe: ["replay", LOG, "--port", "0", "--clock", "wall", "--state-out", state("clock-port")],
  // The control: the same command without the flags replays and writes its state.
  withoutFlags: ["replay", LOG, "--until", UNTIL, "--state-out", state("control")],
  help: ["replay", "--help"],
} as const;

/** Cases built once the busy port is known. */
const serveCases = (): Record<string, readonly string[]> => ({
  serveBusyPort: ["replay", LOG, "--serve", "--port", String(busyPort), "--state-out", state("serve-port")],
  serveBadHost: ["replay", LOG, "--serve", "--port", "0", "--host", "not a host", "--state-out", state("serve-host")],
  serveHostAndBusyPort: ["replay", LOG, "--serve", "--host", "127.0.0.1", "--port", String(busyPort), "--state-out", state("serve-both")],
  serveDefaults: ["replay", LOG, "--serve", "--state-out", state("serve-defaults")],
  serveBadClock: ["replay", LOG, "--serve", "--clock", "sundial", "--port", "0", "--state-out", state("serve-clock-bad")],
  // Last: these serve (on a free port) until the batch's child exits.
  serveClockDefault: ["replay", LOG, "--serve", "--port", "0", "--state-out", join(SERVED, "clock-default.json")],
  serveClockWall: ["replay", LOG, "--serve", "--port", "0", "--clock", "wall", "--state-out", join(SERVED, "clock-wall.json")],
});

beforeAll(async () => {
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 2, observers: [recorder] });
  recorder.write(LOG);
  busy = await listen(0);
  busyPort = (busy.address() as { port: number }).port;
  try {
    held8080 = await listen(8080);
  } catch (error) {
    // Another process has it: as good (it is in use either way).
    expect((error as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
  }
  const cases: BatchCase[] = Object.entries({ ...CASES, ...serveCases() }).map(([id, args]) => ({ id, args, timeoutMs: 30_000 }));
  [outcomes, real] = await Promise.all([runBatch(cases), shadowbook(CASES.portWithoutServe)]);
}, 180_000);

afterAll(() => {
  busy?.close();
  held8080?.close();
  rmSync(DIR, { recursive: true, force: true });
  rmSync(SERVED, { recursive: true, force: true });
});

function outcome(id: string): Outcome {
  const ran = outcomes.get(id);
  expect(ran, `case ${id} did not run`).toBeDefined();
  expect(ran!.hung, `case ${id} hung`).toBe(false);
  return ran!;
}

/** Refused with exactly `line` on stderr, nothing on stdout (nothing replayed), and no state file. */
function expectRefused(ran: { status: number | null; stdout: string; stderr: string }, line: string, statePath?: string): void {
  expect(ran.status).toBe(1);
  expect(ran.stderr).toBe(`${line}\n`);
  expect(ran.stdout).toBe("");
  if (statePath !== undefined) expect(existsSync(statePath)).toBe(false);
}

describe("replay refuses --clock, --port and --host without --serve", () => {
  it("--port: one line naming the flag and the rule, status 1, nothing replayed or written", () => {
    expectRefused(outcome("portWithoutServe"), '--port "9000" only applies with --serve', state("port"));
  });

  it("--port, as a real process sees it", () => {
    expectRefused(real, '--port "9000" only applies with --serve', state("port"));
  });

  it("--port 0 (a value that is also valid) alone", () => {
    expectRefused(outcome("portZeroWithoutServe"), '--port "0" only applies with --serve');
  });

  it("--host: the same, even for the default address", () => {
    expectRefused(outcome("hostWithoutServe"), '--host "127.0.0.1" only applies with --serve', state("host"));
  });

  it("both: --port is named first", () => {
    expectRefused(outcome("bothWithoutServe"), '--port "0" only applies with --serve', state("both"));
  });

  it("--clock: the same, named and quoted", () => {
    expectRefused(outcome("clockWithoutServe"), '--clock "wall" only applies with --serve', state("clock"));
  });

  it("--clock manual (its default with --serve) alone", () => {
    expectRefused(outcome("clockManualWithoutServe"), '--clock "manual" only applies with --serve', state("clock-manual"));
  });

  it("--clock with a value that is no clock: refused for the missing --serve first", () => {
    expectRefused(outcome("clockBadWithoutServe"), '--clock "sundial" only applies with --serve', state("clock-bad"));
  });

  it("--clock and --port: --clock is named first (the order --help lists them)", () => {
    expectRefused(outcome("clockAndPortWithoutServe"), '--clock "wall" only applies with --serve', state("clock-port"));
  });

  it("the log directory holds only the log and the control's state", () => {
    expect(readdirSync(DIR).sort()).toEqual(["control.json", "inputs.arrow"]);
  });

  it("the same command without them replays and writes its state (the control)", () => {
    const ran = outcome("withoutFlags");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/every fingerprint matched/);
    expect(existsSync(state("control"))).toBe(true);
  });
});

describe("replay --serve still takes --clock, --port and --host, and their defaults", () => {
  it("--port is used: a busy one is refused by the bind probe, on the default host", () => {
    expectRefused(outcome("serveBusyPort"), `--port ${busyPort} is in use on 127.0.0.1`, state("serve-port"));
  });

  it("--host is used: an address that is not this machine's is refused by the bind probe", () => {
    expectRefused(outcome("serveBadHost"), '--host "not a host" is not an address of this machine', state("serve-host"));
  });

  it("both together reach the bind probe", () => {
    expectRefused(outcome("serveHostAndBusyPort"), `--port ${busyPort} is in use on 127.0.0.1`, state("serve-both"));
  });

  it("without either, it binds the default port 8080 on 127.0.0.1 (held here, so refused)", () => {
    expectRefused(outcome("serveDefaults"), "--port 8080 is in use on 127.0.0.1", state("serve-defaults"));
  });

  it("--clock is used: a value that is no clock is refused", () => {
    expectRefused(outcome("serveBadClock"), '--clock "sundial" must be manual or wall', state("serve-clock-bad"));
  });

  it("without --clock, the served clock is manual (the default, applied by the command: the live server's own is wall)", () => {
    const ran = outcome("serveClockDefault");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/shadowbook replay --serve: the replayed exchange at \S+, manual clock \(POST \/admin\/clock to move it\)/);
    expect(existsSync(join(SERVED, "clock-default.json"))).toBe(true);
  });

  it("--clock wall is used: the served clock runs", () => {
    const ran = outcome("serveClockWall");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/shadowbook replay --serve: the replayed exchange at \S+, wall clock running from there/);
  });

  it("--help gives the three defaults and says they are for --serve", () => {
    const ran = outcome("help");
    expect(ran.status).toBe(0);
    const text = ran.stdout.replace(/\s+/g, " ");
    expect(text).toMatch(/--clock <mode> with --serve: manual \(moves only via POST \/admin\/clock\) or wall \(runs from the replayed time\) \(default: "manual"\)/);
    expect(text).toMatch(/--port <port> with --serve: TCP port \(0 = any free port\) \(default: "8080"\)/);
    expect(text).toMatch(/--host <host> with --serve: address to listen on \(default: "127\.0\.0\.1"\)/);
  });
});
