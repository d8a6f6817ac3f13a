/**
 * stopOnSignals (src/cli/shutdown.ts) with a stand-in process: the first
 * signal drains and exits with the close's outcome, a copy of it within
 * DUPLICATE_SIGNAL_MS is ignored, and a later one ends the process at once
 * with 128 + the signal's number. Launched by npm, the server also drains
 * once its parent pid changes (its launcher ended without passing a signal
 * on); launched otherwise, it does not look.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { DUPLICATE_SIGNAL_MS, PARENT_CHECK_MS, stopOnSignals, type SignalHost } from "../../src/cli/shutdown.ts";

function standIn(launchedByNpm = false) {
  const signals = new EventEmitter();
  const host = {
    signals,
    nowMs: 1_000,
    parentPid: 4_242,
    exits: [] as number[],
    logs: [] as string[],
    errors: [] as string[],
    checks: [] as { ms: number; check: () => void }[],
    /** Runs every registered periodic check once (one period passing). */
    tick: () => host.checks.forEach(({ check }) => check()),
  };
  const signalHost: SignalHost = {
    signals,
    now: () => host.nowMs,
    exit: (code) => void host.exits.push(code),
    log: (line) => void host.logs.push(line),
    error: (line) => void host.errors.push(line),
    launchedByNpm,
    parentPid: () => host.parentPid,
    every: (ms, check) => void host.checks.push({ ms, check }),
  };
  return { host, signalHost };
}

/** A server whose close resolves (or rejects) when told to, counting the calls. */
function closable() {
  let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const server = {
    closes: 0,
    close: () => {
      server.closes++;
      return new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    },
    finish: () => settle!.resolve(),
    fail: (error: Error) => settle!.reject(error),
  };
  return server;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("stopOnSignals", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s drains once and exits 0 when the server has closed", async (signal) => {
    const { host, signalHost } = standIn();
    const server = closable();
    stopOnSignals(server, signalHost);
    host.signals.emit(signal);
    expect(server.closes).toBe(1);
    expect(host.logs).toEqual([`${signal}: draining connections (readiness now 503)`]);
    await turn();
    expect(host.exits).toEqual([]);
    server.finish();
    await turn();
    expect(host.exits).toEqual([0]);
  });

  it("exits 1 with the error when closing fails", async () => {
    const { host, signalHost } = standIn();
    const server = closable();
    stopOnSignals(server, signalHost);
    host.signals.emit("SIGTERM");
    server.fail(new Error("the input log could not be closed"));
    await turn();
    expect(host.errors).toEqual(["the input log could not be closed"]);
    expect(host.exits).toEqual([1]);
  });

  it(`ignores a copy of the signal within ${DUPLICATE_SIGNAL_MS} ms (a terminal's Ctrl-C and a parent's relayed copy), of either kind`, () => {
    const { host, signalHost } = standIn();
    const server = closable();
    stopOnSignals(server, signalHost);
    host.signals.emit("SIGINT");
    host.nowMs += 3;
    host.signals.emit("SIGINT");
    host.nowMs += DUPLICATE_SIGNAL_MS - 4;
    host.signals.emit("SIGTERM");
    expect(server.closes).toBe(1);
    expect(host.logs).toHaveLength(1);
    expect(host.exits).toEqual([]);
    expect(host.errors).toEqual([]);
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(`a second %s ${DUPLICATE_SIGNAL_MS} ms after the first ends the process at once with %i`, (signal, code) => {
    const { host, signalHost } = standIn();
    const server = closable();
    stopOnSignals(server, signalHost);
    host.signals.emit("SIGTERM");
    host.nowMs += DUPLICATE_SIGNAL_MS;
    host.signals.emit(signal);
    expect(server.closes).toBe(1);
    expect(host.errors).toEqual([`${signal} again: stopping at once`]);
    expect(host.exits).toEqual([code]);
  });

  it(`launched by npm: once the parent pid changes (checked every ${PARENT_CHECK_MS} ms), drains once and exits 0`, async () => {
    const { host, signalHost } = standIn(true);
    const server = closable();
    stopOnSignals(server, signalHost);
    expect(host.checks.map(({ ms }) => ms)).toEqual([PARENT_CHECK_MS]);
    host.tick();
    expect(server.closes).toBe(0);
    host.parentPid = 1; // adopted: the launcher is gone
    host.tick();
    host.tick();
    expect(server.closes).toBe(1);
    expect(host.logs).toEqual(["launcher (pid 4242) ended: draining connections (readiness now 503)"]);
    server.finish();
    await turn();
    expect(host.exits).toEqual([0]);
  });

  it("launched by npm: a drain a signal began is not begun again when the launcher ends too (Ctrl-C ends npm and its shell)", () => {
    const { host, signalHost } = standIn(true);
    const server = closable();
    stopOnSignals(server, signalHost);
    host.signals.emit("SIGINT");
    host.parentPid = 1;
    host.tick();
    expect(server.closes).toBe(1);
    expect(host.logs).toEqual(["SIGINT: draining connections (readiness now 503)"]);
    expect(host.exits).toEqual([]);
  });

  it("not launched by npm: the parent is never looked at (`nohup shadowbook serve &` outlives its shell)", () => {
    const { host, signalHost } = standIn(false);
    const server = closable();
    stopOnSignals(server, signalHost);
    expect(host.checks).toEqual([]);
    host.parentPid = 1;
    host.tick();
    expect(server.closes).toBe(0);
  });
});
