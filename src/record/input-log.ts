/**
 * The input log of a run (`inputs.arrow`), format "input-log/1": every input
 * the Exchange handled, with its virtual time, in order, and every step where
 * only the Exchange's timers ran; enough to replay the run to the same
 * outputs (src/record/replay.ts). A simulated run writes it at the end as an
 * Arrow IPC file (InputLogRecorder, below); the live server
 * (`shadowbook serve --record`) appends it as an Arrow IPC stream, one record
 * batch per group commit (live-input-log.ts). Same columns, same metadata,
 * one reader and one replay for both.
 *
 * Columns:
 * | column      | type                | meaning                                                         |
 * |-------------|---------------------|-----------------------------------------------------------------|
 * | timeMicros  | Int64               | virtual time of the step, microseconds since the epoch          |
 * | kind        | Dictionary<Utf8>    | request, prices, admin, fault, or advance (timers only)         |
 * | op          | Dictionary<Utf8>    | the order-entry operation of a request, else null               |
 * | payload     | Utf8                | the input as JSON (null for advance; see below)                 |
 * | fingerprint | Utf8                | the run fingerprint after the step: its first 16 hex digits     |
 * |             |                     | on every step, all 64 on the last and on every 10,000th          |
 * |             |                     | (live: on the last of every batch, as any batch may be the last) |
 *
 * Schema metadata: `shadowbook.format` ("input-log/1"), `shadowbook.code`
 * (the code that recorded the log, "0.1.0+3f2a9c1b7e40": code-id.ts; logs
 * written before it have none, and replay says so), `shadowbook.replayCode`
 * (the same over src/ and the dependencies only, without agents/: the code
 * a replay runs; logs written before it have none), `shadowbook.node` (the
 * Node.js major version that recorded it, "20"), `shadowbook.config`
 * (the ExchangeConfig as JSON, bigints as {"$bigint": "..."}), `shadowbook.seed`,
 * `shadowbook.startMicros`, `shadowbook.scenario`, `shadowbook.signatures`;
 * in a simulated run's log, `shadowbook.command` (the `shadowbook run`
 * command that re-runs it, agents included: src/sim/command-line.ts);
 * and, only in the log of a run that failed (a fuzz seed's, written by
 * `InputLogRecorder.write(path, { failed: true })`),
 * `shadowbook.failedAfterOutputs`: the outputs the run's fingerprint covers.
 * A failure may stop a step part way (an invariant fails on one of its
 * outputs): the last fingerprint is then that of the outputs before the
 * failure, and a replay, which runs every step to its end, fingerprints only
 * that many outputs, so that it matches the failing run instead of
 * diverging at its last step.
 * A fingerprint on every step lets a replay name the exact step where it
 * diverges; the prefix keeps that to 16 bytes a step.
 *
 * A payload is the input as JSON.stringify writes it, so a request body
 * holding a number JSON cannot carry is logged as JSON can: 1e400 (which
 * JSON.parse made Infinity) as null, -0 as 0. Such a body is rejected live
 * (NUMERIC_OVERFLOW_ERROR) and again on replay, perhaps with another code or
 * message; rejections are not outputs, so the fingerprint and the state
 * replay the same.
 */
import { rmSync, writeFileSync } from "node:fs";
import type { Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import type { RunObserver, RunSetup } from "../sim/run.ts";
import type { SimWorld } from "../sim/world.ts";
import { codeIdentity, nodeMajor, replayCodeIdentity } from "./code-id.ts";
import { ColumnTable, DictColumn, I64Column, Utf8Column, type Column } from "./columns.ts";

export const INPUT_LOG_FORMAT = "input-log/1";
export const FINGERPRINT_PREFIX_DIGITS = 16;
export const FULL_FINGERPRINT_EVERY = 10_000;
export const INPUT_KINDS = ["request", "prices", "admin", "fault", "advance"] as const;
/** Schema metadata of a failed run's log: the outputs its fingerprint covers (see above). */
export const FAILED_AFTER_OUTPUTS_KEY = "shadowbook.failedAfterOutputs";
/** Schema metadata: the code identity of the process that recorded the log (code-id.ts). */
export const CODE_KEY = "shadowbook.code";
/** Schema metadata: the replay identity of the process that recorded the log (code-id.ts replayCodeIdentity: without agents/). */
export const REPLAY_CODE_KEY = "shadowbook.replayCode";
/** Schema metadata, only in a simulated run's log: the `shadowbook run` command that re-runs it, agents included (src/sim/command-line.ts). */
export const COMMAND_KEY = "shadowbook.command";
/** Schema metadata: the Node.js major version of the process that recorded the log (code-id.ts nodeMajor). */
export const NODE_KEY = "shadowbook.node";

/** JSON with bigints as {"$bigint": "<decimal>"} (the signing config's chain id is one). */
export function configToJson(config: ExchangeConfig): string {
  return JSON.stringify(config, (_key, value: unknown) => (typeof value === "bigint" ? { $bigint: value.toString() } : value));
}

export function configFromJson(text: string): ExchangeConfig {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === "$bigint") return BigInt((value as { $bigint: string }).$bigint);
    }
    return value;
  }) as ExchangeConfig;
}

