/**
 * Market-data recording benchmark (md-recording/1, src/record/md-recording.ts).
 *
 * Workload: ROWS rows of realistic frames: the depth UPDATEs and the perp
 * and spot executions of data/default-sample.arrow (about 230 and 580 bytes,
 * 330 on average; a synthetic pool of the same shapes when the file is
 * missing), cycled, receive times a few µs apart, written to a file in the
 * temp directory (SHADOWBOOK_BENCH_DIR overrides it).
 *
 * - `rowsPerSec` (against the 2,000,000 target): MdRecordingWriter.append
 *   of every row (the envelope given), batches of 65,536 rows cut and
 *   written to the file as they fill, `close()` included; `MBPerSec` is
 *   the file's bytes over that time.
 * - `recorderPath`: the same rows as `shadowbook record` handles a frame:
 *   scanEnvelope (type, channel, timestamp from the bytes), then append.
 * - `diskFloor`: the same number of bytes written raw (16 MB writeSync
 *   calls): how much of `seconds` the file system alone takes here.
 * - `peer`: the same rows, columns and batch size through apache-arrow's
 *   builder API (`makeBuilder` per column, one `append` per value, `flush`
 *   per batch) and `tableToIPC(..., "stream")` per batch, each written to
 *   the file: the usual way to make Arrow from rows in JavaScript.
 *   `ratio` = rowsPerSec / peer rowsPerSec.
 *
 * Each figure is the best of RUNS runs; `cpu` figures divide by the
 * process's CPU time (user + system) rather than wall time, which holds up
 * better when other work shares the cores. Prints one JSON line; never fails.
 */
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Binary, Dictionary, Field, Int32, Int64, makeBuilder, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, Utf8, type Builder } from "apache-arrow";
import { kindOfType, MdRecordingWriter, readMdRecording, scanEnvelope, type MdRowKind } from "../../src/record/md-recording.ts";

const ROWS = Number(process.env["SHADOWBOOK_BENCH_ROWS"] ?? 2_000_000);
const TARGET_ROWS_PER_SEC = 2_000_000;
const BATCH_ROWS = 65_536;
const SAMPLE = join(import.meta.dirname, "../../data/default-sample.arrow");

interface Frame {
  bytes: Uint8Array;
  kind: MdRowKind;
  channel: string;
  timestampMs: number;
}

/** Depth updates and executions from the sample, in their recorded proportions. */
function framePool(): { frames: Frame[]; source: string } {
  const frames: Frame[] = [];
  if (existsSync(SAMPLE)) {
    const sample = readMdRecording(SAMPLE);
    for (let i = 0; i < sample.length; i++) {
      const channel = sample.channel(i)!;
      if (sample.kind(i) !== "data" || !/(depth|Executions)$/.test(channel)) continue;
      frames.push({ bytes: sample.frame(i)!.slice(), kind: "data", channel, timestampMs: sample.timestampMs(i)! });
    }
    if (frames.length > 0) return { frames, source: "data/default-sample.arrow" };
  }
  const depth = "/v2/market/ETHRUSDPERP/depth";
  const executions = "/v2/market/ETHRUSDPERP/perpExecutions";
  for (let i = 0; i < 1_000; i++) {
    const timestampMs = 1_767_225_600_000 + i * 7;
    const px = (3_000 + (i % 50) * 0.1).toFixed(1);
    const text =
      i % 3 === 2
        ? `{"type":"channel_data","timestamp":${timestampMs},"channel":"${executions}","data":[{"exchangeId":1,"symbol":"ETHRUSDPERP","takerAccountId":${10 + (i % 7)},"makerAccountId":4,"makerOrderId":"${90_000 + i}","qty":"0.${(i % 9) + 1}","side":"${i % 2 === 0 ? "B" : "S"}","price":"${px}","takerFee":"0.${i % 97}","makerFee":"-0.01","takerOpeningFee":"0","type":"NORMAL","timestamp":${timestampMs},"sequenceNumber":${i},"fillId":"${500_000 + i}","takerRealizedPnl":"1.25","takerPriceVariationPnl":"1.25","takerFundingPnl":"0","makerRealizedPnl":"-1.25","makerPriceVariationPnl":"-1.25","makerFundingPnl":"0"}]}`
        : `{"type":"channel_data","timestamp":${timestampMs},"channel":"${depth}","data":{"symbol":"ETHRUSDPERP","type":"UPDATE","bids":[{"px":"${px}","qty":"${(i % 13) + 1}.5"}],"asks":[{"px":"${(Number(px) + 1).toFixed(1)}","qty":"0"}],"updatedAt":${timestampMs}}}`;
    frames.push({ bytes: Buffer.from(text), kind: "data", channel: i % 3 === 2 ? executions : depth, timestampMs });
  }
  return { frames, source: "synthetic" };
}

