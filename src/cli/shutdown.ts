/**
 * Graceful stop of a served exchange on SIGTERM or SIGINT (spec 6.3): the
 * first signal drains connections (readiness answers 503, idle streams get
 * 1001, the rest within the drain) and exits 0 once closed, 1 if closing
 * failed. A second signal while it drains ends the process at once (exit
 * 128 + the signal's number, as a shell reports a process the signal
 * killed).
 *
 * Except a second signal within DUPLICATE_SIGNAL_MS of the first: that is
 * the same keypress or stop delivered twice, not a user insisting. A
 * terminal's Ctrl-C reaches every process of the foreground group, so a
 * server under a parent that also relays SIGINT to its child (a process
 * manager, a wrapper script) gets the terminal's copy and the relayed one
 * a moment apart; the copy must not end the drain the first one began.
 * (`npm run serve` execs the server, package.json, so npm is its parent:
 * test/cli/serve-signals.test.ts stops it both ways.)
 *
 * And the launcher's end, under npm: `npx shadowbook serve` (npm exec) runs
 * the server under a `sh -c` that npm starts. npm passes a SIGTERM on to
 * that shell, which dies of it without passing it on, and the server was
 * left behind as an orphan, still listening. Node has no parent-death
 * signal, so a server that npm launched (npm sets `npm_command` in its
 * children's environment) looks at its parent pid every PARENT_CHECK_MS:
 * once it has changed, the launcher is gone, and the server drains as on a
 * first signal. A server started any other way is left alone when its
 * parent ends (`nohup shadowbook serve &` must outlive its shell).
 */
import type { EventEmitter } from "node:events";

/** Signals closer than this to the first one are taken as copies of it (a relayed copy arrives within milliseconds). */
export const DUPLICATE_SIGNAL_MS = 250;

/** Exit codes of a process ended by a second signal: 128 + the signal number. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** How often a server launched by npm looks for its launcher's end. */
export const PARENT_CHECK_MS = 1_000;

/** What stopOnSignals listens to and acts through (the process, or a stand-in in a test). */
export interface SignalHost {
  readonly signals: Pick<EventEmitter, "on">;
  /** A monotonic clock, in ms. */
  now(): number;
  exit(code: number): void;
  log(line: string): void;
  error(line: string): void;
  /** Whether npm launched this process (npm exec, npx, npm run): then the launcher's end stops it. */
  readonly launchedByNpm: boolean;
  /** The parent's pid now (it changes when the parent ends and the process is adopted). */
  parentPid(): number;
  /** Calls `check` every `ms` without keeping the process alive. */
  every(ms: number, check: () => void): void;
}

const PROCESS_HOST: SignalHost = {
  signals: process,
  now: () => performance.now(),
  exit: (code) => process.exit(code),
  log: (line) => console.log(line),
  error: (line) => console.error(line),
  launchedByNpm: process.env["npm_command"] !== undefined,
  parentPid: () => process.ppid,
  every: (ms, check) => void setInterval(check, ms).unref(),
};

export function stopOnSignals(server: { close(): Promise<void> }, host: SignalHost = PROCESS_HOST): void {
  let firstAtMs: number | undefined;
  const drain = (why: string) => {
    firstAtMs = host.now();
    host.log(`${why}: draining connections (readiness now 503)`);
    server.close().then(
      () => host.exit(0),
      (error: unknown) => {
        host.error(error instanceof Error ? error.message : String(error));
        host.exit(1);
      },
    );
  };
  const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    if (firstAtMs === undefined) return drain(signal);
    if (host.now() - firstAtMs < DUPLICATE_SIGNAL_MS) return;
    host.error(`${signal} again: stopping at once`);
    host.exit(SIGNAL_EXIT_CODES[signal]);
  };
  host.signals.on("SIGTERM", () => onSignal("SIGTERM"));
  host.signals.on("SIGINT", () => onSignal("SIGINT"));
  if (host.launchedByNpm) {
    const launcher = host.parentPid();
    // Once: a drain already under way (a signal came too) goes on as it is.
    host.every(PARENT_CHECK_MS, () => {
      if (firstAtMs === undefined && host.parentPid() !== launcher) drain(`launcher (pid ${launcher}) ended`);
    });
  }
}