/** The sections of an ExchangeConfig and the JSON type of each (ExchangeConfig, src/exchange/config.ts). */
const CONFIG_SECTIONS: readonly (readonly [keyof ExchangeConfig, "object" | "number"])[] = [
  ["risk", "object"],
  ["engine", "object"],
  ["chain", "object"],
  ["gateway", "object"],
  ["signing", "object"],
  ["orderHistoryPerAccount", "number"],
  ["recordsRetained", "number"],
];

/**
 * Why a parsed `shadowbook.config` is not the outline of an ExchangeConfig
 * (an object with every section, each of its type), or undefined. Only the
 * outline: the Exchange checks what is inside the sections.
 */
export function configOutlineProblem(value: unknown): string | undefined {
  if (jsonKind(value) !== "an object") return `it is ${jsonKind(value)}, not an object`;
  const config = value as Record<string, unknown>;
  const missing = CONFIG_SECTIONS.filter(([key]) => !Object.hasOwn(config, key)).map(([key]) => `"${key}"`);
  if (missing.length > 0) return `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing`;
  for (const [key, type] of CONFIG_SECTIONS) {
    const expected = type === "object" ? "an object" : "a number";
    if (jsonKind(config[key]) !== expected) return `"${key}" must be ${expected}, not ${jsonKind(config[key])}`;
  }
  return undefined;
}

/** What a parsed JSON value is, with its article: "an object", "an array", "null", "a string", ... */
function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** What a replay needs to rebuild the same Exchange: the schema metadata of every input log. */
export interface InputLogSetup {
  readonly config: ExchangeConfig;
  readonly seed: number | string;
  readonly startMicros: Micros;
  /** The scenario's name ("serve" for the live server's built-in world). */
  readonly scenario: string;
  /** "signed" or "trusted" (a live server is always "signed"). */
  readonly signatures: string;
  /** The code that records the log (code-id.ts); default: this process's, codeIdentity(). */
  readonly code?: string;
  /** Its replay identity (code-id.ts); default: this process's, replayCodeIdentity(), unless `code` is given (then none). */
  readonly replayCode?: string;
  /** The `shadowbook run` command that re-runs the run (src/sim/command-line.ts); none for a live server's log. */
  readonly command?: string;
  /** The Node.js major version that records the log; default: this process's, nodeMajor(). */
  readonly node?: string;
}

export function inputLogMetadata(setup: InputLogSetup): Map<string, string> {
  return new Map([
    ["shadowbook.format", INPUT_LOG_FORMAT],
    [CODE_KEY, setup.code ?? codeIdentity()],
    // Given another code but no replay identity (a test's), the log names none rather than this process's: the two would disagree.
    ...(setup.replayCode !== undefined ? [[REPLAY_CODE_KEY, setup.replayCode] as const] : setup.code === undefined ? [[REPLAY_CODE_KEY, replayCodeIdentity()] as const] : []),
    [NODE_KEY, setup.node ?? nodeMajor()],
    ["shadowbook.config", configToJson(setup.config)],
    ["shadowbook.seed", String(setup.seed)],
    ["shadowbook.startMicros", String(setup.startMicros)],
    ["shadowbook.scenario", setup.scenario],
    ["shadowbook.signatures", setup.signatures],
    ...(setup.command === undefined ? [] : [[COMMAND_KEY, setup.command] as const]),
  ]);
}

/**
 * The columns of an input log, in order: one layout for the simulated run's
 * recorder (below) and the live server's log (live-input-log.ts). A row is
 * `pushStep` then, once the step ran, `pushFingerprint`.
 */
export class InputLogColumns {
  private readonly time = new I64Column("timeMicros");
  // Fixed dictionary ids: the live log builds its schema from these columns without a ColumnTable.
  private readonly kind = new DictColumn("kind", INPUT_KINDS, 0);
  private readonly op = new DictColumn("op", ["createOrder", "modifyOrder", "cancelOrder", "cancelAll", "cancelAllAfter"], 1);
  private readonly payload = new Utf8Column("payload");
  private readonly fingerprint = new Utf8Column("fingerprint");
  readonly list: readonly Column[] = [this.time, this.kind, this.op, this.payload, this.fingerprint];

  /** A step's time, kind, op and payload (an input, or undefined for a timer-only step). */
  pushStep(atMicros: Micros, input: ExchangeInput | undefined): void {
    // The payload's text first: if it cannot be made, no column has grown (the columns stay in step).
    const payload = input === undefined ? undefined : JSON.stringify(input);
    this.time.push(atMicros);
    this.kind.push(input === undefined ? "advance" : input.kind);
    this.op.pushOptional(input?.kind === "request" ? input.op : undefined);
    this.payload.pushOptional(payload);
  }

