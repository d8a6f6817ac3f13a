/**
 * Replay of an input log (input-log.ts): a fresh Exchange from the log's
 * configuration and seed re-executes every step at its virtual time (an
 * input through `handle`, a timer step through `advanceTo`), and the run
 * fingerprint after each step is compared with the one recorded. The first
 * step whose fingerprint differs is where the replay diverges: the outputs
 * up to the step before were the same, byte for byte.
 */
import { readFileSync } from "node:fs";
import { RecordBatchStreamReader, Table, tableFromIPC, type RecordBatch } from "apache-arrow";
import { Fingerprint } from "../core/fingerprint.ts";
import { Exchange } from "../exchange/exchange.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import { configFromJson, INPUT_LOG_FORMAT } from "./input-log.ts";

/** One step of a log. */
export interface LoggedStep {
  readonly index: number;
  readonly timeMicros: number;
  readonly kind: string;
  /** The input (undefined for a timer step). */
  readonly input: ExchangeInput | undefined;
  /** The recorded fingerprint after the step (a 16-digit prefix or all 64). */
  readonly fingerprint: string;
}

export interface InputLog {
  readonly scenario: string;
  readonly seed: number;
  readonly startMicros: number;
  readonly signatures: string;
  readonly configJson: string;
  readonly steps: readonly LoggedStep[];
}

export interface ReplayResult {
  readonly steps: number;
  /** The fingerprint after the last step replayed. */
  readonly fingerprint: string;
  /** The first step whose fingerprint differs, with both; undefined when every step matched. */
  readonly divergence?: { readonly step: LoggedStep; readonly replayed: string };
}

export class InputLogError extends Error {
  override readonly name = "InputLogError";
}

/** An Arrow IPC file starts with this magic; a stream with a message. */
const ARROW_FILE_MAGIC = "ARROW1";

/**
 * The log's table: an Arrow IPC file (a simulated run) read whole; an Arrow
 * IPC stream (the live server, live-input-log.ts) read up to its last
 * complete record batch, since a killed server leaves the batch it was
 * writing cut short and no end-of-stream marker.
 */
function readLogTable(path: string): Table {
  const bytes = readFileSync(path);
  if (bytes.subarray(0, ARROW_FILE_MAGIC.length).toString("latin1") === ARROW_FILE_MAGIC) return tableFromIPC(bytes);
  let reader: RecordBatchStreamReader;
  try {
    reader = RecordBatchStreamReader.from(bytes).open();
  } catch (error) {
    throw new InputLogError(`${path}: not an Arrow IPC stream or file: ${(error as Error).message}`);
  }
  if (reader.schema === undefined || reader.schema === null) throw new InputLogError(`${path}: no Arrow schema: not a shadowbook input log`);
  const batches: RecordBatch[] = [];
  try {
    for (const batch of reader) batches.push(batch);
  } catch {
    // A message cut short by a crash: the batches before it are complete.
  }
  return new Table(reader.schema, batches);
}

export function readInputLog(path: string): InputLog {
  const table = readLogTable(path);
  const meta = table.schema.metadata;
  const need = (key: string): string => {
    const value = meta.get(key);
    if (value === undefined) throw new InputLogError(`${path}: schema metadata "${key}" is missing: not a shadowbook input log`);
    return value;
  };
  if (need("shadowbook.format") !== INPUT_LOG_FORMAT) throw new InputLogError(`${path}: format "${meta.get("shadowbook.format")}" is not ${INPUT_LOG_FORMAT}`);
  const time = table.getChild("timeMicros")!;
  const kind = table.getChild("kind")!;
  const payload = table.getChild("payload")!;
  const fingerprint = table.getChild("fingerprint")!;
  const steps: LoggedStep[] = [];
  for (let index = 0; index < table.numRows; index++) {
    const text = payload.get(index) as string | null;
    steps.push({
      index,
      timeMicros: Number(time.get(index) as bigint | number),
      kind: kind.get(index) as string,
      input: text === null ? undefined : (JSON.parse(text) as ExchangeInput),
      fingerprint: fingerprint.get(index) as string,
    });
  }
  return {
    scenario: need("shadowbook.scenario"),
    seed: Number(need("shadowbook.seed")),
    startMicros: Number(need("shadowbook.startMicros")),
    signatures: need("shadowbook.signatures"),
    configJson: need("shadowbook.config"),
    steps,
  };
}

/** Replays `log` (up to `untilMicros`, inclusive, when given) and compares every step's fingerprint. */
export function replayInputLog(log: InputLog, options: { untilMicros?: number; steps?: readonly LoggedStep[] } = {}): ReplayResult & { exchange: Exchange } {
  const exchange = new Exchange({ config: configFromJson(log.configJson), startMicros: log.startMicros, seed: log.seed });
  const fingerprint = new Fingerprint();
  // Detached at the end: the Exchange may go on (replay --serve) without hashing what follows.
  const detach = exchange.subscribe((output) => fingerprint.update(output));
  const steps = options.steps ?? log.steps;
  let replayed = 0;
  let digest = fingerprint.digest();
  try {
    for (const step of steps) {
      if (options.untilMicros !== undefined && step.timeMicros > options.untilMicros) break;
      if (step.input === undefined) exchange.advanceTo(step.timeMicros);
      else exchange.handle(step.input, step.timeMicros);
      replayed++;
      digest = fingerprint.digest();
      if (!digest.startsWith(step.fingerprint)) return { steps: replayed, fingerprint: digest, divergence: { step, replayed: digest }, exchange };
    }
    return { steps: replayed, fingerprint: digest, exchange };
  } finally {
    detach();
  }
}
