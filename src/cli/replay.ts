/**
 * `shadowbook replay <inputs.arrow>`: re-executes a run's input log through
 * a fresh Exchange and checks the fingerprint after every step; prints the
 * first step where the replay diverges (its index, time, kind and input),
 * or that every step matched. Exit status 1 on a divergence (and then no
 * state is written and nothing is served: the state would not be the run's).
 *
 * A live log that does not end as a closed one does (`serve --record` killed
 * with -9 or still running, a copy cut short, bytes after its end-of-stream
 * marker; and a simulated run's log with bytes after its closing "ARROW1":
 * src/record/replay.ts, LogEnd) replays the steps of its complete
 * batches, and says so: a warning after the first line names how the log
 * ends, how many steps were read and that the rest is missing, and the
 * "every fingerprint matched" line says it was of a log cut short. The exit
 * status stays 0 when every step read matched: a server killed with -9
 * legitimately leaves such a log (with --durability sync, every answered
 * request is in its complete batches), and 1 means the replay does not
 * reproduce the log (a divergence) or the log is refused (unreadable,
 * damaged in the middle, a damaged value). A caller that needs the whole
 * session checks `logEnd` in the result (or the warning line).
 *
 * - `--until <time>` (Unix ms, or ISO-8601 such as 2026-01-01T00:05:00Z):
 *   stops after the last step at or before that time, writes the whole
 *   state (src/record/exchange-state.ts) as JSON to `--state-out <file>`
 *   (default `<log dir>/state-<ms>.json`) and prints a digest of it. The
 *   state's time is the Exchange's: the time of the last step replayed.
 *   The file also says how the log ends (`logEnd`, stateFile): null for a
 *   whole log, else what the warning line says, so a state taken from a
 *   log cut short says so on its own. An `--until` before the log's first
 *   step is refused once the log is read, before the replay (it would
 *   replay nothing and write the log's start as the state): the refusal
 *   names the value, the time it reads as and the first step's time, and
 *   says when the value looks like Unix seconds (untilBeforeLog). A
 *   `--state-out` that cannot be written (a directory, or in a directory
 *   that does not exist) is refused before the log is read (checkStateOut).
 * - `--serve` (with `--until`, or alone for the end of the log; the state is
 *   written in both cases, named by the state's time when alone): then serves
 *   the replayed Exchange live on `--host`/`--port`, REST /v2, streaming,
 *   order entry and the admin API, like `shadowbook serve`, until SIGINT or
 *   SIGTERM. The clock is manual by default and starts at the replayed time
 *   (POST /admin/clock moves it); `--clock wall` lets it run from there.
 *   The run's simulated agents do not come back: their orders rest in the
 *   book and their accounts keep their positions and balances, but nothing
 *   acts for them any more; the developer's client is the only trader. To
 *   act as one of the run's accounts: in a trusted-mode run (the default)
 *   signatures are not checked, so a request with the account's owner wallet
 *   as signerWallet and any 65-byte signature acts as its owner (the
 *   conformance test does this); in a signed-mode run sign with the agent's
 *   key (SHA-256 of "shadowbook agent:<name>", printed per account when the
 *   log's scenario can be loaded by its name), or add your own key as a
 *   signer with POST /admin/signers.
 *
 * A step the Exchange threw on is listed (`step N (time, kind) threw ...`)
 * and replayed past when the fingerprint after it matches the log's
 * (record/replay.ts replayInputLog says why); the exit status is that of
 * the fingerprints.
 *
 * Which code: a log names the code that recorded it (`shadowbook.code`,
 * src/record/code-id.ts). When that is not this code, a line after the
 * first says so, naming both; a log written before logs named their code
 * gets a line saying it does not name it; a log recorded by this code gets
 * none. A simulated run's log also names the `shadowbook run` command that
 * re-runs it, agents included (`shadowbook.command`): a `re-run:` line
 * prints it. A log recorded by code that differs from this code only under
 * agents/ (its `shadowbook.replayCode`, src/ and the dependencies, is this
 * code's) says so: a replay runs no agent, so it replays as under this
 * code, and a divergence reads as one under this code. Likewise the Node.js major version that recorded it
 * (`shadowbook.node`): a line when the log names another. On a divergence,
 * one more line after the DIVERGES report reads the comparison: other code
 * (or none named) means the divergence may be the code change; this code
 * on another Node major version, that it may be the runtime; this code on
 * this major version means neither (DESIGN.md: same code, same Node major
 * version, same outputs), so a determinism bug or an altered log. Exit
 * statuses are as above.
 *
 * A replay that takes over 2 s shows its progress on stderr (steps of the
 * log's, virtual time, steps per second: progress.ts replayProgress);
 * `--no-progress` turns it off. A live log larger than 256 MiB is read from
 * the file a batch at a time (record/replay.ts openInputLog), so a log of
 * any size replays.
 *
 * Every flag is checked, and with `--serve` the address bound once (as
 * `shadowbook serve` does), before the log is read: a refused command
 * replays nothing and writes no state file. `--clock`, `--port` and
 * `--host` without `--serve` are refused (they would do nothing), the first
 * given in that order named; their defaults (REPLAY_SERVE_DEFAULTS) apply
 * here, not through commander, so that a flag that was not given can be
 * told from one that was.
 */