const START_MICROS = 1_767_225_600_000_000;
const channelsOf = (frames: readonly Frame[]) => [...new Set(frames.map((frame) => frame.channel))];

/** The recorder's path: scan each frame's envelope, append. */
function recorderPath(path: string, frames: readonly Frame[]): void {
  const writer = new MdRecordingWriter(path, { source: "bench", channels: channelsOf(frames), startMicros: START_MICROS }, { batchRows: BATCH_ROWS });
  const n = frames.length;
  for (let row = 0; row < ROWS; row++) {
    const bytes = frames[row % n]!.bytes;
    const envelope = scanEnvelope(bytes)!;
    writer.append(START_MICROS + row * 3, kindOfType(envelope.type)!, envelope.channel, envelope.timestampMs, bytes);
  }
  writer.close();
}

/** Append alone (the envelope known). */
function appendOnly(path: string, frames: readonly Frame[]): void {
  const writer = new MdRecordingWriter(path, { source: "bench", channels: channelsOf(frames), startMicros: START_MICROS }, { batchRows: BATCH_ROWS });
  const n = frames.length;
  for (let row = 0; row < ROWS; row++) {
    const frame = frames[row % n]!;
    writer.append(START_MICROS + row * 3, frame.kind, frame.channel, frame.timestampMs, frame.bytes);
  }
  writer.close();
}

/** The peer: apache-arrow builders, one value at a time, and tableToIPC per batch. */
function builderPeer(path: string, frames: readonly Frame[]): void {
  const schema = new Schema([
    new Field("recvMicros", new Int64(), false),
    new Field("kind", new Dictionary(new Utf8(), new Int32()), false),
    new Field("channel", new Dictionary(new Utf8(), new Int32()), true),
    new Field("timestampMs", new Int64(), true),
    new Field("frame", new Binary(), true),
  ]);
  const builders = schema.fields.map((field) => makeBuilder({ type: field.type, nullValues: [null] })) as Builder[];
  const [recv, kind, channel, timestamp, frame] = builders as [Builder, Builder, Builder, Builder, Builder];
  const fd = openSync(path, "w");
  const n = frames.length;
  const writeBatch = (length: number) => {
    const children = builders.map((builder) => builder.flush());
    const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
    writeSync(fd, tableToIPC(new Table(batch), "stream"));
  };
  let pending = 0;
  for (let row = 0; row < ROWS; row++) {
    const value = frames[row % n]!;
    recv.append(BigInt(START_MICROS + row * 3));
    kind.append(value.kind);
    channel.append(value.channel);
    timestamp.append(BigInt(value.timestampMs));
    frame.append(value.bytes);
    if (++pending === BATCH_ROWS) {
      writeBatch(pending);
      pending = 0;
    }
  }
  if (pending > 0) writeBatch(pending);
  closeSync(fd);
}

const RUNS = 2;

interface Timing {
  seconds: number;
  cpuSeconds: number;
  fileBytes: number;
}

