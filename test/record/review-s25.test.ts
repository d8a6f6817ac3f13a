/**
 * Review s25 of recording and replay (src/record): defects found, each
 * shown by a test here.
 *
 * 1. A crash that leaves the in-flight commit's last pages unwritten
 *    (zeros from some byte of the last record batch to the end of the file;
 *    the walk already treats zeros from a message's start as a cut) makes
 *    the whole live log refused as corrupt, instead of replaying its
 *    complete batches (README "Serve a live mock": "A log cut short by a
 *    crash replays its complete batches").
 * 2. A log too large for one read (over 2 GiB, a long recorded load test)
 *    is refused with Node's error code (ERR_FS_FILE_TOO_LARGE) instead of
 *    words. (Since session 28 a live log, an Arrow IPC stream, is never read
 *    whole, and replays at any size: test/record/replay-large-log.test.ts.
 *    A simulated run's log, an Arrow IPC file, is still read whole.)
 * 3. A run that fails inside a step (an output listener throwing, as
 *    ExchangeInvariants does for `fuzz` and `run --invariants`): the log's
 *    last fingerprint is that of a step cut short, which a replay running
 *    the step to its end could not reproduce, so the log of a failing fuzz
 *    seed "DIVERGED" at its last step. The log of a failed run now says how
 *    many outputs its fingerprint covers (`write(path, { failed: true })`,
 *    as `shadowbook fuzz` writes it), and the replay hashes no more.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, ftruncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { LiveInputLog } from "../../src/record/live-input-log.ts";
import { fileReadProblem } from "../../src/record/read-file.ts";
import { readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { runScenario } from "../../src/sim/runner.ts";
import type { SimWorld } from "../../src/sim/world.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { fixtureScenario } from "./run-fixture.ts";

const START_MICROS = 1_767_225_600_000_000;

function directory(): string {
  return mkdtempSync(join(tmpdir(), "shadowbook-review-s25-"));
}

function digestOf(n: number): string {
  return createHash("sha256").update(String(n)).digest("hex");
}

function durable(log: LiveInputLog): Promise<void> {
  return new Promise((resolve) => log.whenDurable(resolve));
}

/** A live log of batches of 3, 5 and 2 steps, as a server killed after its third commit leaves it (no end-of-stream marker). */
async function killedServerLog(): Promise<{ bytes: Buffer; ends: { bytes: number; steps: number }[] }> {
  const log = new LiveInputLog(directory(), {
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 3,
    startMicros: START_MICROS,
    scenario: "serve",
    signatures: "signed",
    durability: "sync",
  });
  const ends: { bytes: number; steps: number }[] = [{ bytes: log.stats.bytes, steps: 0 }];
  let n = 0;
  for (const size of [3, 5, 2]) {
    for (let i = 0; i < size; i++) {
      if (n % 2 === 1) log.advance(START_MICROS + n);
      else log.append(START_MICROS + n, { kind: "prices", prices: [{ asset: "WETH", price: String(2000 + n) }] });
      log.endStep(digestOf(n++));
    }
    await durable(log);
    ends.push({ bytes: log.stats.bytes, steps: n });
  }
  await log.close();
  const bytes = readFileSync(log.path);
  return { bytes: bytes.subarray(0, ends.at(-1)!.bytes), ends };
}