import { dirname, join } from "node:path";
import { statSync, writeFileSync, type Stats } from "node:fs";
import { privateKeySigner } from "../client/signer.ts";
import { formatMicros, microsToMillis, MICROS_PER_MILLI, type Micros } from "../core/time.ts";
import type { Exchange } from "../exchange/exchange.ts";
import type { ClockMode } from "../live/driver.ts";
import { tuneHeapForServing } from "../live/heap-tuning.ts";
import { startLiveServer, type RunningServer } from "../live/serve.ts";
import { defaultSignerThreads } from "../live/signer-pool.ts";
import { codeIdentity, nodeMajor, replayCodeIdentity } from "../record/code-id.ts";
import { exchangeState, stateCounts, type ExchangeState } from "../record/exchange-state.ts";
import { configFromJson } from "../record/input-log.ts";
import { describeLogEnd, openInputLog, replayInputLog, shown, type InputLogHeader, type LogEnd, type LoggedStep, type StreamedInputLog, type ThrownStep } from "../record/replay.ts";
import { agentPrivateKey } from "../sim/agent-host.ts";
import { loadScenario } from "../sim/scenario-loader.ts";
import { replayProgress } from "./progress.ts";
import { checkListen } from "./serve.ts";
import { stopOnSignals } from "./shutdown.ts";

export interface ReplayCommandOptions {
  until?: string;
  stateOut?: string;
  serve?: boolean;
  /** With `serve` only (refused without it); default REPLAY_SERVE_DEFAULTS.clock. */
  clock?: string;
  /** With `serve` only (refused without it); default REPLAY_SERVE_DEFAULTS.port. */
  port?: string;
  /** With `serve` only (refused without it); default REPLAY_SERVE_DEFAULTS.host. */
  host?: string;
  /** false: no progress line on stderr (progress.ts replayProgress: it appears only when a replay takes over 2 s). */
  progress?: boolean;
}

/**
 * What `replay --serve` uses when `--clock` / `--port` / `--host` are not
 * given: a manual clock (the replayed state holds still until POST
 * /admin/clock), and the address `shadowbook serve` listens on.
 */
export const REPLAY_SERVE_DEFAULTS = Object.freeze({ clock: "manual", port: "8080", host: "127.0.0.1" });

/** The flags that only apply with `--serve`, in the order --help lists them (the first one given is named). */
const SERVE_ONLY_FLAGS = [
  ["--clock", "clock"],
  ["--port", "port"],
  ["--host", "host"],
] as const satisfies readonly (readonly [string, keyof typeof REPLAY_SERVE_DEFAULTS])[];

/** What `replayCommand` did (for tests and callers). */
export interface ReplayCommandResult {
  readonly steps: number;
  readonly fingerprint: string;
  readonly diverged: boolean;
  /** The code that recorded the log against the code that replayed it. */
  readonly code: CodeComparison;
  /** Set when the log does not end as a closed one does (cut short, unclosed, bytes after its end): only its complete batches were replayed. */
  readonly logEnd?: LogEnd;
  readonly state?: ExchangeState;
  readonly statePath?: string;
  readonly running?: RunningServer;
}

