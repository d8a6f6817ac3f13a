/**
 * `shadowbook record --url ws://HOST:PORT/ws --channels a,b --duration <s>
 * --out data/<name>.arrow`: records a streaming server's frames (shadowbook's
 * or the real service's) into an md-recording/1 file
 * (src/record/md-recording.ts) with src/record/ws-recorder.ts, until the
 * duration, `--max-rows`, SIGINT or SIGTERM; prints a summary (which names
 * what stopped it: `--duration`, `--max-rows` or a signal). Exit status 1
 * when the first connection or a channel's subscription fails: then no file
 * is left behind (nor a directory made for it).
 *
 * `--out` names a new file: an existing one (a recording, or anything else)
 * is refused before connecting, naming it; nothing replaces a recording
 * (there is no flag to force it: remove it, or choose another path).
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { formatSummary, WsRecorder, type RecordSummary } from "../record/ws-recorder.ts";

export interface RecordCommandOptions {
  url: string;
  channels: string;
  out: string;
  duration?: string;
  maxRows?: string;
  quiet?: boolean;
}

/** Parses the options, records, prints the summary; the summary. */
export async function recordCommand(options: RecordCommandOptions): Promise<RecordSummary> {
  const channels = options.channels
    .split(",")
    .map((channel) => channel.trim())
    .filter((channel) => channel.length > 0);
  const durationSeconds = options.duration === undefined ? undefined : Number(options.duration);
  if (durationSeconds !== undefined && !(durationSeconds > 0)) throw new Error(`--duration "${options.duration}" is not a positive number of seconds`);
  const maxRows = options.maxRows === undefined ? undefined : Number(options.maxRows);
  if (maxRows !== undefined && !(Number.isSafeInteger(maxRows) && maxRows > 0)) throw new Error(`--max-rows "${options.maxRows}" is not a positive integer`);
  if (options.out === "") throw new Error(`--out "" is empty: give the file to write the recording to`);
  if (existsSync(options.out)) throw new Error(`--out "${options.out}" already exists: record does not replace it; remove it or choose another path`);
  const log = options.quiet === true ? undefined : (line: string) => console.error(`record: ${line}`);
  const recorder = new WsRecorder({
    url: options.url,
    channels,
    out: options.out,
    ...(durationSeconds === undefined ? {} : { durationMs: durationSeconds * 1_000 }),
    ...(maxRows === undefined ? {} : { maxRows }),
    ...(log === undefined ? {} : { log }),
  });
  // After the recorder took its options (a bad URL makes no directory). The first directory made for --out
  // (undefined when it existed) is removed again when the recording never starts.
  const madeDir = mkdirSync(dirname(options.out), { recursive: true });
  const onSignal = () => void recorder.stop("signal");
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    try {
      await recorder.start();
    } catch (error) {
      // The recorder removed its file (ws-recorder.ts): the directories made for it go too.
      if (madeDir !== undefined) rmSync(madeDir, { recursive: true, force: true });
      throw error;
    }
    log?.(`recording ${channels.length} channel${channels.length === 1 ? "" : "s"} to ${options.out}${durationSeconds === undefined ? " until interrupted" : ` for ${durationSeconds} s`}`);
    const summary = await recorder.finished;
    for (const line of formatSummary(summary)) console.log(line);
    return summary;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