describe("a live log whose last batch a crash left partly unwritten (zeros to the end of the file)", () => {
  it("reads the complete batches before it, the end named as a cut, wherever in the batch the zeros start", async () => {
    const { bytes, ends } = await killedServerLog();
    const lastStart = ends.at(-2)!.bytes;
    // The padding at the end of the last batch's body is zeros already: zeros from there on change nothing.
    let padding = bytes.length;
    while (padding > 0 && bytes[padding - 1] === 0) padding--;
    const path = join(directory(), "zero-tail.arrow");
    for (let from = lastStart; from < bytes.length; from++) {
      const damaged = Buffer.from(bytes);
      damaged.fill(0, from);
      writeFileSync(path, damaged);
      const whole = from >= padding;
      let read;
      try {
        read = readInputLog(path);
      } catch (error) {
        expect.fail(`zeros from byte ${from} (the last batch starts at ${lastStart}, the file is ${bytes.length}): refused: ${(error as Error).message}`);
      }
      expect(read.steps.length, `zeros from byte ${from}`).toBe(whole ? 10 : 8);
      if (!whole) {
        expect(read.end, `zeros from byte ${from}`).toEqual({ kind: "cut", fileBytes: bytes.length, readBytes: lastStart });
        expect(read.steps.at(-1)!.fingerprint).toBe(digestOf(7));
      }
    }
  });

  it("a batch damaged in the middle of the log is still refused (only a zero tail is a crash's)", async () => {
    const { bytes, ends } = await killedServerLog();
    const damaged = Buffer.from(bytes);
    // Zeros over the end of the second batch, a complete third batch after them.
    damaged.fill(0, ends[2]!.bytes - 40, ends[2]!.bytes);
    const path = join(directory(), "zero-middle.arrow");
    writeFileSync(path, damaged);
    expect(() => readInputLog(path)).toThrow(/corrupt/);
  });
});

describe("a log too large to read at once", () => {
  it("an Arrow IPC file (a simulated run's log, read whole) is refused in words, with its size and the limit, not Node's error code", () => {
    const path = join(directory(), "huge.arrow");
    const fd = openSync(path, "w");
    writeSync(fd, Buffer.from("ARROW1\0\0"));
    ftruncateSync(fd, 3 * 1024 ** 3); // sparse: no disk used
    closeSync(fd);
    let message = "";
    try {
      readInputLog(path);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toMatch(/ERR_FS_FILE_TOO_LARGE/);
    expect(message).toMatch(/^input log ".*huge\.arrow" is too large to read: 3,221,225,472 bytes, more than the 2 GiB/);
    expect(fileReadProblem(Object.assign(new RangeError("File size (5) is greater than 2 GiB"), { code: "ERR_FS_FILE_TOO_LARGE" }))).toMatch(/^is too large to read/);
  });

  it("3 GiB of zeros is no Arrow stream, said without reading it whole", () => {
    const path = join(directory(), "zeros.arrow");
    const fd = openSync(path, "w");
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    expect(() => readInputLog(path)).toThrow(/^input log ".*zeros\.arrow" is not an Arrow IPC stream or file$/);
  });
});

describe("a run that fails inside a step", () => {
  it("its log replays to the failure without a divergence (the last step was cut short by the failure)", async () => {
    const recorder = new InputLogRecorder();
    let world: SimWorld | undefined;
    let executions = 0;
    // Throws from an output listener, mid-step, as ExchangeInvariants.observe does on a violation.
    const failing = {
      begin: (setup: { world: SimWorld }) => (world = setup.world),
      output: (output: { kind: string }) => {
        if (output.kind === "perpExecution" && ++executions === 3) throw new Error("an invariant fails here (simulated)");
      },
    };
    await expect(runScenario(fixtureScenario(30), { observers: [recorder, failing] })).rejects.toThrow(/simulated/);
    const failureFingerprint = world!.fingerprint.digest();
    const path = join(directory(), "inputs.arrow");
    recorder.write(path, { failed: true });
    const log = readInputLog(path);
    expect(log.failedAfterOutputs).toBe(world!.fingerprint.count);
    const result = replayInputLog(log);
    expect(result.divergence?.step.index, "the replay diverges at the failing step").toBeUndefined();
    expect(result.steps).toBe(log.steps.length);
    expect(result.fingerprint).toBe(failureFingerprint);
    // The failing step went on past the throw in the replay: its outputs after the failure are counted, not hashed.
    expect(result.outputs).toBeGreaterThan(log.failedAfterOutputs!);
  }, 60_000);
});