  /** The fingerprint after step number `stepNumber` (1-based): all 64 digits when `full` or on every FULL_FINGERPRINT_EVERY-th step, else the prefix. */
  pushFingerprint(digest: string, stepNumber: number, full: boolean): void {
    const all = full || stepNumber % FULL_FINGERPRINT_EVERY === 0;
    this.fingerprint.push(all ? digest : digest.slice(0, FINGERPRINT_PREFIX_DIGITS));
  }
}

export interface InputLogRecorderOptions {
  /** The code identity the log names (`shadowbook.code`); default: this process's (code-id.ts). */
  readonly code?: string;
  /** The replay identity the log names (`shadowbook.replayCode`); default: this process's (code-id.ts). */
  readonly replayCode?: string;
  /** The `shadowbook run` command the log names (`shadowbook.command`: src/sim/command-line.ts); none when not given. */
  readonly command?: string;
  /**
   * Write the log to this file while the run runs, a batch at a time
   * (ColumnTable.streamTo), rather than hold it to `write()`: what `run
   * --out` does (an hour of the default scenario logs ~10 MB). The same
   * bytes; `write()` then takes no path, and `abandon()` removes the file.
   */
  readonly streamTo?: string;
}

/**
 * A RunObserver that records the input log; `write(path)` after the run
 * (or, streamed, `write()`). The fingerprint of a step is read after it
 * ran, so it is taken when the next step (or the end) comes.
 */
export class InputLogRecorder implements RunObserver {
  private readonly columns = new InputLogColumns();
  private readonly provenance: Pick<InputLogSetup, "code" | "replayCode" | "command">;
  private world: SimWorld | undefined;
  private table: ColumnTable | undefined;
  private steps = 0;
  private open = false;
  /** The file the log streams to (InputLogRecorderOptions.streamTo), or undefined: held to write(path). */
  private readonly streamPath: string | undefined;

  constructor(options: InputLogRecorderOptions = {}) {
    this.streamPath = options.streamTo;
    this.provenance = {
      ...(options.code === undefined ? {} : { code: options.code }),
      ...(options.replayCode === undefined ? {} : { replayCode: options.replayCode }),
      ...(options.command === undefined ? {} : { command: options.command }),
    };
  }

  begin(setup: RunSetup): void {
    this.world = setup.world;
    const metadata = inputLogMetadata({
      config: setup.config,
      seed: setup.seed,
      startMicros: setup.startMicros,
      scenario: setup.scenario.name,
      signatures: setup.signatures,
      ...this.provenance,
    });
    this.table = new ColumnTable("inputs", this.columns.list, undefined, metadata);
    if (this.streamPath !== undefined) this.table.streamTo(this.streamPath);
  }

  input(atMicros: Micros, input: ExchangeInput): void {
    this.step(atMicros, input);
  }

  advance(atMicros: Micros): void {
    this.step(atMicros, undefined);
  }

  private step(atMicros: Micros, input: ExchangeInput | undefined): void {
    this.closeStep(false);
    this.columns.pushStep(atMicros, input);
    this.open = true;
  }

  /** Steps recorded so far. */
  get stepCount(): number {
    return this.steps + (this.open ? 1 : 0);
  }

  private closeStep(last: boolean): void {
    if (!this.open) return;
    this.steps++;
    this.columns.pushFingerprint(this.world!.fingerprint.digest(), this.steps, last);
    this.table!.endRow();
    this.open = false;
  }

  /**
   * Writes the log (call once, after the run). `failed`: the run stopped on a
   * failure, perhaps inside its last step; the log then says how many
   * outputs its last fingerprint covers (FAILED_AFTER_OUTPUTS_KEY).
   */
  write(path?: string, options: { readonly failed?: boolean } = {}): void {
    if (this.table === undefined) throw new Error("InputLogRecorder.write before the run began");
    if ((path === undefined) !== (this.streamPath !== undefined)) {
      throw new Error(this.streamPath === undefined ? "InputLogRecorder.write needs the log's path" : `InputLogRecorder.write: the log is streamed to ${this.streamPath}, not written to ${path}`);
    }
    this.closeStep(true);
    // Streamed too: the schema and its metadata are in the file's footer, written at close.
    if (options.failed === true) this.table.setMetadata(FAILED_AFTER_OUTPUTS_KEY, String(this.world!.fingerprint.count));
    if (path === undefined) this.table.close();
    else writeFileSync(path, this.table.toIPC());
  }

  /** Streamed, after a run that failed: closes the log's file and removes it. */
  abandon(): void {
    if (this.streamPath === undefined || this.table === undefined) return;
    this.table.abandon();
    rmSync(this.streamPath, { force: true });
  }
}
