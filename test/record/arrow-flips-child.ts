/**
 * The byte-flip property of arrow-files.test.ts, run in a process of its
 * own (`node --max-old-space-size=... --import tsx arrow-flips-child.ts
 * <recording> <input log file> <input log stream> <scratch dir> <recording
 * runs> <input log runs>`),
 * so that a read which allocates without bound ends this process, not the
 * test runner, and is seen as a crash.
 *
 * For each file, fast-check (seed 42) flips 1 to 4 random bytes anywhere in
 * it (the messages' metadata, their bodies, the footer) and reads the result
 * with the real reader: it must be read, or refused with the reader's own
 * error (MdRecordingError, InputLogError) whose message starts with the
 * file's name. Prints one JSON line: runs, reads and refusals per file.
 * Before each read, `<scratch dir>/last-flips.json` says which file and
 * flips it is, so that a crash can be replayed. Both that file and the
 * flipped input log are opened once and rewritten in place for each run
 * (a write at offset 0, a truncate): opening, writing and closing them
 * 16,000 times took about half of this process's time.
 */
import { ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { MdRecordingError, readMdRecording } from "../../src/record/md-recording.ts";
import { InputLogError, readInputLog } from "../../src/record/replay.ts";

const [recordingPath, logFilePath, logStreamPath, scratch, recordingRuns, logRuns] = process.argv.slice(2);

/** Up to 4 bytes of `good` flipped (xor with a non-zero mask), anywhere (positions drawn uniformly: no bias to the start). */
function flips(good: Uint8Array): fc.Arbitrary<[number, number][]> {
  return fc.array(fc.tuple(fc.noBias(fc.nat(good.length - 1)), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 });
}

/** Opens `path` once; the returned function makes its content exactly `content`, in place. */
function rewriter(path: string): (content: string | Uint8Array) => void {
  const fd = openSync(path, "w");
  return (content) => {
    const length = typeof content === "string" ? writeSync(fd, content, 0) : writeSync(fd, content, 0, content.length, 0);
    ftruncateSync(fd, length);
  };
}

const writeLastFlips = rewriter(join(scratch!, "last-flips.json"));

interface Tally {
  runs: number;
  read: number;
  refused: number;
}

/** Runs the property over `good` with `read`, which throws for a refusal; `isRefusal` says whether the error is the reader's own, naming the file. */
function check(file: string, numRuns: number, read: (bytes: Uint8Array) => void, isRefusal: (error: unknown) => boolean): Tally {
  const good = new Uint8Array(readFileSync(file));
  const tally: Tally = { runs: 0, read: 0, refused: 0 };
  fc.assert(
    fc.property(flips(good), (edits) => {
      tally.runs++;
      writeLastFlips(JSON.stringify({ file, flips: edits }));
      const bytes = good.slice();
      for (const [at, mask] of edits) bytes[at] = bytes[at]! ^ mask;
      try {
        read(bytes);
        tally.read++;
      } catch (error) {
        if (!isRefusal(error)) throw error;
        tally.refused++;
      }
    }),
    { seed: 42, numRuns },
  );
  return tally;
}

const recordingName = `md recording "flipped.arrow"`;
const recording = check(
  recordingPath!,
  Number(recordingRuns),
  (bytes) => {
    const read = readMdRecording(bytes, { name: recordingName });
    for (let i = 0; i < read.length; i++) read.frame(i);
  },
  (error) => error instanceof MdRecordingError && error.message.startsWith(recordingName),
);

const logPath = join(scratch!, "flipped-inputs.arrow");
const writeLog = rewriter(logPath);
const readLog = (bytes: Uint8Array) => {
  writeLog(bytes);
  readInputLog(logPath);
};
const isLogRefusal = (error: unknown) => error instanceof InputLogError && error.message.startsWith(`input log "${logPath}"`);
const logFile = check(logFilePath!, Number(logRuns), readLog, isLogRefusal);
const logStream = check(logStreamPath!, Number(logRuns), readLog, isLogRefusal);

process.stdout.write(`${JSON.stringify({ recording, logFile, logStream })}\n`);