/** The code that recorded a log (as the log names it) against the code replaying it (src/record/code-id.ts). */
export interface CodeComparison {
  /** `shadowbook.code` of the log; undefined when it names none (written before logs named their code). */
  readonly recorded: string | undefined;
  /** This process's code identity. */
  readonly running: string;
  /**
   * "same"; "agents" (the log names other code whose replay identity,
   * src/ and the dependencies, is this code's: only agents/ differ, which a
   * replay does not run); "other" (the log names other code); or "unnamed"
   * (it names none).
   */
  readonly kind: "same" | "agents" | "other" | "unnamed";
  /** The Node.js major version that recorded the log (`shadowbook.node`; undefined when it names none) and the one replaying it. */
  readonly node: { readonly recorded: string | undefined; readonly running: string };
}

export function compareCode(recorded: string | undefined, running: string, node: CodeComparison["node"], replay: { readonly recorded: string | undefined; readonly running: string }): CodeComparison {
  const kind = recorded === undefined ? "unnamed" : recorded === running ? "same" : replay.recorded === replay.running ? "agents" : "other";
  return { recorded, running, kind, node };
}

/** True when the log names the Node major version that recorded it and it is not this one. */
function otherNode(code: CodeComparison): boolean {
  return code.node.recorded !== undefined && code.node.recorded !== code.node.running;
}

/** The most steps the Exchange threw on that are listed one by one (the rest are counted). */
const THROWN_LISTED_MAX = 10;

/**
 * A line per step the Exchange threw on and the replay went past (its
 * fingerprint matched: record/replay.ts replayInputLog), at most
 * THROWN_LISTED_MAX, then a count of the rest. The error text is the
 * replaying code's, printed escaped like the log's own text.
 */
export function thrownLines(threw: readonly ThrownStep[]): string[] {
  const lines = threw
    .slice(0, THROWN_LISTED_MAX)
    .map(({ step, error }) => `  step ${step.index} (${formatMicros(step.timeMicros)}, ${step.kind}) threw ${printable(error, 400)}; the fingerprint after it matches the log's, so the replay went on from the state it left`);
  if (threw.length > THROWN_LISTED_MAX) lines.push(`  ... and ${(threw.length - THROWN_LISTED_MAX).toLocaleString("en-US")} more steps threw`);
  return lines;
}

/**
 * A command as src/sim/command-line.ts writes it: `npx shadowbook run`, then
 * words that are plain (the shell-safe characters shellWord leaves as they
 * are) or single-quoted (with '\'' for a quote), and no control or
 * direction-changing character anywhere. Only such a command is printed as
 * a command to paste; anything else in `shadowbook.command` (a log edited by
 * hand, or by someone who hoped it would be pasted: `...; curl x | sh`) is
 * printed escaped and marked.
 */
// One character, one quoted run or one escaped quote at a time: no nested repetition to backtrack over (a hostile log
// could otherwise make the test take exponential time), and a space outside quotes only ever separates words.
const RUN_COMMAND = /^npx shadowbook run(?: (?:[\w./@:+,=%-]|'[^']*'|\\')+)+$/;
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

/** The `re-run:` line: the log's command (see RUN_COMMAND), and a caution when the log was recorded by other code. */
export function rerunLine(command: string, code: CodeComparison): string {
  if (!RUN_COMMAND.test(command) || UNSAFE_CHARACTER.test(command)) return `  re-run: ${shown(command)} (not a command this code writes: not shown as one)`;
  const caution = code.kind === "same" ? "" : code.kind === "agents" ? " (recorded with other agents/: a re-run here may differ)" : " (recorded by other code: a re-run here may differ)";
  return `  re-run: ${command}${caution}`;
}

/** Text read from a log's metadata (a code identity, a Node version, a scenario name), as printed: as is when it is printable ASCII of at most `max` characters, else quoted with escapes and cut at 80 (record/replay.ts shown). */
function printable(text: string, max = 80): string {
  return text.length <= max && /^[\x20-\x7e]+$/.test(text) ? text : shown(text);
}

/** The line printed after the first one: which code recorded the log, when not this code; undefined when it was this code. */
export function codeLine(code: CodeComparison): string | undefined {
  switch (code.kind) {
    case "same":
      return undefined;
    case "agents":
      return `  code: recorded by ${printable(code.recorded!)}, replayed by ${code.running}: only agents/ differ, which a replay does not run`;
    case "other":
      return `  code: recorded by ${printable(code.recorded!)}, replayed by ${code.running}: the code differs`;
    case "unnamed":
      return `  code: the log does not name the code that recorded it (written before logs did); replayed by ${code.running}`;
  }
}

