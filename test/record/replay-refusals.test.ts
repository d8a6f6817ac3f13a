/**
 * Input logs that cannot be replayed: each is refused with an InputLogError
 * that names the file and what is wrong with it (never a JavaScript error
 * from apache-arrow, JSON.parse or the Exchange), and a good log still reads
 * and replays in full.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordBatch, Schema, Table, tableFromIPC, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { InputLogError, readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";

/** What no refusal may say: JavaScript's own error text. */
const JS_INTERNALS = /Cannot read propert|is not a function|is not iterable|\(reading '|Unexpected token|in JSON at position|TypeError|SyntaxError|RangeError/;

let dir: string;
let good: string;
let bytes: Buffer;
let table: Table;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-refusals-"));
  good = join(dir, "inputs.arrow");
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 5, observers: [recorder] });
  recorder.write(good);
  bytes = readFileSync(good);
  table = tableFromIPC(bytes);
}, 120_000);

/** Writes `content` as `<dir>/<name>` and returns the path. */
function file(name: string, content: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The good log with its schema metadata edited. */
function withMetadata(name: string, edit: (meta: Map<string, string>) => void): string {
  const meta = new Map(table.schema.metadata);
  edit(meta);
  const schema = new Schema(table.schema.fields, meta);
  return file(name, tableToIPC(new Table(schema, table.batches.map((batch) => new RecordBatch(schema, batch.data))), "file"));
}

/** The good log with the payload of step `index` replaced. */
function withPayload(name: string, index: number, payload: string): string {
  const column = table.getChild("payload")!;
  const payloads: (string | null)[] = [];
  for (let row = 0; row < table.numRows; row++) payloads.push(row === index ? payload : (column.get(row) as string | null));
  return file(name, tableToIPC(table.setChild("payload", vectorFromArray(payloads, new Utf8())), "file"));
}

/** What readInputLog (then replayInputLog) threw for `path`: an InputLogError, whose message is returned. */
function refusal(path: string): string {
  let thrown: unknown;
  try {
    replayInputLog(readInputLog(path));
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `${path} was replayed`).toBeInstanceOf(InputLogError);
  const message = (thrown as Error).message;
  expect(message).not.toMatch(JS_INTERNALS);
  expect(message.startsWith(`input log "${path}"`), message).toBe(true);
  return message;
}

describe("readInputLog and replayInputLog refuse a log that cannot be replayed", () => {
  it("a good log reads and replays in full (the baseline the edits break)", () => {
    const log = readInputLog(good);
    expect(log.path).toBe(good);
    expect(log.steps.length).toBeGreaterThan(10);
    expect(replayInputLog(log).divergence).toBeUndefined();
  });

  it("a path that is missing, or a directory", () => {
    expect(refusal(join(dir, "no-such.arrow"))).toMatch(/does not exist$/);
    const directory = join(dir, "a-directory");
    mkdirSync(directory);
    expect(refusal(directory)).toMatch(/is a directory, not a file$/);
  });

  it("an empty file, random bytes", () => {
    expect(refusal(file("empty.arrow", ""))).toMatch(/is empty: not a shadowbook input log$/);
    expect(refusal(file("random.bin", Buffer.from("this is not Arrow at all, not even close".repeat(20))))).toMatch(/is not an Arrow IPC stream or file$/);
  });

  it("an Arrow file cut short: in half, without its last bytes, after its magic", () => {
    for (const [name, length] of [
      ["half.arrow", Math.floor(bytes.length / 2)],
      ["tail.arrow", bytes.length - 10],
      ["magic.arrow", 8],
    ] as const) {
      expect(refusal(file(name, bytes.subarray(0, length)))).toMatch(new RegExp(`is truncated: an Arrow IPC file ends with its footer and "ARROW1", and this one \\(${length.toLocaleString("en-US")} bytes\\) stops before them$`));
    }
  });

  it("an Arrow stream cut before its schema ends", () => {
    const stream = tableToIPC(table, "stream");
    expect(refusal(file("stream-cut.arrow", stream.subarray(0, 12)))).toMatch(/is truncated: its Arrow IPC stream ends before its schema does$/);
  });

  it("a live log damaged in the middle: refused, where a log cut short by a crash replays its complete batches", () => {
    const third = Math.floor(table.numRows / 3);
    const parts = [table.slice(0, third), table.slice(third, 2 * third), table.slice(2 * third)];
    const whole = Buffer.from(tableToIPC(new Table(parts.flatMap((part) => part.batches)), "stream"));
    expect(readInputLog(file("stream-three-batches.arrow", whole)).steps.length).toBe(table.numRows);
    // The second batch starts where a stream of the first part alone has its end-of-stream marker.
    const second = tableToIPC(parts[0]!, "stream").length - 8;
    expect(whole.readInt32LE(second)).toBe(-1);
    const damaged = Buffer.from(whole);
    damaged.writeInt32LE(-16, second + 4);
    expect(refusal(file("stream-damaged.arrow", damaged))).toMatch(
      new RegExp(`is damaged: message \\d+ \\(at byte ${second.toLocaleString("en-US")}\\) cannot be read, yet a complete message follows at byte [\\d,]+: the bytes were damaged in place, not cut short by a crash$`),
    );
    expect(readInputLog(file("stream-cut.arrow", whole.subarray(0, second + 12))).steps.length).toBe(third);
  });

  it("an Arrow file or stream whose flatbuffer metadata is damaged (checked before apache-arrow decodes it)", () => {
    // The file's footer: the offset of its root table pointed past its end.
    const footerLength = bytes.readInt32LE(bytes.length - 10);
    const footer = Buffer.from(bytes);
    footer.writeUInt32LE(footerLength, bytes.length - 10 - footerLength);
    expect(refusal(file("footer.arrow", footer))).toMatch(new RegExp(`is corrupt: its footer is invalid: the footer: offset ${footerLength} at byte 0 points outside the metadata \\(${footerLength} bytes\\)$`));
    // The live server's stream: the second message (after the schema, which has no body), its root offset likewise.
    const stream = Buffer.from(tableToIPC(table, "stream"));
    const second = 8 + stream.readInt32LE(4);
    stream.writeUInt32LE(1 << 30, second + 8);
    expect(refusal(file("stream-metadata.arrow", stream))).toMatch(
      new RegExp(`is corrupt: the metadata of message 2 \\(at byte ${second.toLocaleString("en-US")}\\) is invalid: the message: offset 1073741824 at byte 0 points outside the metadata \\(\\d+ bytes\\)$`),
    );
  });

  it("a seed or startMicros that is not a non-negative integer", () => {
    expect(refusal(withMetadata("seed.arrow", (meta) => meta.set("shadowbook.seed", "abc")))).toMatch(/schema metadata "shadowbook\.seed" "abc" must be a non-negative integer$/);
    expect(refusal(withMetadata("seed-fraction.arrow", (meta) => meta.set("shadowbook.seed", "1.5")))).toMatch(/"shadowbook\.seed" "1\.5" must be a non-negative integer$/);
    expect(refusal(withMetadata("start.arrow", (meta) => meta.set("shadowbook.startMicros", "abc")))).toMatch(/schema metadata "shadowbook\.startMicros" "abc" must be a non-negative integer$/);
    expect(refusal(withMetadata("start-negative.arrow", (meta) => meta.set("shadowbook.startMicros", "-5")))).toMatch(/"shadowbook\.startMicros" "-5" must be a non-negative integer$/);
  });

  it("a configuration that is not JSON, not an exchange configuration, or one the Exchange refuses", () => {
    expect(refusal(withMetadata("config-text.arrow", (meta) => meta.set("shadowbook.config", "{not json")))).toMatch(/schema metadata "shadowbook\.config" is not valid JSON$/);
    expect(refusal(withMetadata("config-empty.arrow", (meta) => meta.set("shadowbook.config", "{}")))).toMatch(
      /"shadowbook\.config" is not an exchange configuration: "risk", "engine", "chain", "gateway", "signing", "orderHistoryPerAccount", "recordsRetained" are missing$/,
    );
    const config = JSON.parse(table.schema.metadata.get("shadowbook.config")!) as Record<string, unknown>;
    // Missing deep inside: the risk configuration's checks (src/risk/config.ts, since 6f5ded7) name the first field missing.
    expect(refusal(withMetadata("config-risk-empty.arrow", (meta) => meta.set("shadowbook.config", JSON.stringify({ ...config, risk: {} }))))).toMatch(
      /"shadowbook\.config" is not a valid exchange configuration: exchangeId undefined must be a non-negative integer \(UnsignedInteger\)$/,
    );
    const risk = config["risk"] as { perpMarkets: { tickSize: string }[] };
    const tickZero = { ...config, risk: { ...risk, perpMarkets: risk.perpMarkets.map((market, index) => (index === 0 ? { ...market, tickSize: "0" } : market)) } };
    expect(refusal(withMetadata("config-tick.arrow", (meta) => meta.set("shadowbook.config", JSON.stringify(tickZero))))).toMatch(
      /"shadowbook\.config" is not a valid exchange configuration: ETHRUSDPERP\.tickSize "0" must be positive$/,
    );
  });

  it("a column missing or of another type", () => {
    const names = table.schema.fields.map((field) => field.name);
    expect(refusal(file("no-payload.arrow", tableToIPC(table.select(names.filter((name) => name !== "payload")), "file")))).toMatch(/: column "payload" is missing: not a shadowbook input log$/);
    const times = vectorFromArray(Array.from({ length: table.numRows }, () => "soon"), new Utf8());
    const columns = Object.fromEntries(names.map((name) => [name, name === "timeMicros" ? times : table.getChild(name)!]));
    const replaced = new Table(columns);
    const schema = new Schema(replaced.schema.fields, table.schema.metadata);
    const timeText = new Table(schema, replaced.batches.map((batch) => new RecordBatch(schema, batch.data)));
    expect(refusal(file("time-text.arrow", tableToIPC(timeText, "file")))).toMatch(/: column "timeMicros" is Utf8, expected Int64$/);
  });

  it("a payload that is not JSON, named by its step", () => {
    const index = table.getChild("payload")!.toArray().findIndex((payload: string | null) => payload !== null);
    expect(refusal(withPayload("payload-text.arrow", index, "X\"kind\":\"request\"}"))).toMatch(new RegExp(`: the payload of step ${index} is not valid JSON$`));
  });

  it("a step the Exchange cannot take, named by its step", () => {
    const kinds = table.getChild("kind")!;
    let index = 0;
    while (kinds.get(index) !== "prices") index++;
    expect(refusal(withPayload("prices-empty.arrow", index, '{"kind":"prices"}'))).toMatch(
      new RegExp(`: step ${index} \\(prices at \\d+ µs\\) cannot be replayed: its payload is not a valid prices input \\(SHADOWBOOK_DEBUG=1 shows where it failed\\)$`),
    );
  });
});
