/**
 * A damaged value in an input log's fingerprint column: a recorded
 * fingerprint is always 16 or 64 lowercase hex digits, so one that is not
 * is damage to the log, refused naming the step (with the value escaped),
 * not reported as a divergence with its broken bytes printed raw. A recorded
 * fingerprint that is hex but not the replay's is still a divergence.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Table, tableFromIPC, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import scenario from "../../scenarios/default.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { InputLogError, readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";

let dir: string;
let bytes: Buffer;
let table: Table;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-fingerprint-column-"));
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 5, observers: [recorder] });
  const path = join(dir, "inputs.arrow");
  recorder.write(path);
  bytes = readFileSync(path);
  table = tableFromIPC(bytes);
}, 120_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The log with the fingerprint of step `index` replaced by `value`. */
function withFingerprint(name: string, index: number, value: string | null): string {
  const column = table.getChild("fingerprint")!;
  const values: (string | null)[] = [];
  for (let row = 0; row < table.numRows; row++) values.push(row === index ? value : (column.get(row) as string));
  return file(name, tableToIPC(table.setChild("fingerprint", vectorFromArray(values, new Utf8())), "file"));
}

/** The message of the InputLogError readInputLog throws for `path`. */
function refusal(path: string): string {
  try {
    readInputLog(path);
  } catch (error) {
    expect(error).toBeInstanceOf(InputLogError);
    return (error as Error).message;
  }
  return expect.fail(`${path} was read`);
}

describe("a damaged fingerprint value", () => {
  it("bytes damaged inside a fingerprint cell of the file: refused as corrupt, naming the step, the value escaped", () => {
    // A step from the middle whose fingerprint occurs once in the file (a step with no output repeats the one before).
    const column = table.getChild("fingerprint")!;
    let step = Math.floor(table.numRows / 2);
    const once = (text: string) => bytes.indexOf(Buffer.from(text, "latin1")) === bytes.lastIndexOf(Buffer.from(text, "latin1"));
    while (!once(column.get(step) as string)) step++;
    const recorded = column.get(step) as string;
    expect(recorded).toMatch(/^[0-9a-f]{16}$/);
    const at = bytes.indexOf(Buffer.from(recorded, "latin1"));
    expect(at).toBeGreaterThan(0);
    const damaged = Buffer.from(bytes);
    damaged[at + 1] = 0xff;
    damaged[at + 2] = 0x0a;
    const message = refusal(file("damaged-cell.arrow", damaged));
    expect(message).toBe(`input log "${join(dir, "damaged-cell.arrow")}" is corrupt: the fingerprint of step ${step} is "${recorded[0]}\\ufffd\\u000a${recorded.slice(3)}", not 16 or 64 hex digits`);
    expect(message).not.toMatch(/DIVERGES|[^\x20-\x7e]/);
  });

  it("not hex, of another length, upper case, or null: refused, naming the step", () => {
    const step = 7;
    const good = table.getChild("fingerprint")!.get(step) as string;
    expect(refusal(withFingerprint("not-hex.arrow", step, `${good.slice(0, 15)}g`))).toMatch(new RegExp(`is corrupt: the fingerprint of step ${step} is "${good.slice(0, 15)}g", not 16 or 64 hex digits$`));
    expect(refusal(withFingerprint("short.arrow", step, good.slice(0, 15)))).toMatch(new RegExp(`the fingerprint of step ${step} is "${good.slice(0, 15)}", not 16 or 64 hex digits$`));
    expect(refusal(withFingerprint("upper.arrow", step, good.toUpperCase()))).toMatch(/the fingerprint of step 7 is "[0-9A-F]{16}", not 16 or 64 hex digits$/);
    expect(refusal(withFingerprint("null.arrow", step, null))).toMatch(/the fingerprint of step 7 is missing \(null\), not 16 or 64 hex digits$/);
    expect(refusal(withFingerprint("long.arrow", step, "x".repeat(200)))).toMatch(/the fingerprint of step 7 is "x{80}"\.\.\. \(200 characters\), not 16 or 64 hex digits$/);
  });

  it("a fingerprint that is hex but not the replay's is still a divergence at that step", () => {
    const step = 7;
    const good = table.getChild("fingerprint")!.get(step) as string;
    const other = `${good[0] === "0" ? "1" : "0"}${good.slice(1)}`;
    const log = readInputLog(withFingerprint("other-hex.arrow", step, other));
    const result = replayInputLog(log);
    expect(result.divergence?.step.index).toBe(step);
    expect(result.divergence?.step.fingerprint).toBe(other);
  });

  it("the log as written reads and replays in full", () => {
    const log = readInputLog(join(dir, "inputs.arrow"));
    const result = replayInputLog(log);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(table.numRows);
  });
});