/** The line printed after the code's: the Node major version that recorded the log, when the log names one and it is not this one. */
export function nodeLine(code: CodeComparison): string | undefined {
  if (!otherNode(code)) return undefined;
  return `  node: recorded on Node ${printable(code.node.recorded!)}, replayed on Node ${code.node.running}: another major version`;
}

/** The line printed after a DIVERGES report: what the code comparison says about the divergence. */
export function divergenceCodeLine(code: CodeComparison): string {
  switch (code.kind) {
    case "same":
    case "agents": {
      const by = code.kind === "same" ? `this code (${code.running})` : `code that differs from this only in agents/ (${printable(code.recorded!)}), which a replay does not run,`;
      if (otherNode(code)) {
        const recorded = printable(code.node.recorded!);
        return `  recorded by ${by} on Node ${recorded}, replayed on Node ${code.node.running}: another Node major version may change the outputs; replay on Node ${recorded} to tell`;
      }
      if (code.node.recorded !== undefined) {
        return `  recorded by ${by} on this Node major version (${code.node.running}): not a code or runtime change; a determinism bug, or a log altered since it was written`;
      }
      return `  recorded by ${by}: not a code change; a determinism bug, another Node major version, or a log altered since it was written`;
    }
    case "other":
      return `  the code differs (recorded by ${printable(code.recorded!)}, replayed by ${code.running}): the divergence may come from the code change, not nondeterminism; replay with the code that recorded the log to tell`;
    case "unnamed":
      return "  the log does not name its code: the divergence may come from a code change since it was recorded, not nondeterminism";
  }
}

/** An ISO-8601 date-time with a zone: date, hour and minute, optional seconds and milliseconds, Z or ±hh:mm. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * What makes the fields of an ISO_TIME match impossible (a 30th of February,
 * hour 25), or undefined. Date.parse would roll such a time over into
 * another (2026-02-30 into 2026-03-02), so they are checked here.
 */
function impossibleTime(match: RegExpExecArray): string | undefined {
  const [, yearText = "", monthText = "", dayText = "", hourText = "", minuteText = "", secondText = "00", offsetHoursText = "00", offsetMinutesText = "00"] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  if (month < 1 || month > 12) return `month ${monthText} is not within 01-12`;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!;
  const day = Number(dayText);
  if (day < 1 || day > days) return `day ${dayText} is not within 01-${days} (${yearText}-${monthText} has ${days} days)`;
  if (Number(hourText) > 23) return `hour ${hourText} is not within 00-23`;
  if (Number(minuteText) > 59) return `minute ${minuteText} is not within 00-59`;
  if (Number(secondText) > 59) return `second ${secondText} is not within 00-59`;
  if (Number(offsetHoursText) > 23 || Number(offsetMinutesText) > 59) return `zone offset ${offsetHoursText}:${offsetMinutesText} is not within 00:00-23:59`;
  return undefined;
}

/**
 * A time argument in Unix ms: digits (Unix ms) or an ISO-8601 date-time with
 * a zone (Z or ±hh:mm), e.g. 2026-01-01T00:05:00Z or 2026-01-01T00:05:00.250+00:00.
 * A date or time that does not exist (2026-02-30, 25:00) is refused, not
 * rolled over into another.
 */
export function parseTimeArgument(text: string, flag = "--until"): Micros {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    if (!Number.isSafeInteger(ms * MICROS_PER_MILLI)) throw new Error(`${flag} "${text}" is beyond the safe range of Unix ms`);
    return ms * MICROS_PER_MILLI;
  }
  const match = ISO_TIME.exec(text);
  if (match === null) throw new Error(`${flag} "${text}" must be a Unix time in ms or an ISO-8601 time with a zone, e.g. 2026-01-01T00:05:00Z`);
  const impossible = impossibleTime(match);
  if (impossible !== undefined) throw new Error(`${flag} "${text}" is not a valid ISO-8601 time: ${impossible}`);
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new Error(`${flag} "${text}" is not a valid ISO-8601 time`);
  if (ms < 0) throw new Error(`${flag} "${text}" is before 1970-01-01T00:00:00Z (Unix time 0)`);
  return ms * MICROS_PER_MILLI;
}