/** Best of RUNS runs of `run` writing `path` (wall and CPU time each at their best). */
function measure(path: string, run: (path: string) => void): Timing {
  let best: Timing | undefined;
  for (let i = 0; i < RUNS; i++) {
    // Truncating the last run's file (hundreds of MB of page cache) would be timed with the run: remove it first.
    rmSync(path, { force: true });
    const cpu = process.cpuUsage();
    const started = performance.now();
    run(path);
    const seconds = (performance.now() - started) / 1_000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    const fileBytes = statSync(path).size;
    best = best === undefined ? { seconds, cpuSeconds, fileBytes } : { seconds: Math.min(best.seconds, seconds), cpuSeconds: Math.min(best.cpuSeconds, cpuSeconds), fileBytes };
  }
  return best!;
}

/** The disk's floor: the same number of bytes written in 16 MB writeSync calls, no Arrow, no rows. */
function rawWrite(path: string, bytes: number): void {
  const block = new Uint8Array(16 * 1024 * 1024).fill(0x7b);
  const fd = openSync(path, "w");
  try {
    for (let left = bytes; left > 0; left -= block.length) writeSync(fd, block, 0, Math.min(block.length, left));
  } finally {
    closeSync(fd);
  }
}

const figures = (timing: Timing) => ({
  seconds: Number(timing.seconds.toFixed(3)),
  rowsPerSec: Math.round(ROWS / timing.seconds),
  rowsPerCpuSec: Math.round(ROWS / timing.cpuSeconds),
});

const { frames, source } = framePool();
const meanFrameBytes = frames.reduce((sum, frame) => sum + frame.bytes.length, 0) / frames.length;
const dir = mkdtempSync(join(process.env["SHADOWBOOK_BENCH_DIR"] ?? tmpdir(), "bench-record-"));
try {
  const path = join(dir, "rows.arrow");
  // Warm-up (JIT), not measured.
  appendOnly(path, frames.slice(0, 64));
  recorderPath(path, frames.slice(0, 64));
  const ours = measure(path, (file) => appendOnly(file, frames));
  const check = readMdRecording(path);
  const last = frames[(ROWS - 1) % frames.length]!;
  const verified = check.length === ROWS && check.channel(ROWS - 1) === last.channel && check.frameText(ROWS - 1) === Buffer.from(last.bytes).toString("utf8");
  const recorder = measure(path, (file) => recorderPath(file, frames));
  const peer = measure(path, (file) => builderPeer(file, frames));
  const floor = measure(path, (file) => rawWrite(file, ours.fileBytes));
  rmSync(path, { force: true });
  console.log(
    JSON.stringify({
      bench: "record",
      rows: ROWS,
      frames: source,
      meanFrameBytes: Math.round(meanFrameBytes),
      dir: process.env["SHADOWBOOK_BENCH_DIR"] ?? tmpdir(),
      ...figures(ours),
      MBPerSec: Number((ours.fileBytes / 1e6 / ours.seconds).toFixed(1)),
      fileMB: Number((ours.fileBytes / 1e6).toFixed(1)),
      target: TARGET_ROWS_PER_SEC,
      meetsTarget: ROWS / ours.seconds >= TARGET_ROWS_PER_SEC,
      verified,
      recorderPath: figures(recorder),
      peer: { method: "apache-arrow makeBuilder + tableToIPC per 65,536-row batch", ...figures(peer), fileMB: Number((peer.fileBytes / 1e6).toFixed(1)) },
      ratio: Number(((ROWS / ours.seconds) / (ROWS / peer.seconds)).toFixed(2)),
      diskFloor: { method: "the same bytes in 16 MB writeSync calls", seconds: Number(floor.seconds.toFixed(3)), MBPerSec: Number((floor.fileBytes / 1e6 / floor.seconds).toFixed(1)) },
      cpuRatio: Number((peer.cpuSeconds / ours.cpuSeconds).toFixed(2)),
      loadAverage: Number(loadavg()[0]!.toFixed(1)),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
