/**
 * `shadowbook replay` says which code recorded the log when it is not this
 * code (src/cli/replay.ts, src/record/code-id.ts): one line naming both
 * identities after the first line; one for a log that names no code (written
 * before logs did); none for a log recorded by this code. On a divergence,
 * a line after the DIVERGES report says whether the code differs (so the
 * divergence may be the code change) or is the same. Exit statuses are
 * unchanged: 0 when every fingerprint matched, 1 on a divergence.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordBatch, Schema, Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { codeIdentity, nodeMajor, replayCodeIdentity } from "../../src/record/code-id.ts";
import { CODE_KEY, InputLogRecorder, NODE_KEY, REPLAY_CODE_KEY } from "../../src/record/input-log.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { runReplay } from "../helpers/replay-command.ts";

const OTHER = "0.0.9+0123456789ab";
const OTHER_REPLAY = "0.0.9+ba9876543210";

let dir: string;
/** A log recorded by this code (the recorder's default). */
let own: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-code-id-"));
  const recorder = new InputLogRecorder();
  await runScenario(scenario, { durationSeconds: 3, observers: [recorder] });
  recorder.write(join(dir, "own.arrow"));
  own = readFileSync(join(dir, "own.arrow"));
}, 120_000);

afterAll(() => {
  vi.restoreAllMocks();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** `bytes` (an input log file) with its schema metadata edited. */
function withMetadata(bytes: Buffer, edit: (meta: Map<string, string>) => void): Buffer {
  const table = tableFromIPC(bytes);
  const meta = new Map(table.schema.metadata);
  edit(meta);
  const schema = new Schema(table.schema.fields, meta);
  return Buffer.from(tableToIPC(new Table(schema, table.batches.map((batch) => new RecordBatch(schema, batch.data))), "file"));
}

/** `bytes` with one digit of the first oracle price changed (same length, so every Arrow offset holds): the replay diverges there. */
function diverging(bytes: Buffer): Buffer {
  const at = bytes.indexOf('"price":"', bytes.indexOf('{"kind":"prices"')) + '"price":"'.length;
  const edited = Buffer.from(bytes);
  edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
  return edited;
}

/** Other code, src/ included (so another replay identity too). */
const otherCode = (meta: Map<string, string>) => meta.set(CODE_KEY, OTHER).set(REPLAY_CODE_KEY, OTHER_REPLAY);
/** Code that differs from this only in agents/: another identity, this replay identity. */
const otherAgents = (meta: Map<string, string>) => meta.set(CODE_KEY, OTHER).set(REPLAY_CODE_KEY, replayCodeIdentity());
const noCode = (meta: Map<string, string>) => {
  meta.delete(CODE_KEY);
  meta.delete(REPLAY_CODE_KEY);
  meta.delete(NODE_KEY);
};
/** A Node major version other than this process's. */
const OTHER_NODE = String(Number(nodeMajor()) + 2);
const otherNode = (meta: Map<string, string>) => meta.set(NODE_KEY, OTHER_NODE);
const noNode = (meta: Map<string, string>) => meta.delete(NODE_KEY);

/** Runs `shadowbook replay` on `bytes` written to `name`; its printed lines, result and exit status. */
async function replay(name: string, bytes: Buffer) {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return runReplay(path);
}

describe("replay names the code that recorded the log", () => {
  it("recorded by this code: no code line, every fingerprint matched, exit status 0", async () => {
    expect(tableFromIPC(own).schema.metadata.get(CODE_KEY)).toBe(codeIdentity());
    expect(tableFromIPC(own).schema.metadata.get(NODE_KEY)).toBe(process.versions.node.split(".")[0]);
    const { lines, result, exitCode } = await replay("own-copy.arrow", own);
    expect(result.code).toEqual({ recorded: codeIdentity(), running: codeIdentity(), kind: "same", node: { recorded: nodeMajor(), running: nodeMajor() } });
    expect(lines).toHaveLength(3);
    expect(lines.join("\n")).not.toMatch(/^ {2}code:|recorded by/m);
    expect(lines.join("\n")).not.toContain(codeIdentity());
    expect(lines[1]).toMatch(/^ {2}[\d,]+ steps replayed in [\d.]+ s, every fingerprint matched$/);
    expect(exitCode).toBeUndefined();
  });

  it("recorded by other code: one line naming both identities, after the first; still exit status 0 when every step matched", async () => {
    const { lines, result, exitCode } = await replay("other.arrow", withMetadata(own, otherCode));
    expect(result.code.kind).toBe("other");
    expect(result.diverged).toBe(false);
    expect(lines[1]).toBe(`  code: recorded by ${OTHER}, replayed by ${codeIdentity()}: the code differs`);
    expect(lines[2]).toMatch(/every fingerprint matched$/);
    expect(lines.filter((line) => line.includes(OTHER))).toHaveLength(1);
    expect(exitCode).toBeUndefined();
  });

  it("recorded by code that differs only in agents/ (its replay identity is this code's): says so, as no code change for a replay", async () => {
    expect(tableFromIPC(own).schema.metadata.get(REPLAY_CODE_KEY)).toBe(replayCodeIdentity());
    const { lines, result, exitCode } = await replay("agents.arrow", withMetadata(own, otherAgents));
    expect(result.code.kind).toBe("agents");
    expect(lines[1]).toBe(`  code: recorded by ${OTHER}, replayed by ${codeIdentity()}: only agents/ differ, which a replay does not run`);
    expect(lines[2]).toMatch(/every fingerprint matched$/);
    expect(exitCode).toBeUndefined();
    const diverged = await replay("agents-diverging.arrow", diverging(withMetadata(own, otherAgents)));
    expect(diverged.exitCode).toBe(1);
    expect(diverged.lines.at(-1)).toBe(
      `  recorded by code that differs from this only in agents/ (${OTHER}), which a replay does not run, on this Node major version (${nodeMajor()}): not a code or runtime change; a determinism bug, or a log altered since it was written`,
    );
  });

  it("a log that names no code (written before logs did): says so", async () => {
    const { lines, result, exitCode } = await replay("old.arrow", withMetadata(own, noCode));
    expect(result.code).toEqual({ recorded: undefined, running: codeIdentity(), kind: "unnamed", node: { recorded: undefined, running: nodeMajor() } });
    expect(lines[1]).toBe(`  code: the log does not name the code that recorded it (written before logs did); replayed by ${codeIdentity()}`);
    expect(exitCode).toBeUndefined();
  });

  it("DIVERGES under other code: the divergence may come from the code change; exit status 1", async () => {
    const { lines, result, exitCode } = await replay("other-diverging.arrow", diverging(withMetadata(own, otherCode)));
    expect(result.diverged).toBe(true);
    expect(exitCode).toBe(1);
    expect(lines[1]).toBe(`  code: recorded by ${OTHER}, replayed by ${codeIdentity()}: the code differs`);
    expect(lines[2]).toMatch(/^ {2}DIVERGES at step \d+ /);
    expect(lines.at(-1)).toBe(
      `  the code differs (recorded by ${OTHER}, replayed by ${codeIdentity()}): the divergence may come from the code change, not nondeterminism; replay with the code that recorded the log to tell`,
    );
  });

  it("DIVERGES under this code and Node major version: neither a code nor a runtime change; exit status 1", async () => {
    const { lines, result, exitCode } = await replay("own-diverging.arrow", diverging(own));
    expect(result.diverged).toBe(true);
    expect(exitCode).toBe(1);
    expect(lines[1]).toMatch(/^ {2}DIVERGES at step \d+ /);
    expect(lines.at(-1)).toBe(
      `  recorded by this code (${codeIdentity()}) on this Node major version (${nodeMajor()}): not a code or runtime change; a determinism bug, or a log altered since it was written`,
    );
    expect(lines.join("\n")).not.toMatch(/code differs|^ {2}node:/m);
  });

  it("DIVERGES under this code, the log naming no Node version: not a code change, the runtime unknown", async () => {
    const { lines, exitCode } = await replay("own-no-node-diverging.arrow", diverging(withMetadata(own, noNode)));
    expect(exitCode).toBe(1);
    expect(lines.at(-1)).toBe(`  recorded by this code (${codeIdentity()}): not a code change; a determinism bug, another Node major version, or a log altered since it was written`);
  });

  it("recorded on another Node major version: one line naming both after the code's; on a divergence under this code, the runtime may be the cause", async () => {
    const matched = await replay("other-node.arrow", withMetadata(own, otherNode));
    expect(matched.result.code.node).toEqual({ recorded: OTHER_NODE, running: nodeMajor() });
    expect(matched.lines[1]).toBe(`  node: recorded on Node ${OTHER_NODE}, replayed on Node ${nodeMajor()}: another major version`);
    expect(matched.lines[2]).toMatch(/every fingerprint matched$/);
    expect(matched.exitCode).toBeUndefined();

    const diverged = await replay("other-node-diverging.arrow", diverging(withMetadata(own, otherNode)));
    expect(diverged.exitCode).toBe(1);
    expect(diverged.lines.at(-1)).toBe(
      `  recorded by this code (${codeIdentity()}) on Node ${OTHER_NODE}, replayed on Node ${nodeMajor()}: another Node major version may change the outputs; replay on Node ${OTHER_NODE} to tell`,
    );

    // Other code and another Node: the code's line, then the Node line.
    const both = await replay("other-both.arrow", withMetadata(own, (meta) => (otherCode(meta), otherNode(meta))));
    expect(both.lines.slice(1, 3)).toEqual([
      `  code: recorded by ${OTHER}, replayed by ${codeIdentity()}: the code differs`,
      `  node: recorded on Node ${OTHER_NODE}, replayed on Node ${nodeMajor()}: another major version`,
    ]);
  });

  it("DIVERGES, the log naming no code: the divergence may come from a code change since", async () => {
    const { lines, exitCode } = await replay("old-diverging.arrow", diverging(withMetadata(own, noCode)));
    expect(exitCode).toBe(1);
    expect(lines.at(-1)).toBe("  the log does not name its code: the divergence may come from a code change since it was recorded, not nondeterminism");
  });

  it("a code identity that is not one (control characters, bidi marks, too long) is printed quoted, escaped and cut, never raw", async () => {
    const hostile = `0.1.0+abc\n\u001b[2J\u009b31m\u202e${"x".repeat(200)}`;
    const { lines } = await replay("hostile.arrow", withMetadata(own, (meta) => meta.set(CODE_KEY, hostile).set(REPLAY_CODE_KEY, hostile)));
    const escaped = `"0.1.0+abc\\u000a\\u001b[2J\\u009b31m\\u202e${"x".repeat(80 - 19)}"... (${hostile.length} characters)`;
    expect(lines[1]).toBe(`  code: recorded by ${escaped}, replayed by ${codeIdentity()}: the code differs`);
    expect(lines.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});