/** Unix ms of 2000-01-01T00:00:00Z: an --until in digits below it that is after it as seconds looks like Unix seconds. */
const YEAR_2000_MS = 946_684_800_000;

/**
 * The refusal of an `--until` before the log's first step (nothing would be
 * replayed, and the state written would be the log's start): the value, the
 * time it reads as and the first step's. Digits that are before 2000 as Unix
 * ms but after it as Unix seconds (1767225650) are said to look like seconds.
 */
export function untilBeforeLog(text: string, untilMicros: Micros, firstMicros: Micros): string {
  let message = `--until "${text}" (${formatMicros(untilMicros)}) is before the log's first step (${formatMicros(firstMicros)}): no step would be replayed`;
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < YEAR_2000_MS && value * 1_000 >= YEAR_2000_MS) {
      message += `; it looks like Unix seconds (as seconds, ${formatMicros(value * 1_000 * MICROS_PER_MILLI)}), but --until takes Unix ms: ${value * 1_000}`;
    }
  }
  return message;
}

/** The first step of `steps`, or undefined when there is none (a streamed log reads its first batch). */
function firstStep(steps: Iterable<LoggedStep>): LoggedStep | undefined {
  for (const step of steps) return step;
  return undefined;
}

/** The stats of `path`, or undefined when nothing is there (or it cannot be seen). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Refuses a `--state-out` the state could not be written to, before the log
 * is read (a replay of gigabytes is not run to fail at its end): empty, a
 * directory, or in a directory that does not exist or is a file.
 */
export function checkStateOut(path: string): void {
  if (path === "") throw new Error(`--state-out "" is empty: give the file to write the state to`);
  if (statOf(path)?.isDirectory() === true) throw new Error(`--state-out "${path}" is a directory, not a file to write the state to`);
  const dir = dirname(path);
  const stat = statOf(dir);
  if (stat === undefined) throw new Error(`--state-out "${path}": its directory "${dir}" does not exist`);
  if (!stat.isDirectory()) throw new Error(`--state-out "${path}": "${dir}" is a file, not a directory`);
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw new Error(`--port "${value}" must be an integer within [0, 65535]`);
  return Number(value);
}

export async function replayCommand(path: string, options: ReplayCommandOptions): Promise<ReplayCommandResult> {
  // Every flag is checked, and --host:--port bound once, before the log is read: a refused command writes no state file.
  if (options.serve !== true) {
    for (const [flag, key] of SERVE_ONLY_FLAGS) {
      const value = options[key];
      if (value !== undefined) throw new Error(`${flag} "${value}" only applies with --serve`);
    }
  }
  const clock = options.clock ?? REPLAY_SERVE_DEFAULTS.clock;
  if (clock !== "manual" && clock !== "wall") throw new Error(`--clock "${clock}" must be manual or wall`);
  const untilMicros = options.until === undefined ? undefined : parseTimeArgument(options.until);
  if (options.stateOut !== undefined) checkStateOut(options.stateOut);
  const host = options.host ?? REPLAY_SERVE_DEFAULTS.host;
  const listenPort = options.serve === true ? port(options.port ?? REPLAY_SERVE_DEFAULTS.port) : undefined;
  if (listenPort !== undefined) {
    await checkListen(host, listenPort);
    // Before the replay runs the Exchange: literal sites it tenures now would stay tenured while serving.
    tuneHeapForServing();
  }
  // A large live log is read a batch at a time: it may be larger than memory, or than one read can hold (record/replay.ts).
  const bar = options.progress === false ? undefined : replayProgress();
  let log: StreamedInputLog;
  try {
    log = openInputLog(path, bar === undefined ? {} : { onProgress: (checked, last) => bar.checked(checked, last.timeMicros) });
    // Before the replay: an --until before every step would replay nothing and write the log's start as its state.
    const first = untilMicros === undefined ? undefined : firstStep(log.steps);
    if (first !== undefined && untilMicros! < first.timeMicros) throw new Error(untilBeforeLog(options.until!, untilMicros!, first.timeMicros));
  } catch (error) {
    bar?.done();
    throw error;
  }
  bar?.replaying(log.stepCount);
  const code = compareCode(log.code, codeIdentity(), { recorded: log.node, running: nodeMajor() }, { recorded: log.replayCode, running: replayCodeIdentity() });
  const started = performance.now();
  const onProgress = bar === undefined ? {} : { onProgress: (replayed: number, last: LoggedStep) => bar.replayed(replayed, last.timeMicros) };
  let result: ReturnType<typeof replayInputLog>;
  try {
    result = replayInputLog(log, { ...(untilMicros === undefined ? {} : { untilMicros }), ...onProgress });
  } finally {
    bar?.done();
  }
  const seconds = (performance.now() - started) / 1_000;
  console.log(`shadowbook replay ${path}: scenario ${printable(log.scenario)}, seed ${log.seed}, ${log.stepCount.toLocaleString("en-US")} steps logged`);
  for (const line of [codeLine(code), nodeLine(code)]) if (line !== undefined) console.log(line);
  if (log.command !== undefined) console.log(rerunLine(log.command, code));
  const logEnd = log.end === undefined ? {} : { logEnd: log.end };
  if (log.end !== undefined) console.log(`  warning: the log ${describeLogEnd(log.end, log.stepCount)}`);
  for (const line of thrownLines(result.threw)) console.log(line);
  if (result.divergence !== undefined) {
    const { step, replayed } = result.divergence;
    console.log(`  DIVERGES at step ${step.index} (${formatMicros(step.timeMicros)}, ${step.kind}): recorded fingerprint ${step.fingerprint}..., replayed ${replayed}`);
    if (step.input !== undefined) console.log(`  input: ${JSON.stringify(step.input).slice(0, 400)}`);
    console.log(divergenceCodeLine(code));
    process.exitCode = 1;
    return { steps: result.steps, fingerprint: result.fingerprint, diverged: true, code, ...logEnd };
  }
  const until = untilMicros === undefined ? "" : ` up to ${formatMicros(untilMicros)}`;
  const cutShort = log.end === undefined || log.end.kind === "trailing" ? "" : " (of a log cut short: see the warning above)";
  console.log(`  ${result.steps.toLocaleString("en-US")} steps replayed${until} in ${seconds.toFixed(2)} s, every fingerprint matched${cutShort}`);
  if (log.failedAfterOutputs !== undefined && result.outputs > log.failedAfterOutputs) {
    const more = result.outputs - log.failedAfterOutputs;
    console.log(`  the run failed inside its last step, after output ${log.failedAfterOutputs.toLocaleString("en-US")}: the replay ran the step to its end (${more.toLocaleString("en-US")} output${more === 1 ? "" : "s"} more, not fingerprinted)`);
  }
  console.log(`  fingerprint ${result.fingerprint}`);
  if (untilMicros === undefined && options.stateOut === undefined && options.serve !== true) return { steps: result.steps, fingerprint: result.fingerprint, diverged: false, code, ...logEnd };

  const state = exchangeState(result.exchange);
  printDigest(state, result.steps, log.stepCount);
  const statePath = options.stateOut ?? join(dirname(path), `state-${microsToMillis(untilMicros ?? state.timeMicros)}.json`);
  writeFileSync(statePath, `${JSON.stringify(stateFile(log, result.steps, result.fingerprint, state), null, 2)}\n`);
  console.log(`  wrote ${statePath}`);
  if (listenPort === undefined) return { steps: result.steps, fingerprint: result.fingerprint, diverged: false, code, ...logEnd, state, statePath };
  const running = await serveReplayed(log, result.exchange, { clock, host, port: listenPort });
  return { steps: result.steps, fingerprint: result.fingerprint, diverged: false, code, ...logEnd, state, statePath, running };
}

/**
 * The state file's object: the log, its scenario and seed, the command that
 * re-runs it (`command`, when the log names one: a simulated run's), the
 * steps replayed and the fingerprint after them, how the log ends (`logEnd`), and the state. `logEnd` is null
 * for a log that ends as a closed one does (a simulated run's, or a live
 * log with its end-of-stream marker and nothing after it); otherwise
 * `{kind, fileBytes, readBytes, stepsRead, message}` (src/record/replay.ts,
 * LogEnd): "cut" and "unclosed" mean the steps after `stepsRead` are
 * missing, so the state is that of a log cut short, and a state file must
 * say so on its own, away from the warning the command printed; "trailing"
 * means bytes after the marker (after the footer and closing "ARROW1" of a
 * simulated run's log, `format` "file") were not read (the log is whole). Always
 * present, so that a reader need not tell a whole log from an older file.
 */
export function stateFile(log: InputLogHeader, steps: number, fingerprint: string, state: ExchangeState): Record<string, unknown> {
  const logEnd = log.end === undefined ? null : { ...log.end, stepsRead: log.stepCount, message: `the log ${describeLogEnd(log.end, log.stepCount)}` };
  return { log: log.path, scenario: log.scenario, seed: log.seed, ...(log.command === undefined ? {} : { command: log.command }), steps, fingerprint, logEnd, state };
}

function printDigest(state: ExchangeState, steps: number, logged: number): void {
  const counts = stateCounts(state);
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  console.log(`  state at ${state.time} (${microsToMillis(state.timeMicros)} ms), after step ${steps.toLocaleString("en-US")} of ${logged.toLocaleString("en-US")}:`);
  console.log(`    ${plural(counts.accounts, "account")}, ${plural(counts.openOrders, "open order")} on ${plural(counts.restingLevels, "price level")}, ${plural(counts.positions, "position")}, ${plural(counts.pendingSettlements, "pending settlement")} (block ${state.pendingSettlements.blockHeight})`);
}

/** Serves the replayed Exchange until SIGINT or SIGTERM; prints the URLs and how to act as the run's accounts. */
async function serveReplayed(log: InputLogHeader, exchange: Exchange, options: { clock: ClockMode; host: string; port: number }): Promise<RunningServer> {
  const running = await startLiveServer({
    config: configFromJson(log.configJson),
    seed: log.seed,
    exchange,
    host: options.host,
    port: options.port,
    clock: options.clock,
    startMicros: exchange.now(),
    // As `shadowbook serve` by default: signer workers only without the comb verifier (with it, known signers are checked early on its thread).
    signerThreads: defaultSignerThreads(),
  });
  const { rest, stream, exec } = running.urls;
  const admin = rest.replace(/\/v2$/, "/admin");
  console.log(`shadowbook replay --serve: the replayed exchange at ${formatMicros(exchange.now())}, ${options.clock} clock${options.clock === "manual" ? " (POST /admin/clock to move it)" : " running from there"}`);
  console.log(`  REST          ${rest}`);
  console.log(`  streaming     ${stream}`);
  console.log(`  order entry   ${exec}`);
  console.log(`  admin         ${admin}`);
  console.log("  the run's agents do not come back: their orders rest and their accounts keep their positions; your client is the only trader");
  for (const line of await accountLines(log, exchange)) console.log(line);
  stopOnSignals(running);
  return running;
}

/** The accounts a developer may act as, with the agent's name and key when the scenario loads by its name. */
async function accountLines(log: InputLogHeader, exchange: Exchange): Promise<string[]> {
  const trusted = !exchange.config.gateway.verifySignatures;
  const names = await agentNamesByWallet(log.scenario);
  const lines = [
    trusted
      ? "  trusted-mode run: signatures are not checked; to act as an account, send its owner wallet (below) as signerWallet with any 65-byte signature"
      : "  signed-mode run: sign as an account's owner with the agent's key below, or add your own key: POST /admin/signers {accountId, signer}",
  ];
  lines.push("  nonces: each signer's must exceed its last accepted one (the run's agents used their virtual time in µs; that time x 1000 is above them)");
  const accounts = [...exchange.risk.state.accounts.values()].sort((a, b) => a.id - b.id);
  for (const account of accounts) {
    const name = names.get(account.wallet.address);
    if (name === undefined) continue;
    lines.push(`    account ${String(account.id).padEnd(4)} ${name.padEnd(20)} wallet ${account.wallet.address}${trusted ? "" : ` key ${agentPrivateKey(name)}`}`);
  }
  if (names.size === 0) lines.push(`    (scenario "${log.scenario}" does not load by its name: the state JSON lists the accounts and their owner wallets)`);
  return lines;
}

async function agentNamesByWallet(scenarioName: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  try {
    const loaded = await loadScenario(scenarioName);
    if (loaded.scenario.name !== scenarioName) return names;
    for (const agent of loaded.scenario.agents) names.set(privateKeySigner(agentPrivateKey(agent.name)).address.toLowerCase(), agent.name);
  } catch {
    // The log's scenario is a file we cannot find by its name: the accounts are listed without names.
  }
  return names;
}
